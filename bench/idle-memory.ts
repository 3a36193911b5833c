/**
 * Where an idle `fleetgate serve` keeps its memory, for builds (or flag sets, environments) side by
 * side. Each sample is a fresh server (on core 0) taken once /readyz answers 200; its memory is read
 * from /proc 1 s after that and again `--idle-ms` after it (by then the idle collection has had its
 * 5 s window): resident memory split into anonymous (V8's heap, malloc, stacks) and file-backed
 * (the node binary's and libraries' pages it touched), the node binary's own share, the V8 heap from
 * the server's /metrics. With `--load-seconds N`, the soak's mix is then sent over 16 keep-alive
 * connections (the load on core 1) for N s, and the process's high-water mark (VmHWM) gives the peak.
 * Builds alternate sample by sample, so a busy machine weighs on all alike; medians over samples.
 *
 *   npm run bench:idle-memory -- --build this=. [--build 'cold=.,--warm-up=false']
 *                                [--build 'arenas=.,--env=MALLOC_ARENA_MAX=2'] [--samples 5 --idle-ms 8000 --load-seconds 0]
 *   npm run bench:idle-memory -- --build this=. --samples 1 --detail    (every mapping's resident size, once)
 *
 * Builds are given as bench/builds.ts reads them (`name=dir[,flag...]`, `--node=`, `--env=`).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { alternating, buildLabel, parseBuilds, type Build } from './builds.js';
import { certDir } from './reliability/certs.js';
import { keepAliveAgent, send } from './reliability/client.js';
import { Mix } from './reliability/review-mix.js';
import { metricMiB, pinSelf, residentByMapping } from './reliability/process-stats.js';
import { startWebhook } from './reliability/server-process.js';
import { median } from './stats.js';

/** One reading of a process's memory, in MiB. */
interface Reading {
  rss: number;
  anon: number;
  file: number;
  /** Resident pages of the node executable's own mappings. */
  nodeBinary: number;
  /** V8's heap: committed (total) and in use, from the server's /metrics. */
  heapTotal: number;
  heapUsed: number;
  /** What V8 reports outside its heap (array buffers and other external memory). */
  external: number;
}

interface Sample {
  early: Reading;
  idle: Reading;
  /** VmHWM after the load, when there was one. */
  peak?: number;
  /** Every mapping's resident MiB, by path (anonymous ones under their kind), for --detail. */
  mappings?: Map<string, number>;
  /** V8's heap spaces (committed and used MiB), for --detail. */
  spaces?: Map<string, { size: number; used: number }>;
}

const kib = (text: string, field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024;

async function read(pid: number, probePort: number, node: string): Promise<{ reading: Reading; all: Map<string, number>; spaces: Map<string, { size: number; used: number }> }> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const all = residentByMapping(pid);
  const text = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
  const reading = {
    rss: kib(status, 'VmRSS'),
    anon: kib(status, 'RssAnon'),
    file: kib(status, 'RssFile'),
    nodeBinary: all.get(node) ?? 0,
    heapTotal: metricMiB(text, 'nodejs_heap_size_total_bytes'),
    heapUsed: metricMiB(text, 'nodejs_heap_size_used_bytes'),
    external: metricMiB(text, 'nodejs_external_memory_bytes'),
  };
  const spaces = new Map<string, { size: number; used: number }>();
  for (const [, kind, space, value] of text.matchAll(/^nodejs_heap_space_size_(total|used)_bytes\{space="([^"]+)"\} (\S+)/gm)) {
    const entry = spaces.get(space!) ?? { size: 0, used: 0 };
    entry[kind === 'total' ? 'size' : 'used'] = Number(value) / 2 ** 20;
    spaces.set(space!, entry);
  }
  return { reading, all, spaces };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function sample(build: Build, idleMs: number, loadSeconds: number, certs: ReturnType<typeof certDir>, mix: Mix): Promise<Sample> {
  const server = await startWebhook({ bin: build.bin, certDir: certs.dir, ca: certs.ca, cpu: 0, logLevel: 'info', waitFor: 'ready', extraArgs: build.flags, nodeArgs: build.nodeArgs, env: build.env });
  const node = realpathSync(process.execPath);
  try {
    await sleep(1000);
    const early = (await read(server.pid, server.ready.probePort, node)).reading;
    await sleep(Math.max(0, idleMs - 1000));
    const { reading: idle, all, spaces } = await read(server.pid, server.ready.probePort, node);
    let peak: number | undefined;
    if (loadSeconds > 0) {
      const target = { host: '127.0.0.1', port: server.ready.port, ca: certs.ca };
      const agent = keepAliveAgent(target, 16);
      const until = performance.now() + loadSeconds * 1000;
      let i = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (performance.now() < until) {
            const n = i++;
            const request = mix.at(n);
            const outcome = await send(target, { path: request.path, headers: { 'content-type': 'application/json' }, body: Buffer.from(mix.bodyOf(request, `mem-${n}`)), deadlineMs: 10_000, agent });
            if (outcome.status !== 200) throw new Error(`${build.name}: request ${n} answered ${outcome.status} ${outcome.error ?? ''}`);
          }
        }),
      );
      agent.destroy();
      peak = kib(readFileSync(`/proc/${server.pid}/status`, 'utf8'), 'VmHWM');
    }
    return { early, idle, peak, mappings: all, spaces };
  } finally {
    await server.stop();
  }
}

