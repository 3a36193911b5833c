/**
 * What a cold process costs its first reviews, and what warming it first would save. Each sample
 * is a fresh Node process (V8 starts with no compiled code) that parses and reviews the soak's
 * request mix (every kind, valid and broken, created and updated, validated and mutated): `cold`
 * at once, `mix` after reviewing every request of the mix three times over (what a warm-up over
 * realistic objects could reach, at best). The CPU time of its first reviews, block by block, is
 * what a server on its own core would spend answering them, and what a steady load would queue
 * behind. The two kinds of samples alternate, so a busy machine weighs on both alike.
 *
 * `--served`: the same over the webhook's whole path. Each sample is a fresh `fleetgate serve`
 * process, `--warm-up=false` (cold) or with its default warm-up, taken once /readyz answers 200;
 * the mix is then sent over 4 keep-alive HTTPS connections, and the server's own CPU time (from
 * /proc) is read after each block: what the first requests of a rollout's new pod cost it.
 *
 *   npm run bench:cold-start [-- --samples 5 --reviews 4000]
 *   npm run bench:cold-start -- --served [--samples 5 --reviews 2000]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { numberFlags } from './reliability/args.js';
import { certDir } from './reliability/certs.js';
import { keepAliveAgent, send } from './reliability/client.js';
import { cpuSeconds, pinSelf } from './reliability/process-stats.js';
import { Mix } from './reliability/review-mix.js';
import { startWebhook } from './reliability/server-process.js';

const BLOCK = 500;

interface Sample {
  warmUpMs: number;
  /** CPU ms of each block of BLOCK reviews, in order. */
  blocks: number[];
}

type Mode = 'cold' | 'mix';

async function child(mode: Mode, reviews: number): Promise<void> {
  const { examples } = await import('../test/fixtures/index.js');
  const { corpus } = await import('./corpus.js');
  const { kindsFor } = await import('../rules/index.js');
  const { review } = await import('../src/admission/review.js');
  // The soak's mix (bench/reliability/review-mix.ts) as request texts, built without reviewing them.
  const kinds = kindsFor();
  const texts: { text: string; mode: 'validate' | 'mutate'; kind: string }[] = [];
  for (const object of corpus() as Record<string, unknown>[]) {
    const info = kinds.find((k) => k.kind === object.kind)!;
    const stored = examples.find((e) => e.kind === info.kind)!;
    for (const operation of ['CREATE', 'UPDATE'] as const)
      for (const mode of ['validate', 'mutate'] as const) {
        const request = { uid: 'u', kind: { group: info.group, version: info.version, kind: info.kind }, operation, object, ...(operation === 'UPDATE' ? { oldObject: stored } : {}) };
        texts.push({ text: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }), mode, kind: info.kind });
      }
  }
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const before = cpuMs();
  // What a warm-up over realistic objects could reach at best: every request of the mix reviewed three times first.
  if (mode === 'mix') for (let r = 0; r < 3; r++) for (const t of texts) review(JSON.parse(t.text), { mode: t.mode, kind: t.kind });
  const warmUpMs = cpuMs() - before;
  const blocks: number[] = [];
  for (let b = 0; b < reviews / BLOCK; b++) {
    const start = cpuMs();
    for (let i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
      const t = texts[(Math.imul(i + 1, 0x9e3779b1) >>> 0) % texts.length]!;
      review(JSON.parse(t.text), { mode: t.mode, kind: t.kind });
    }
    blocks.push(cpuMs() - start);
  }
  process.stdout.write(JSON.stringify({ warmUpMs, blocks } satisfies Sample));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type ServedMode = 'cold' | 'warmed';

/** One fresh `fleetgate serve`, ready: the server CPU ms of each block of the mix sent to it, and what its start cost. */
async function servedSample(mode: ServedMode, reviews: number, certs: ReturnType<typeof certDir>, mix: Mix): Promise<Sample> {
  const server = await startWebhook({ certDir: certs.dir, ca: certs.ca, cpu: 0, logLevel: 'warn', waitFor: 'ready', extraArgs: mode === 'cold' ? ['--warm-up=false'] : [] });
  try {
    const target = { host: '127.0.0.1', port: server.ready.port, ca: certs.ca };
    const agent = keepAliveAgent(target, 4);
    const warmUpMs = cpuSeconds(server.pid) * 1000;
    const blocks: number[] = [];
    let i = 0;
    for (let b = 0; b < reviews / BLOCK; b++) {
      const start = cpuSeconds(server.pid);
      const end = (b + 1) * BLOCK;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (i < end) {
            const n = i++;
            const request = mix.at(n);
            const outcome = await send(target, { path: request.path, headers: { 'content-type': 'application/json' }, body: Buffer.from(mix.bodyOf(request, `cold-${n}`)), deadlineMs: 10_000, agent });
            if (outcome.status !== 200) throw new Error(`request ${n} answered ${outcome.status} ${outcome.error ?? ''}`);
          }
        }),
      );
      blocks.push((cpuSeconds(server.pid) - start) * 1000);
    }
    agent.destroy();
    return { warmUpMs, blocks };
  } finally {
    await server.stop();
  }
}

