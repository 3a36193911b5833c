/**
 * Is a change to the library faster? validate() (or applyDefaults()) of a baseline build and of
 * this build, in one process, over the library bench's corpus, in rounds that run baseline, this
 * build, this build, baseline (ABBA): whatever else the shared machine does hits both sides of
 * each round alike, and neither side always runs first, so the per-round CPU-time ratio shows
 * differences of a few per cent that separate runs of `npm run bench` cannot.
 *
 *   git worktree add ../baseline <commit> && (cd ../baseline && npm ci && npm run build)
 *   npm run bench:ab -- ../baseline/dist [Kind[,Kind...]]
 *   BENCH_AB_FUNCTION=applyDefaults npm run bench:ab -- ../baseline/dist [Kind[,Kind...]]
 *
 * Kinds narrow the corpus to their objects. Run pinned to one core (the npm script
 * does). Two builds of the same code give a ratio of 1.00 within about ±0.03.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validate } from '../src/decode/object.js';
import { applyDefaults } from '../src/decode/object.js';
import { corpus } from './corpus.js';
import { cpuMicrosOver, quantile, warmUp } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const PASSES_PER_ROUND = Number(process.env.BENCH_PASSES ?? 100);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);

type Measured = (object: unknown) => unknown;

/** The functions one can compare, and where a build has them. */
const FUNCTIONS: Record<string, { module: string; current: Measured }> = {
  validate: { module: 'src/index.js', current: validate },
  applyDefaults: { module: 'src/index.js', current: applyDefaults },
};
const functionName = process.env.BENCH_AB_FUNCTION ?? 'validate';
const measured = FUNCTIONS[functionName];
const [baselineDir, kindList] = process.argv.slice(2);
if (!baselineDir || !measured) {
  console.error(`usage: [BENCH_AB_FUNCTION=${Object.keys(FUNCTIONS).join('|')}] node dist/bench/ab.js BASELINE_DIST_DIR [Kind[,Kind...]]   (see the comment at the top of bench/ab.ts)`);
  process.exit(2);
}
const baselineModule = pathToFileURL(resolve(baselineDir, measured.module)).href;
const baseline = (await import(baselineModule))[functionName] as Measured;
const current = measured.current;

const kinds = kindList?.split(',');
const objects = corpus().filter((o) => kinds === undefined || kinds.includes((o as { kind: string }).kind));
if (objects.length === 0) {
  console.error(`no objects of kind ${kindList} in the corpus`);
  process.exit(2);
}

/** CPU µs of one round: PASSES_PER_ROUND passes of fn over the corpus. */
const round = (fn: Measured): number => cpuMicrosOver(objects, PASSES_PER_ROUND, fn);

// Both sides reach their optimized code before anything is counted; compiling two builds
// takes twice as long, and work still compiling would be charged to whichever side it ran beside.
warmUp(WARMUP_SECONDS, () => {
  round(baseline);
  round(current);
});

// Each round runs both sides twice, in ABBA order (baseline, this build, this build, baseline):
// a side's run pays for garbage the run before it left, and whichever side ran first in every
// round would be charged differently from the other (a build against a copy of itself read
// about 1.01). Within an ABBA round each side has one run after itself and one after the other.
const ratios: number[] = [];
let baselineTotal = 0;
let currentTotal = 0;
for (let r = 0; r < ROUNDS; r++) {
  // The order of the calls is the ABBA order: baseline, this build twice, baseline.
  const firstBaseline = round(baseline);
  const thisBuild = round(current) + round(current);
  const bothBaselines = firstBaseline + round(baseline);
  ratios.push(thisBuild / bothBaselines);
  baselineTotal += bothBaselines;
  currentTotal += thisBuild;
}
const at = (q: number) => quantile(ratios, q).toFixed(3);
const rate = (micros: number) => Math.round((2 * ROUNDS * PASSES_PER_ROUND * objects.length) / (micros / 1e6)).toLocaleString('en-US');

console.log(`${functionName}() over ${objects.length} objects${kindList ? ` of kinds ${kindList}` : ''}; ${ROUNDS} ABBA rounds of ${PASSES_PER_ROUND} passes`);
console.log(`baseline (${baselineDir}): ${rate(baselineTotal)} objects per CPU-second`);
console.log(`this build            : ${rate(currentTotal)} objects per CPU-second`);
console.log(`this build / baseline : ${at(0.5)}x the CPU time (median of per-round ratios; quartiles ${at(0.25)}–${at(0.75)})`);
