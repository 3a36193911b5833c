/**
 * A server under test in its own process, as operators run it: started from the built CLI,
 * optionally pinned to one core, known to be up from its own JSON log line (the API server's,
 * which listens on port 0, so harnesses in several worktrees run side by side) or by asking it
 * (the webhook: its probe port, at any log level), its log kept for the harness to read,
 * and stopped by a signal with the exit code and the time it took. The webhook's harnesses use
 * startWebhook(); the API server's (and etcd, any program that logs JSON lines) can start through
 * startServerProcess().
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect as tcpConnect, createServer as createNetServer, type AddressInfo } from 'node:net';

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
  /** Log lines seen so far (the last `keepLines`), as written. */
  log: string[];
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
  /** Environment variables added to this process's own (`MALLOC_ARENA_MAX`…). */
  env?: Record<string, string>;
  /**
   * Write the process's stderr (fleetgate's log) to this file instead of reading it. A pipe the
   * harness reads late (its own core full with load) fills, and the server's next log write
   * blocks until it is read: the harness would stop the server it measures. A file never
   * blocks a writer, as a container runtime that keeps up with its pods' logs.
   */
  stderrFile?: string;
  /** Reads a log line (parsed JSON); returns what the harness needs once the server is up. */
  readyWhen?: (line: Record<string, unknown>) => Ready | undefined;
  /**
   * Or asks the server itself, every 50 ms until it returns something: readiness from a probe or a
   * connection holds at any log level, where a log line is gone once the level is above it.
   */
  readyCheck?: () => Promise<Ready | undefined>;
  /** Called with each log line (parsed where it is JSON). */
  onLine?: (line: unknown) => void;
  /**
   * Called with each log line as written. A harness under load that needs only some lines should
   * take them here: parsing every line in the load generator's process is garbage, and its
   * collector's pauses are then measured as the server's latency.
   */
  onText?: (text: string) => void;
  keepLines?: number;
  startTimeoutMs?: number;
}

