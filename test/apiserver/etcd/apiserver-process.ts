/**
 * A real `fleetgate apiserver` process (dist/, which `npm test` builds first) on port 0 with its
 * own working directory (development certificates), and a small HTTPS client for it: JSON
 * requests, /readyz, and watch streams read line by line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent, request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../../../dist/src/cli/bin.js', import.meta.url));
export const builtSkipReason = existsSync(bin) ? undefined : 'dist/ is not built (npm test builds it first; or npm run build)';

export interface Reply {
  status: number;
  body: any;
  /** How long the request took (ms). */
  ms: number;
}

export interface WatchStream {
  /** Every event received so far. */
  readonly events: any[];
  /** Whether the server ended the stream. */
  readonly ended: boolean;
  /** Waits until `check` holds on the events (rejects after `ms`). */
  until(check: (events: any[]) => boolean, what: string, ms?: number): Promise<void>;
  close(): void;
}

export interface ApiserverProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly probePort: number;
  /** `https://127.0.0.1:<port>`, and the CA that signed its certificate (for other clients). */
  readonly url: string;
  readonly caFile: string;
  log(): string;
  request(method: string, path: string, body?: unknown): Promise<Reply>;
  /** The status /readyz answers. */
  readyz(): Promise<number>;
  watch(path: string): Promise<WatchStream>;
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** The CA of the serving certificate, when the args name one (default: the development CA the process makes). */
  caFile?: string;
  /** A bearer token for every request (with --token-auth-file). */
  token?: string;
  /** Replaces the default `--port 0 --probe-port 0` (the args then carry their own). */
  portArgs?: string[];
}

export async function startApiserver(args: string[], options: StartOptions = {}): Promise<ApiserverProcess> {
  const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-apiserver-etcd-'));
  const child = spawn(process.execPath, [bin, 'apiserver', ...(options.portArgs ?? ['--port', '0', '--probe-port', '0']), ...args], { cwd });
  let log = '';
  const ready = new Promise<{ port: number; probePort: number }>((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      log += chunk;
      const line = log.split('\n').find((l) => l.includes('"probePort"'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`fleetgate apiserver exited with ${code}: ${log}`)));
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const { port, probePort } = await ready;
  const caFile = options.caFile ?? join(cwd, 'certs', 'ca.crt');
  const ca = readFileSync(caFile);
  const authorization: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  // One connection per request: a watch holds its own, and a stopped etcd leaves no pooled socket in a bad state.
  const agent = new Agent({ ca, keepAlive: false });
  const base: RequestOptions = { host: '127.0.0.1', port, agent, servername: 'localhost' };

  const send = (method: string, path: string, body?: unknown): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      const req = request({ ...base, method, path, headers: { ...authorization, ...(payload ? { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) } : {}) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, ms: performance.now() - started });
        });
      });
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
      req.on('error', reject);
      req.end(payload);
    });

  const watch = (path: string): Promise<WatchStream> =>
    new Promise((resolve, reject) => {
      const events: any[] = [];
      let ended = false;
      const req = request({ ...base, method: 'GET', path, headers: authorization }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        readEvents(res, (event) => events.push(event));
        const end = () => (ended = true);
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
        resolve({
          events,
          get ended() {
            return ended;
          },
          async until(check, what, ms = 20_000) {
            const deadline = Date.now() + ms;
            while (!check(events)) {
              if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${events.length} events, ended: ${ended}`);
              await new Promise((r) => setTimeout(r, 20));
            }
          },
          close: () => req.destroy(),
        });
      });
      req.on('error', (error) => {
        ended = true;
        reject(error);
      });
      req.end();
    });

  return {
    child,
    port,
    probePort,
    url: `https://127.0.0.1:${port}`,
    caFile,
    log: () => log,
    request: send,
    readyz: () =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: probePort, path: '/readyz', agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      }),
    watch,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      agent.destroy();
      rmSync(cwd, { recursive: true, force: true });
      return code;
    },
  };
}

/** Calls `onEvent` with each event of a watch response (one JSON object per line). */
export function readEvents(res: IncomingMessage, onEvent: (event: any) => void): void {
  let buffered = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim()) onEvent(JSON.parse(line));
    }
  });
}

/** Polls `check` until it holds (rejects with `what` after `ms`). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A Cluster object as kubectl would send it. */
export const cluster = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name, labels: { test: 'etcd' } },
  spec: { syncMode: 'Push', apiEndpoint: `https://${name}.example.com:6443`, ...extra },
});

export const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
