/**
 * A server under test in its own process, as operators run it: started from the built CLI,
 * optionally pinned to one core, its ports read from its own JSON log line (it listens on port
 * 0, so harnesses in several worktrees run side by side), its log kept for the harness to read,
 * and stopped by a signal with the exit code and the time it took. The webhook's harnesses use
 * startWebhook(); the API server's (and etcd, any program that logs JSON lines) can start through
 * startServerProcess().
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file that holds package.json (from src or from dist). */
export const repoRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
})();

export const fleetgateBin = join(repoRoot, 'dist/src/cli/bin.js');

const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

export interface ExitReport {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds from the stop signal to the exit. */
  ms: number;
}

export interface ServerProcess<Ready> {
  child: ChildProcess;
  pid: number;
  ready: Ready;
  /** Log lines seen so far (the last `keepLines`), JSON-parsed where they are JSON. */
  log: unknown[];
  /** How many log lines the server wrote. */
  logLines: number;
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<ExitReport>;
  /** Sends `signal` (default SIGTERM) and waits for the exit, killing the process after `killAfterMs`. */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<ExitReport>;
}

export interface StartOptions<Ready> {
  /** The program (default: this Node); `args` are its arguments. */
  command?: string;
  args: string[];
  /** Pin the process to this core (when taskset is there). */
  cpu?: number;
  cwd?: string;
  /** Reads a log line (parsed JSON); returns what the harness needs once the server is up. */
  readyWhen: (line: Record<string, unknown>) => Ready | undefined;
  /** Called with each log line (parsed where it is JSON). */
  onLine?: (line: unknown) => void;
  keepLines?: number;
  startTimeoutMs?: number;
}

export function startServerProcess<Ready>(options: StartOptions<Ready>): Promise<ServerProcess<Ready>> {
  const program = options.command ?? process.execPath;
  const command = options.cpu !== undefined && hasTaskset ? 'taskset' : program;
  const args = options.cpu !== undefined && hasTaskset ? ['-c', String(options.cpu), program, ...options.args] : options.args;
  const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = options.keepLines ?? 500;
  let signalledAt = 0;
  const exited = new Promise<ExitReport>((done) => child.once('exit', (code, signal) => done({ code, signal, ms: signalledAt ? performance.now() - signalledAt : Number.NaN })));

  return new Promise((resolve, reject) => {
    let ready: Ready | undefined;
    const proc: ServerProcess<Ready> = {
      child,
      pid: child.pid!,
      ready: undefined as Ready,
      log: [],
      logLines: 0,
      exited,
      async stop(signal = 'SIGTERM', killAfterMs = 35_000) {
        if (child.exitCode === null && child.signalCode === null) {
          signalledAt = performance.now();
          child.kill(signal);
        }
        const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        const report = await exited;
        clearTimeout(killer);
        return report;
      },
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${options.startTimeoutMs ?? 60_000} ms; its last lines:\n${proc.log.slice(-10).map((l) => JSON.stringify(l)).join('\n')}`));
    }, options.startTimeoutMs ?? 60_000);
    const onText = (stream: NodeJS.ReadableStream) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const text of lines) {
          if (!text) continue;
          let line: unknown = text;
          if (text.startsWith('{')) {
            try {
              line = JSON.parse(text);
            } catch {
              // a line cut or not JSON: kept as text
            }
          }
          proc.logLines++;
          proc.log.push(line);
          if (proc.log.length > keep) proc.log.splice(0, proc.log.length - keep);
          options.onLine?.(line);
          if (ready === undefined && typeof line === 'object' && line !== null) {
            ready = options.readyWhen(line as Record<string, unknown>);
            if (ready !== undefined) {
              clearTimeout(timer);
              proc.ready = ready;
              resolve(proc);
            }
          }
        }
      });
    };
    onText(child.stdout!);
    onText(child.stderr!);
    void exited.then((report) => {
      if (ready !== undefined) return;
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${report.code}, signal ${report.signal}) before it was ready; its last lines:\n${proc.log.slice(-10).map((l) => JSON.stringify(l)).join('\n')}`));
    });
  });
}

export interface WebhookReady {
  port: number;
  probePort: number;
  /** The CA that signed the serving certificate (PEM). */
  ca: string;
}

export interface WebhookOptions {
  /** `--cert-dir` with tls.crt and tls.key; without it the server makes development certificates in a new temporary folder. */
  certDir?: string;
  /** The CA of `certDir`'s certificate (PEM); required with certDir. */
  ca?: string;
  extraArgs?: string[];
  cpu?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  onLine?: (line: unknown) => void;
}

/** `fleetgate serve` on 127.0.0.1, ports chosen by the system, from the built CLI (npm run build first). */
export async function startWebhook(options: WebhookOptions = {}): Promise<ServerProcess<WebhookReady>> {
  if (!existsSync(fleetgateBin)) throw new Error(`${fleetgateBin} is missing: run npm run build first`);
  // With no certificate flags the server writes development certificates to ./certs: a fresh folder each run.
  const cwd = options.certDir ? undefined : mkdtempSync(join(tmpdir(), 'fleetgate-reliability-'));
  const args = [fleetgateBin, 'serve', '--port', '0', '--probe-port', '0', '--bind-address', '127.0.0.1', '--log-level', options.logLevel ?? 'info'];
  if (options.certDir) args.push('--cert-dir', options.certDir);
  args.push(...(options.extraArgs ?? []));
  return startServerProcess<WebhookReady>({
    args,
    cpu: options.cpu,
    cwd,
    onLine: options.onLine,
    readyWhen: (line) => {
      if (typeof line.port !== 'number' || typeof line.probePort !== 'number') return undefined;
      const ca = options.ca ?? readFileSync(join(cwd!, 'certs', 'ca.crt'), 'utf8');
      return { port: line.port, probePort: line.probePort, ca };
    },
  });
}