export function startServerProcess<Ready>(options: StartOptions<Ready>): Promise<ServerProcess<Ready>> {
  const program = options.command ?? process.execPath;
  const command = options.cpu !== undefined && hasTaskset ? 'taskset' : program;
  const args = options.cpu !== undefined && hasTaskset ? ['-c', String(options.cpu), program, ...options.args] : options.args;
  const stderr = options.stderrFile === undefined ? 'pipe' : openSync(options.stderrFile, 'a');
  const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', stderr], ...(options.env ? { env: { ...process.env, ...options.env } } : {}) });
  if (typeof stderr === 'number') closeSync(stderr);
  const keep = options.keepLines ?? 500;
  /** Where the lines not kept here are, for a failure's message. */
  const whereElse = options.stderrFile === undefined ? '' : ` (its stderr is in ${options.stderrFile})`;
  let signalledAt = 0;
  const exited = new Promise<ExitReport>((done) => child.once('exit', (code, signal) => done({ code, signal, ms: signalledAt ? performance.now() - signalledAt : Number.NaN })));

  return new Promise((resolve, reject) => {
    let ready: Ready | undefined;
    const becomeReady = (value: Ready) => {
      ready = value;
      clearTimeout(timer);
      proc.ready = value;
      resolve(proc);
    };
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
      reject(new Error(`the server did not start within ${options.startTimeoutMs ?? 60_000} ms; its last lines${whereElse}:\n${proc.log.slice(-10).join('\n')}`));
    }, options.startTimeoutMs ?? 60_000);
    const readLines = (stream: NodeJS.ReadableStream) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const text of lines) {
          if (!text) continue;
          proc.logLines++;
          proc.log.push(text);
          if (proc.log.length > keep) proc.log.splice(0, proc.log.length - keep);
          options.onText?.(text);
          const waiting = ready === undefined && options.readyWhen !== undefined;
          if (!options.onLine && !waiting) continue;
          const line = parseLine(text);
          options.onLine?.(line);
          if (waiting && typeof line === 'object' && line !== null) {
            const value = options.readyWhen!(line as Record<string, unknown>);
            if (value !== undefined) becomeReady(value);
          }
        }
      });
    };
    readLines(child.stdout!);
    if (child.stderr) readLines(child.stderr);
    if (options.readyCheck) {
      const check = options.readyCheck;
      const poll = () => {
        if (ready !== undefined || child.exitCode !== null || child.signalCode !== null) return;
        void check().then(
          (value) => (value !== undefined && ready === undefined ? becomeReady(value) : void setTimeout(poll, 50)),
          () => void setTimeout(poll, 50),
        );
      };
      poll();
    }
    void exited.then((report) => {
      if (ready !== undefined) return;
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${report.code}, signal ${report.signal}) before it was ready; its last lines${whereElse}:\n${proc.log.slice(-10).join('\n')}`));
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
  /** `listening` (the default): the ports answer; `ready`: /readyz answers 200 too. */
  waitFor?: 'listening' | 'ready';
  /** Node's own flags for the server process (`--trace-gc`, `--cpu-prof`…). */
  nodeArgs?: string[];
  /** Environment variables for the server process, added to the harness's own. */
  env?: Record<string, string>;
  onLine?: (line: unknown) => void;
  onText?: (text: string) => void;
  /** How many of the last log lines to keep (default 500). */
  keepLines?: number;
  /** The server's stderr (its log) to this file, not read by the harness (see StartOptions). */
  stderrFile?: string;
  /** The CLI to run (default: this checkout's fleetgateBin); another build's, to compare builds. */
  bin?: string;
}

/** A log line, parsed where it is JSON (a line cut short, or not JSON, stays text). */
function parseLine(text: string): unknown {
  if (!text.startsWith('{')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A port free on 127.0.0.1 a moment ago (the system's pick for port 0, released). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createNetServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
}

/** Whether a TCP connection to the port is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

/**
 * `fleetgate serve` on 127.0.0.1, from the built CLI (npm run build first). It is up once its probe
 * port answers (any status: a server waiting for the control plane's first list is up, not ready)
 * and its webhook port takes connections; `waitFor: 'ready'` waits for /readyz 200 as well. No log
 * line is needed, so any `--log-level` runs. The ports are picked free just before the start; one
 * taken meanwhile by another process (the server exits at once) is picked again.
 */
export async function startWebhook(options: WebhookOptions = {}): Promise<ServerProcess<WebhookReady>> {
  const bin = options.bin ?? fleetgateBin;
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWebhookOn(await freePort(), await freePort(), options);
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE|address already in use/i.test((err as Error).message)) throw err;
    }
  }
}

async function startWebhookOn(port: number, probePort: number, options: WebhookOptions): Promise<ServerProcess<WebhookReady>> {
  // With no certificate flags the server writes development certificates to ./certs: a fresh folder each run.
  const cwd = options.certDir ? undefined : mkdtempSync(join(tmpdir(), 'fleetgate-reliability-'));
  const args = [...(options.nodeArgs ?? []), options.bin ?? fleetgateBin, 'serve', '--port', String(port), '--probe-port', String(probePort), '--bind-address', '127.0.0.1', '--log-level', options.logLevel ?? 'info'];
  if (options.certDir) args.push('--cert-dir', options.certDir);
  args.push(...(options.extraArgs ?? []));
  return startServerProcess<WebhookReady>({
    args,
    cpu: options.cpu,
    cwd,
    env: options.env,
    onLine: options.onLine,
    onText: options.onText,
    keepLines: options.keepLines,
    stderrFile: options.stderrFile,
    readyCheck: async () => {
      const status = await fetch(`http://127.0.0.1:${probePort}/readyz`).then((r) => r.status, () => 0);
      if (status === 0 || (options.waitFor === 'ready' && status !== 200) || !(await accepts(port))) return undefined;
      const ca = options.ca ?? readFileSync(join(cwd!, 'certs', 'ca.crt'), 'utf8');
      return { port, probePort, ca };
    },
  });
}
