import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { heapFromMetrics, mallocMainArenaMiB, metricMiB, ProcessSampler, residentByMapping, rssMiB, tcpPeerPorts, type ProcessSample } from '../../bench/reliability/process-stats.js';

const linux = process.platform === 'linux';

describe.skipIf(!linux)("residentByMapping and mallocMainArenaMiB (read /proc: Linux only)", () => {
  it("splits the RSS by mapping: the parts add up to it, the node binary and malloc's arena among them", () => {
    const parts = residentByMapping(process.pid);
    const sum = [...parts.values()].reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - rssMiB(process.pid))).toBeLessThan(rssMiB(process.pid) * 0.05);
    expect(parts.get(realpathSync(process.execPath))).toBeGreaterThan(1);
    expect(parts.get('[heap]')).toBeGreaterThan(0);
  });

  it("reads the resident part of malloc's main arena: some of the process's RSS, not all", () => {
    const arena = mallocMainArenaMiB(process.pid);
    expect(arena).toBeGreaterThan(0);
    expect(arena).toBeLessThan(rssMiB(process.pid));
  });
});

describe.skipIf(!linux)('tcpPeerPorts (reads /proc: Linux only)', () => {
  it("lists the remote port of each of a process's TCP connections, and drops a closed one", async () => {
    const accepted: Socket[] = [];
    const server = createServer((s) => accepted.push(s));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const clients = await Promise.all([0, 1].map(() => new Promise<Socket>((done) => { const c = connect(port, '127.0.0.1', () => done(c)); })));
    while (accepted.length < 2) await new Promise((r) => setTimeout(r, 5));
    try {
      const peers = tcpPeerPorts(process.pid);
      // Both ends are in this process: the accepted sockets' peers are the clients' ports, the clients' peer is the server's.
      for (const c of clients) expect(peers).toContain(c.localPort);
      expect(peers.filter((p) => p === port)).toHaveLength(2);
      // The listening socket has no peer.
      expect(peers).not.toContain(0);

      const gone = clients[0]!.localPort!;
      await new Promise<void>((done) => { accepted[0]!.once('close', () => done()); clients[0]!.destroy(); accepted[0]!.resume(); });
      const after = tcpPeerPorts(process.pid);
      expect(after).not.toContain(gone);
      expect(after).toContain(clients[1]!.localPort);
    } finally {
      for (const s of [...clients, ...accepted]) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});

describe.skipIf(!linux)('ProcessSampler CPU shares (reads /proc: Linux only)', () => {
  it('reads the CPU time of the sampled process and of its own process with each sample', async () => {
    const sampler = new ProcessSampler(process.pid);
    const first = await sampler.sample();
    const burnUntil = process.cpuUsage().user + 20_000;
    while (process.cpuUsage().user < burnUntil); // 20 ms of CPU
    const second = await sampler.sample();
    // The sampled process is this one: both readings moved by the CPU just burnt.
    expect(second.cpuSeconds - first.cpuSeconds).toBeGreaterThanOrEqual(0.01);
    expect(second.samplerCpuSeconds - first.samplerCpuSeconds).toBeGreaterThanOrEqual(0.02);
    // One steal figure per core, never going back.
    expect(second.stealSeconds).toHaveLength(first.stealSeconds.length);
    second.stealSeconds.forEach((s, core) => expect(s).toBeGreaterThanOrEqual(first.stealSeconds[core]!));
  });

  it("gives each second's share of a core, of the server and of the sampler, from the sample before", () => {
    const sampler = new ProcessSampler(process.pid);
    const at = (t: number, cpuSeconds: number, samplerCpuSeconds: number, stealSeconds: number[]): ProcessSample => ({ t, rssMiB: 1, fds: 1, cpuSeconds, samplerCpuSeconds, stealSeconds });
    sampler.samples.push(at(1, 2, 1, [5, 7]), at(1.5, 2.25, 1.4, [5.1, 7]), at(2.5, 3.25, 1.4, [5.1, 7.5]));
    expect(sampler.cpuShareBefore(sampler.samples[0]!)).toBeUndefined();
    expect(sampler.cpuShareBefore(sampler.samples[1]!)).toEqual({ server: 0.5, sampler: expect.closeTo(0.8, 9), steal: expect.closeTo(0.2, 9) });
    expect(sampler.cpuShareBefore(sampler.samples[2]!)).toEqual({ server: 1, sampler: 0, steal: 0 });
    expect(sampler.cpuShareBefore(sampler.samples[2]!, 1)).toEqual({ server: 1, sampler: 0, steal: 0.5 });
  });
});

describe('metricMiB', () => {
  it("reads an unlabelled metric's bytes as MiB, and NaN for one the page lacks", () => {
    const page = '# HELP nodejs_heap_size_used_bytes x\nnodejs_heap_size_used_bytes 3145728\nnodejs_heap_size_used_bytes_extra 1\nnodejs_heap_space_size_used_bytes{space="new"} 7\n';
    expect(metricMiB(page, 'nodejs_heap_size_used_bytes')).toBe(3);
    expect(metricMiB(page, 'nodejs_heap_size_total_bytes')).toBeNaN();
  });
});

describe('heapFromMetrics', () => {
  it('reads the heap from a metrics page, and gives undefined for an error status, a page without it, a refused or silent server', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    const page = 'nodejs_heap_size_total_bytes 20971520\nnodejs_heap_size_used_bytes 10485760\n';
    const server = createHttpServer((req, res) => {
      if (req.url === '/silent') return;
      res.statusCode = req.url === '/broken' ? 500 : 200;
      res.end(req.url === '/other' ? 'process_cpu_seconds_total 1\n' : page);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await heapFromMetrics(`${base}/metrics`)).toEqual({ used: 10, total: 20 });
      expect(await heapFromMetrics(`${base}/broken`)).toBeUndefined();
      expect(await heapFromMetrics(`${base}/other`)).toBeUndefined();
      expect(await heapFromMetrics(`${base}/silent`, 100)).toBeUndefined();
    } finally {
      server.closeAllConnections();
      server.close();
    }
    expect(await heapFromMetrics(base.replace(/:\d+$/, ':1'))).toBeUndefined();
  });
});

describe.skipIf(!linux)('ProcessSampler metrics reads (reads /proc: Linux only)', () => {
  it('reads the metrics page with the first sample and then with every metricsEvery-th, not with each', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    let scrapes = 0;
    const server = createHttpServer((_req, res) => {
      scrapes++;
      res.end('nodejs_heap_size_total_bytes 20971520\nnodejs_heap_size_used_bytes 10485760\n');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const sampler = new ProcessSampler(process.pid, `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, 3);
      for (let i = 0; i < 7; i++) await sampler.sample();
      expect(scrapes).toBe(3);
      expect(sampler.samples.map((s) => s.heapUsedMiB)).toEqual([10, undefined, undefined, 10, undefined, undefined, 10]);
      expect(sampler.mean('heapUsedMiB', 0, 1e9)).toBe(10);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
