/**
 * The real kubectl against documents served from a throwaway node:http server on port 0. Each
 * server gets its own --cache-dir and an empty kubeconfig, so runs never share a discovery or
 * OpenAPI cache and never read the user's configuration.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** kubectl on PATH, or undefined. */
export const kubectlPath = (process.env.PATH ?? '')
  .split(':')
  .filter(Boolean)
  .map((dir) => join(dir, 'kubectl'))
  .find((candidate) => existsSync(candidate));

/** Why the kubectl tests are skipped, or undefined when they run. */
export const kubectlSkipReason = kubectlPath ? undefined : 'kubectl is not on PATH';

export interface Logged {
  method: string;
  url: string;
  accept: string | undefined;
  status: number;
}

/** Answers a request; returns true when it will answer later (asynchronously). */
export type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | void;

export interface FakeServer {
  url: string;
  /** Every request answered, in order. */
  log: Logged[];
  /** Runs kubectl against the server; resolves with its exit code and output, never rejects. */
  kubectl(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1, port 0; anything it leaves unanswered gets a 404 Status. */
export async function fakeServer(handler: Handler): Promise<FakeServer> {
  const log: Logged[] = [];
  const server = createServer((req, res) => {
    res.on('finish', () => log.push({ method: req.method ?? '', url: req.url ?? '', accept: req.headers.accept, status: res.statusCode }));
    const later = handler(req, res);
    if (later !== true && !res.headersSent && !res.writableEnded) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', code: 404 }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, '');
  const kubectl = (args: readonly string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        kubectlPath!,
        ['--server', url, '--cache-dir', join(dir, 'cache'), '--request-timeout', '20s', ...args],
        { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dir }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  return {
    url,
    log,
    kubectl,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes a module's answer ({status, headers, body}) to the response. */
export function send(res: ServerResponse, answer: { status: number; headers: Record<string, string>; body: string }): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
