/**
 * A real `fleetgate apiserver` (HTTPS, development certificates, in-memory store) on port 0, and the
 * real kubectl pointed at it with its own kubeconfig, cache directory and HOME.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { serveApi, type ApiServerOptions, type RunningApiServer } from '../../src/apiserver/serve.js';
import { createMemoryStorage } from '../../src/apiserver/storage/index.js';
import { kubectlPath } from './kubectl.js';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlServer {
  server: RunningApiServer;
  dir: string;
  kubectl(args: readonly string[], input?: string): Promise<KubectlResult>;
  /** Starts a long-running kubectl (get -w, a delete that waits); collect its output until you stop it. */
  spawnKubectl(args: readonly string[]): { child: ChildProcess; output: () => string; exited: Promise<number> };
  close(): Promise<void>;
}

export async function startKubectlServer(options: Partial<ApiServerOptions> = {}): Promise<KubectlServer> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-apiserver-kubectl-'));
  const server = await serveApi({
    storage: createMemoryStorage(),
    port: 0,
    probePort: 0,
    devCertDir: join(dir, 'certs'),
    logger: pino({ level: 'silent' }),
    ...options,
  });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, '');
  const base = () => ['--server', server.url, '--certificate-authority', server.caFile!, '--token', 'local', '--cache-dir', join(dir, 'cache'), '--request-timeout', '30s'];
  const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir };
  const kubectl = (args: readonly string[], input?: string) =>
    new Promise<KubectlResult>((resolve) => {
      const child = execFile(kubectlPath!, [...base(), ...args], { env, timeout: 90_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin!.end(input);
    });
  const spawnKubectl = (args: readonly string[]) => {
    const child = spawn(kubectlPath!, [...base(), ...args], { env });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    return { child, output: () => text, exited };
  };
  return {
    server,
    dir,
    kubectl,
    spawnKubectl,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `check` holds, polling; rejects with `what` after `ms`. */
export async function eventually(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
