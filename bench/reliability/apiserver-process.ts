/**
 * `fleetgate apiserver` under test in its own process (server-process.ts): HTTPS on a port the
 * system picks, probes and metrics on another, development certificates in its working folder
 * (kept across restarts, so a restarted server serves the same CA), and a small JSON client for it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'node:https';
import { keepAliveAgent, send, type Outcome, type Target } from './client.js';
import { fleetgateBin, startServerProcess, type ServerProcess } from './server-process.js';

export interface ApiserverReady {
  port: number;
  probePort: number;
  /** The development CA (PEM). */
  ca: string;
}

export type Apiserver = ServerProcess<ApiserverReady>;

export interface ApiserverOptions {
  /** The working folder: development certificates go to `certs/` in it (default: a new temporary folder). */
  cwd?: string;
  /** Storage flags: `--data-dir DIR`, `--etcd-servers URL`, `--storage memory`. */
  storageArgs: string[];
  cpu?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  onLine?: (line: unknown) => void;
}

export function apiserverFolder(): string {
  return mkdtempSync(join(tmpdir(), 'fleetgate-reliability-apiserver-'));
}

/** Starts `fleetgate apiserver` from the built CLI (npm run build first). */
export function startApiserver(options: ApiserverOptions): Promise<Apiserver> {
  const cwd = options.cwd ?? apiserverFolder();
  return startServerProcess<ApiserverReady>({
    args: [fleetgateBin, 'apiserver', '--port', '0', '--probe-port', '0', '--log-level', options.logLevel ?? 'info', ...options.storageArgs],
    cwd,
    cpu: options.cpu,
    onLine: options.onLine,
    readyWhen: (line) => {
      if (typeof line.port !== 'number' || typeof line.probePort !== 'number') return undefined;
      return { port: line.port, probePort: line.probePort, ca: readFileSync(join(cwd, 'certs', 'ca.crt'), 'utf8') };
    },
  });
}

export const targetOf = (server: Apiserver): Target => ({ host: '127.0.0.1', port: server.ready.port, ca: server.ready.ca });

export interface Answer extends Outcome {
  /** The body parsed as JSON, when it is. */
  json?: any;
}

/** JSON requests to one API server over kept-alive connections. */
export class ApiClient {
  private readonly agent: Agent;

  constructor(
    readonly target: Target,
    connections = 32,
  ) {
    this.agent = keepAliveAgent(target, connections) as Agent;
  }

  async call(method: string, path: string, body?: unknown, deadlineMs = 30_000): Promise<Answer> {
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const outcome: Answer = await send(this.target, {
      method,
      path,
      headers: body === undefined ? {} : { 'content-type': contentType },
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
      deadlineMs,
      agent: this.agent,
    });
    if (outcome.body) {
      try {
        outcome.json = JSON.parse(outcome.body);
      } catch {
        // not JSON
      }
    }
    return outcome;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The probe port's /readyz status (0 when it does not answer). */
export async function readyz(server: Apiserver): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${server.ready.probePort}/readyz`, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}
