/**
 * A real etcd (Debian's `etcd-server`, /usr/bin/etcd) for tests: one member on loopback ports
 * picked free, in a temporary data directory, stopped and started again at will on the same
 * ports and data. Where the binary is absent the tests using it skip with the reason in their
 * title (FLEETGATE_ETCD_TESTS_REQUIRED=1, as CI sets it, makes them fail instead).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';

/** The etcd binary: $FLEETGATE_ETCD, else `etcd` on PATH (Debian's package puts it in /usr/bin). */
export const etcdPath: string | undefined = (() => {
  const explicit = process.env.FLEETGATE_ETCD;
  if (explicit) return existsSync(explicit) ? explicit : undefined;
  return [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/bin']
    .map((dir) => join(dir, 'etcd'))
    .find((candidate) => existsSync(candidate));
})();

const required = process.env.FLEETGATE_ETCD_TESTS_REQUIRED === '1';

/** Why the etcd tests skip, or undefined when they run (never set when FLEETGATE_ETCD_TESTS_REQUIRED=1). */
export const etcdSkipReason =
  etcdPath || required ? undefined : 'etcd is not installed (Debian: apt-get install etcd-server; or set FLEETGATE_ETCD)';

/** `describe`, or `describe.skip` with the reason (etcd's, or `otherSkipReason`) in the title and on the console. */
export function describeWithEtcd(title: string, body: () => void, otherSkipReason?: string): void {
  const reason = etcdSkipReason ?? otherSkipReason;
  if (reason) {
    console.warn(`[${title}] SKIPPED: ${reason}`);
    describe.skip(`${title} — SKIPPED: ${reason}`, body);
  } else describe(title, body);
}

export interface EtcdServer {
  /** `http://127.0.0.1:<port>`: the client URL, for --etcd-servers. */
  readonly url: string;
  readonly dataDir: string;
  /** Whether the process is running. */
  readonly running: boolean;
  /** Stops the member: SIGTERM (a clean stop) or SIGKILL (a crash). */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again on the same ports and data directory, and waits until it serves. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open and nothing answers. */
  pause(): void;
  /** Lets a frozen process go on (SIGCONT). */
  resume(): void;
  /** etcd's Prometheus metrics, as text. */
  metrics(): Promise<string>;
  /** A gauge or counter of the metrics, summed over its series (0 when absent). */
  metric(name: string): Promise<number>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

export interface EtcdServerOptions {
  /** Extra command-line flags (TLS, for instance). */
  flags?: string[];
  /** The scheme clients use ('https' with TLS flags). */
  scheme?: 'http' | 'https';
}

export async function startEtcd(options: EtcdServerOptions = {}): Promise<EtcdServer> {
  if (!etcdPath) throw new Error(etcdSkipReason ?? 'etcd is not installed (Debian: apt-get install etcd-server)');
  const binary = etcdPath;
  const dataDir = mkdtempSync(join(tmpdir(), 'fleetgate-etcd-'));
  const scheme = options.scheme ?? 'http';
  let ports = await freePorts(3);
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let log = '';

  const metricsUrl = () => `http://127.0.0.1:${ports[2]}/metrics`;
  const launch = async (): Promise<void> => {
    const [client, peer, metrics] = ports as [number, number, number];
    const url = `${scheme}://127.0.0.1:${client}`;
    log = '';
    const started = spawn(
      binary,
      [
        '--name', 'fleetgate-test',
        '--data-dir', dataDir,
        '--listen-client-urls', url,
        '--advertise-client-urls', url,
        '--listen-peer-urls', `http://127.0.0.1:${peer}`,
        '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
        '--initial-cluster', `fleetgate-test=http://127.0.0.1:${peer}`,
        '--listen-metrics-urls', `http://127.0.0.1:${metrics}`,
        '--logger', 'zap',
        '--log-level', 'warn',
        ...(options.flags ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child = started;
    started.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-8_000)));
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`etcd exited with ${started.exitCode}: ${log}`);
      try {
        const health = await fetch(metricsUrl().replace('/metrics', '/health'), { signal: AbortSignal.timeout(1_000) });
        if (health.ok && ((await health.json()) as { health?: string }).health === 'true') return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) {
        started.kill('SIGKILL');
        throw new Error(`etcd did not become healthy within 20 s: ${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  // Ports picked free can be taken by another process before etcd binds them: pick again.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (error) {
      await exited;
      if (attempt === 3 || !/address already in use/.test(log)) {
        rmSync(dataDir, { recursive: true, force: true });
        throw error;
      }
      ports = await freePorts(3);
    }
  }

  const server: EtcdServer = {
    get url() {
      return `${scheme}://127.0.0.1:${ports[0]}`;
    },
    dataDir,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async stop(signal = 'SIGTERM') {
      if (!server.running) return;
      child!.kill(signal);
      await exited;
    },
    start: launch,
    pause() {
      if (server.running) child!.kill('SIGSTOP');
    },
    resume() {
      if (server.running) child!.kill('SIGCONT');
    },
    async metrics() {
      const response = await fetch(metricsUrl());
      return response.text();
    },
    async metric(name) {
      const text = await server.metrics();
      let sum = 0;
      for (const line of text.split('\n')) {
        if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return sum;
    },
    async close() {
      server.resume();
      await server.stop('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** `count` distinct loopback ports that were free a moment ago. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