const { values } = parseArgs({
  options: { build: { type: 'string', multiple: true }, samples: { type: 'string' }, 'idle-ms': { type: 'string' }, 'load-seconds': { type: 'string' }, detail: { type: 'boolean' } },
  strict: true,
});
const all = parseBuilds(values.build ?? []);
if (all.length === 0) throw new Error('give at least one --build name=dir');
const samples = Number(values.samples ?? 5);
const idleMs = Number(values['idle-ms'] ?? 8000);
const loadSeconds = Number(values['load-seconds'] ?? 0);

// The servers run on core 0; this process (the load, when there is one) on core 1.
pinSelf(1);
const certs = certDir();
const mix = new Mix();
const runs = await alternating(all, samples, (build) => sample(build, idleMs, loadSeconds, certs, mix));

const loads = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `idle-memory: ${samples} fresh fleetgate serve processes per build (on core 0), alternating; MiB, medians over samples (min-max), read 1 s and ${idleMs} ms after /readyz answered 200` +
    `${loadSeconds ? `; then ${loadSeconds} s of the soak's mix over 16 keep-alive connections, peak = VmHWM` : ''}. Load average at the end: ${loads}.`,
);
const fields: (keyof Reading)[] = ['rss', 'anon', 'file', 'nodeBinary', 'heapTotal', 'heapUsed', 'external'];
const cell = (xs: number[]) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
console.log(`  build | at | ${fields.join(' | ')}${loadSeconds ? ' | peak' : ''}`);
for (const build of all) {
  const rs = runs.get(build.name)!;
  for (const at of ['early', 'idle'] as const) {
    const row = [buildLabel(build), at === 'early' ? '1 s' : `${idleMs / 1000} s`, ...fields.map((f) => cell(rs.map((r) => r[at][f])))];
    if (loadSeconds && at === 'idle') row.push(cell(rs.map((r) => r.peak!)));
    console.log(`  ${row.join(' | ')}`);
  }
}
if (values.detail)
  for (const build of all) {
    const last = runs.get(build.name)!.at(-1)!.mappings!;
    console.log(`\n${buildLabel(build)}: resident MiB by mapping ${idleMs} ms after ready (last sample; mappings under 0.2 MiB left out)`);
    for (const [name, mib] of [...last].sort((a, b) => b[1] - a[1])) if (mib >= 0.2) console.log(`  ${mib.toFixed(1).padStart(6)}  ${name}`);
    console.log(`${buildLabel(build)}: V8 heap spaces, committed / used MiB`);
    for (const [space, { size, used }] of runs.get(build.name)!.at(-1)!.spaces!) console.log(`  ${space.padEnd(20)} ${size.toFixed(1).padStart(6)} / ${used.toFixed(1)}`);
  }
