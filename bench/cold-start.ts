/**
 * What a cold process costs its first reviews, and what warming it first would save. Each sample
 * is a fresh Node process (V8 starts with no compiled code) that parses and reviews the soak's
 * request mix (every kind, valid and broken, created and updated, validated and mutated): `cold`
 * at once, `mix` after reviewing every request of the mix three times over (what a warm-up over
 * realistic objects could reach, at best). The CPU time of its first reviews, block by block, is
 * what a server on its own core would spend answering them, and what a steady load would queue
 * behind. The two kinds of samples alternate, so a busy machine weighs on both alike. The
 * webhook's own HTTP path (TLS, Koa) is cold too, and not measured here.
 *
 *   npm run bench:cold-start [-- --samples 5 --reviews 4000]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { numberFlags } from './reliability/args.js';

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
else parent();
