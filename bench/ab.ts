/**
 * Is a change to the library faster? validate() of a baseline build and of this build, in
 * one process, over the library bench's corpus, in alternating rounds: whatever else the
 * shared machine does hits both sides of each round alike, so the per-round CPU-time ratio
 * shows differences of a few per cent that separate runs of `npm run bench` cannot.
 *
 *   git worktree add ../baseline <commit> && (cd ../baseline && npm ci && npm run build)
 *   npm run bench:ab -- ../baseline/dist [Kind]
 *
 * A Kind narrows the corpus to that kind's objects. Run pinned to one core (the npm script
 * does). Two builds of the same code give a ratio of 1.00 within about ±0.03.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validate } from '../src/validate.js';
import { corpus } from './corpus.js';
import { cpuMicrosOver, quantile, warmUp } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const PASSES_PER_ROUND = Number(process.env.BENCH_PASSES ?? 100);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);

type Validate = (object: unknown) => unknown;

const [baselineDir, kind] = process.argv.slice(2);
if (!baselineDir) {
  console.error('usage: node dist/bench/ab.js BASELINE_DIST_DIR [Kind]   (see the comment at the top of bench/ab.ts)');
  process.exit(2);
}
const baselineModule = pathToFileURL(resolve(baselineDir, 'src/validate.js')).href;
const baseline = (await import(baselineModule)).validate as Validate;

const objects = corpus().filter((o) => kind === undefined || (o as { kind: string }).kind === kind);
if (objects.length === 0) {
  console.error(`no objects of kind ${kind} in the corpus`);
  process.exit(2);
}

/** CPU µs of one round: PASSES_PER_ROUND passes of fn over the corpus. */
const round = (fn: Validate): number => cpuMicrosOver(objects, PASSES_PER_ROUND, fn);

// Both sides reach their optimized code before anything is counted; compiling two builds
// takes twice as long, and work still compiling would be charged to whichever side it ran beside.
warmUp(WARMUP_SECONDS, () => {
  round(baseline);
  round(validate);
});

const ratios: number[] = [];
let baselineTotal = 0;
let currentTotal = 0;
for (let r = 0; r < ROUNDS; r++) {
  const before = round(baseline);
  const after = round(validate);
  ratios.push(after / before);
  baselineTotal += before;
  currentTotal += after;
}
const at = (q: number) => quantile(ratios, q).toFixed(3);
const rate = (micros: number) => Math.round((ROUNDS * PASSES_PER_ROUND * objects.length) / (micros / 1e6)).toLocaleString('en-US');

console.log(`corpus: ${objects.length} objects${kind ? ` of kind ${kind}` : ''}; ${ROUNDS} alternating rounds of ${PASSES_PER_ROUND} passes`);
console.log(`baseline (${baselineDir}): ${rate(baselineTotal)} objects per CPU-second`);
console.log(`this build            : ${rate(currentTotal)} objects per CPU-second`);
console.log(`this build / baseline : ${at(0.5)}x the CPU time (median of per-round ratios; quartiles ${at(0.25)}–${at(0.75)})`);
