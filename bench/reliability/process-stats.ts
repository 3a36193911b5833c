/**
 * What a server process holds, read from outside through /proc (Linux): resident memory, open
 * file descriptors, CPU time; and its V8 heap from the Node process metrics it exposes in the
 * Prometheus text format (fleetgate's probe port; any prom-client server's /metrics).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessSample {
  /** Seconds since the sampler started. */
  t: number;
  rssMiB: number;
  fds: number;
  /** CPU seconds the sampled process has used so far. */
  cpuSeconds: number;
  /** CPU seconds the sampling process itself (the harness, the load) has used so far. */
  samplerCpuSeconds: number;
  /** Each core's steal so far, in seconds: time the hypervisor ran something else on it. */
  stealSeconds: number[];
  /** V8 heap in use, when a metrics URL was given and answered. */
  heapUsedMiB?: number;
  heapTotalMiB?: number;
}

export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * The remote ports of the process's TCP connections (IPv4 and IPv6), one entry per connection: its
 * socket descriptors' inodes looked up in the kernel's connection tables. A harness tells its own
 * connections to a server apart from the server's other descriptors by these.
 */
export function tcpPeerPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const socket = /^socket:\[(\d+)\]$/.exec(link);
    if (socket) inodes.add(socket[1]!);
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue; // no IPv6
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // fields: sl, local address:port, remote address:port, state, ..., inode (the tenth)
      if (fields.length < 10 || !inodes.has(fields[9]!)) continue;
      const remotePort = parseInt(fields[2]!.split(':')[1]!, 16);
      if (remotePort !== 0) ports.push(remotePort); // 0: a listening socket
    }
  }
  return ports;
}

/** Moves this process (every thread of it) to one core, when taskset is there; whether it did. */
export function pinSelf(cpu: number): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' }).status === 0;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** Each core's steal time so far, in seconds (the eighth figure of its `cpuN` line in /proc/stat). */
export function stealSeconds(): number[] {
  const steal: number[] = [];
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (match) steal[Number(match[1])] = Number(match[2]!.split(' ')[7] ?? 0) / CLOCK_TICKS;
  }
  return steal;
}

/** User plus system CPU seconds the process has used. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The value of an unlabelled metric on a Prometheus text page, bytes read as MiB (NaN when absent). */
export const metricMiB = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 2 ** 20;

/** The V8 heap figures of a prom-client /metrics page, in MiB; undefined when it does not answer 200 with them in `timeoutMs`. */
export async function heapFromMetrics(url: string, timeoutMs = 2000): Promise<{ used: number; total: number } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    const used = metricMiB(text, 'nodejs_heap_size_used_bytes');
    const total = metricMiB(text, 'nodejs_heap_size_total_bytes');
    return res.ok && Number.isFinite(used) ? { used, total } : undefined;
  } catch {
    return undefined;
  }
}

/** Samples `pid` every `intervalMs` until stopped; the samples are kept in order. */
export class ProcessSampler {
  readonly samples: ProcessSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly started = performance.now();

  /**
   * `metricsEvery`: the server's /metrics page is read with every that many samples (the first
   * included). A scrape is work on the server's main thread (some milliseconds for the page), which
   * a latency harness may want as rare as Prometheus makes it.
   */
  constructor(
    private readonly pid: number,
    private readonly metricsUrl?: string,
    private readonly metricsEvery = 1,
  ) {}

  async sample(): Promise<ProcessSample> {
    const t = (performance.now() - this.started) / 1000;
    const own = process.cpuUsage();
    const sample: ProcessSample = { t, rssMiB: rssMiB(this.pid), fds: openFds(this.pid), cpuSeconds: cpuSeconds(this.pid), samplerCpuSeconds: (own.user + own.system) / 1e6, stealSeconds: stealSeconds() };
    if (this.metricsUrl && this.samples.length % this.metricsEvery === 0) {
      const heap = await heapFromMetrics(this.metricsUrl);
      if (heap) Object.assign(sample, { heapUsedMiB: heap.used, heapTotalMiB: heap.total });
    }
    this.samples.push(sample);
    return sample;
  }

  start(intervalMs = 1000): this {
    this.timer = setInterval(() => void this.sample().catch(() => undefined), intervalMs);
    return this;
  }

  stop(): ProcessSample[] {
    clearInterval(this.timer);
    return this.samples;
  }

  /**
   * The share of a core (0–1) the sampled process (`server`) and the sampler's own process
   * (`sampler`) used between the sample before `sample` and it, and the share of core `stealCore`
   * the hypervisor took (`steal`): per second, whether a slow second was a busy server, a busy
   * load generator, or a core the machine did not give.
   */
  cpuShareBefore(sample: ProcessSample, stealCore = 0): { server: number; sampler: number; steal: number } | undefined {
    const before = this.samples[this.samples.indexOf(sample) - 1];
    if (!before) return undefined;
    const seconds = sample.t - before.t;
    const steal = ((sample.stealSeconds[stealCore] ?? 0) - (before.stealSeconds[stealCore] ?? 0)) / seconds;
    return { server: (sample.cpuSeconds - before.cpuSeconds) / seconds, sampler: (sample.samplerCpuSeconds - before.samplerCpuSeconds) / seconds, steal };
  }

  /** Mean of `field` over the samples taken from `from` to `to` seconds. */
  mean(field: 'rssMiB' | 'fds' | 'heapUsedMiB' | 'heapTotalMiB', from: number, to: number): number {
    const values = this.samples.filter((s) => s.t >= from && s.t <= to).map((s) => s[field]).filter((v): v is number => v !== undefined);
    return values.reduce((a, b) => a + b, 0) / values.length;
  }
}

/** Resident MiB of each mapping of `pid` (/proc/PID/smaps), by its path; anonymous mappings as `[anon]`, `[heap]`, `[stack]`. */
export function residentByMapping(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) name = head[1] || '[anon]';
    else if (line.startsWith('Rss:')) out.set(name, (out.get(name) ?? 0) + Number(/(\d+) kB/.exec(line)?.[1] ?? Number.NaN) / 1024);
  }
  return out;
}

/**
 * The resident size of malloc's main arena (the `[heap]` mapping) in MiB: where glibc keeps what
 * the main thread allocates outside V8's heap (Buffers, TLS records) and does not give back while a
 * live block sits above the free ones.
 */
export const mallocMainArenaMiB = (pid: number): number => residentByMapping(pid).get('[heap]') ?? 0;
