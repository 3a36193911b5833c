/**
 * What the first requests after readiness cost a fresh `fleetgate serve`, against the same run's
 * steady state, for two or more builds (or flag sets) in one run. Each sample is a fresh server
 * (on core 0, the load on core 1), taken once /readyz answers 200; the soak's request mix is then
 * sent over `--connections` new keep-alive HTTPS connections (32 by default, as an API server
 * spreading load opens them; their handshakes fall in the first block, as they do for a new pod)
 * at the server's default log level, info (every denial is logged, as in production), and the
 * server's CPU time (from /proc) is read after each block of 500. The steady state is the median
 * of the run's last third of blocks (by then no block falls any more); each early block is given
 * as a ratio to it, per sample, then the median over samples. Builds alternate sample by sample, so
 * a busy machine weighs on all alike.
 *
 *   npm run bench:warm-up-ab -- --build base=/tmp/base --build this=. [--build 'cold=.,--warm-up=false']
 *                               [--samples 5 --blocks 30 --connections 32 --idle-ms 0]
 *
 * `--idle-ms`: how long the ready server sits idle before the load starts (a pod that got no
 * request for a while: the idle collection runs after 5 s).
 *
 * A build is `name=dir[,flag...]` (bench/builds.ts): `dir` holds a built checkout (`npm run build`:
 * dir/dist/src/cli/bin.js), the flags are added to `fleetgate serve`'s, except `--node=FLAG`, given to
 * Node itself (`--node=--max-semi-space-size=4`), and `--env=NAME=VALUE`, set in its environment.
 */
import { parseArgs } from 'node:util';
import { alternating, buildLabel, parseBuilds, type Build } from './builds.js';
import { certDir } from './reliability/certs.js';
import { keepAliveAgent, send } from './reliability/client.js';
import { cpuSeconds, pinSelf } from './reliability/process-stats.js';
import { Mix } from './reliability/review-mix.js';
import { startWebhook } from './reliability/server-process.js';
import { median } from './stats.js';

const BLOCK = 500;
/** Early blocks shown one by one. */
const SHOWN = 4;

interface Sample {
  /** Wall ms from the start of the process to /readyz 200. */
  readyMs: number;
  /** Server CPU ms from exec to ready. */
  readyCpuMs: number;
  /** Server CPU ms of each block, in order. */
  blocks: number[];
}

async function sample(build: Build, blocks: number, connections: number, idleMs: number, certs: ReturnType<typeof certDir>, mix: Mix): Promise<Sample> {
  const started = performance.now();
  const server = await startWebhook({ bin: build.bin, certDir: certs.dir, ca: certs.ca, cpu: 0, logLevel: 'info', waitFor: 'ready', extraArgs: build.flags, nodeArgs: build.nodeArgs, env: build.env });
  const readyMs = performance.now() - started;
  try {
    if (idleMs > 0) await new Promise((done) => setTimeout(done, idleMs));
    const target = { host: '127.0.0.1', port: server.ready.port, ca: certs.ca };
    const agent = keepAliveAgent(target, connections);
    const readyCpuMs = cpuSeconds(server.pid) * 1000;
    const out: number[] = [];
    let i = 0;
    for (let b = 0; b < blocks; b++) {
      const start = cpuSeconds(server.pid);
      const end = (b + 1) * BLOCK;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (i < end) {
            const n = i++;
            const request = mix.at(n);
            const outcome = await send(target, { path: request.path, headers: { 'content-type': 'application/json' }, body: Buffer.from(mix.bodyOf(request, `ab-${n}`)), deadlineMs: 10_000, agent });
            if (outcome.status !== 200) throw new Error(`${build.name}: request ${n} answered ${outcome.status} ${outcome.error ?? ''}`);
          }
        }),
      );
      out.push((cpuSeconds(server.pid) - start) * 1000);
    }
    agent.destroy();
    return { readyMs, readyCpuMs, blocks: out };
  } finally {
    await server.stop();
  }
}

const { values } = parseArgs({
  options: { build: { type: 'string', multiple: true }, samples: { type: 'string' }, blocks: { type: 'string' }, connections: { type: 'string' }, 'idle-ms': { type: 'string' } },
  strict: true,
});
const all = parseBuilds(values.build ?? []);
if (all.length === 0) throw new Error('give at least one --build name=dir');
const samples = Number(values.samples ?? 5);
const blocks = Number(values.blocks ?? 30);
const connections = Number(values.connections ?? 32);
const idleMs = Number(values['idle-ms'] ?? 0);
if (!(blocks >= 6)) throw new Error('--blocks must be at least 6: the steady state is the last third');

// The servers run on core 0 (where npm run pinned this process); the load moves to core 1.
pinSelf(1);
const certs = certDir();
const mix = new Mix();
const runs = await alternating(all, samples, (build) => sample(build, blocks, connections, idleMs, certs, mix));

const steadyOf = (r: Sample) => median(r.blocks.slice(Math.floor((blocks * 2) / 3)));
console.log(
  `warm-up-ab: ${samples} fresh fleetgate serve processes per build (server on core 0, load on core 1), alternating; ${blocks} blocks of ${BLOCK} requests of the soak's mix over ${connections} new keep-alive HTTPS connections once /readyz answers 200${idleMs ? ` and then ${idleMs} ms idle` : ''}, log level info. ` +
    `Early blocks as the median over samples of (block CPU / that sample's steady CPU, the median of its last ${blocks - Math.floor((blocks * 2) / 3)} blocks).`,
);
const head = ['build', ...Array.from({ length: SHOWN }, (_, b) => `block ${b + 1}`), 'blocks 1-3', 'steady ms', 'ready ms', 'CPU to ready ms'];
console.log(`  ${head.join(' | ')}`);
for (const build of all) {
  const rs = runs.get(build.name)!;
  const ratio = (b: number) => median(rs.map((r) => r.blocks[b]! / steadyOf(r))).toFixed(2);
  const firstThree = median(rs.map((r) => (r.blocks[0]! + r.blocks[1]! + r.blocks[2]!) / 3 / steadyOf(r))).toFixed(2);
  const row = [
    buildLabel(build),
    ...Array.from({ length: SHOWN }, (_, b) => `${ratio(b)}x`),
    `${firstThree}x`,
    median(rs.map(steadyOf)).toFixed(0),
    median(rs.map((r) => r.readyMs)).toFixed(0),
    median(rs.map((r) => r.readyCpuMs)).toFixed(0),
  ];
  console.log(`  ${row.join(' | ')}`);
}