async function served(): Promise<void> {
  const { numbers } = numberFlags({ samples: 5, reviews: 2000 }, { served: 'boolean' });
  // The servers run on core 0 (where npm run pinned this process); the load moves to core 1.
  pinSelf(1);
  const certs = certDir();
  const mix = new Mix();
  const runs: Record<ServedMode, Sample[]> = { cold: [], warmed: [] };
  for (let s = 0; s < numbers.samples; s++) for (const mode of ['cold', 'warmed'] as const) runs[mode].push(await servedSample(mode, numbers.reviews, certs, mix));
  console.log(`cold-start --served: ${numbers.samples} fresh fleetgate serve processes each way (on core 0, the load on core 1), alternating; median server CPU ms of each block of ${BLOCK} requests of the soak's mix over 4 keep-alive HTTPS connections, once /readyz answers 200`);
  console.log(`  requests    | --warm-up=false ms | warmed up ms`);
  for (let b = 0; b < numbers.reviews / BLOCK; b++) {
    const at = (mode: ServedMode) => median(runs[mode].map((r) => r.blocks[b]!)).toFixed(0);
    console.log(`  ${String(b * BLOCK + 1).padStart(5)}-${String((b + 1) * BLOCK).padEnd(5)} | ${at('cold').padStart(18)} | ${at('warmed').padStart(12)}`);
  }
  const first = (r: Sample) => r.blocks[0]!;
  const last = (r: Sample) => r.blocks.at(-1)!;
  const c = median(runs.cold.map(first));
  const w = median(runs.warmed.map(first));
  const steady = median(runs.cold.map(last));
  console.log(`  first ${BLOCK}: cold ${c.toFixed(0)} ms, warmed ${w.toFixed(0)} ms (${(c / w).toFixed(2)}x); the cold server's last block ${steady.toFixed(0)} ms (warmed first block ${(w / steady).toFixed(2)}x the steady state)`);
  console.log(`  server CPU from exec to ready: cold ${median(runs.cold.map((r) => r.warmUpMs)).toFixed(0)} ms, warmed ${median(runs.warmed.map((r) => r.warmUpMs)).toFixed(0)} ms`);
}

function parent(): void {
  const { numbers } = numberFlags({ samples: 5, reviews: 4000 });
  const self = fileURLToPath(import.meta.url);
  const runs: Record<Mode, Sample[]> = { cold: [], mix: [] };
  for (let s = 0; s < numbers.samples; s++)
    for (const mode of ['cold', 'mix'] as const) {
      const out = spawnSync(process.execPath, [self, 'child', mode, String(numbers.reviews)], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`the ${mode} sample failed: ${out.stderr}`);
      runs[mode].push(JSON.parse(out.stdout) as Sample);
    }
  const blocks = numbers.reviews / BLOCK;
  console.log(`cold-start: ${numbers.samples} fresh processes each way, alternating; median CPU ms of each block of ${BLOCK} reviews of the soak's mix (parse + review)`);
  console.log(`  reviews     | cold ms | after the mix itself x3 ms`);
  for (let b = 0; b < blocks; b++) {
    const at = (mode: Mode) => median(runs[mode].map((r) => r.blocks[b]!)).toFixed(1);
    console.log(`  ${String(b * BLOCK + 1).padStart(5)}-${String((b + 1) * BLOCK).padEnd(5)} | ${at('cold').padStart(7)} | ${at('mix').padStart(26)}`);
  }
  const first = (r: Sample) => r.blocks.slice(0, 2).reduce((a, b) => a + b, 0);
  const last = (r: Sample) => r.blocks.at(-1)!;
  for (const mode of ['cold', 'mix'] as const) {
    console.log(`  ${mode}: first ${2 * BLOCK} reviews ${median(runs[mode].map(first)).toFixed(1)} ms, last block ${median(runs[mode].map(last)).toFixed(1)} ms; reviews before it took ${median(runs[mode].map((r) => r.warmUpMs)).toFixed(1)} ms`);
  }
}

if (process.argv[2] === 'child') await child(process.argv[3] as Mode, Number(process.argv[4]));
else if (process.argv.includes('--served')) await served();
else parent();
