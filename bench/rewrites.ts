/**
 * Do the build's rewrites of ajv's generated code pay for themselves? The kinds' validators
 * compiled with every rewrite (REWRITES, what the build ships) and with one left out, run over
 * the library bench's corpus in one process, in alternating rounds, each variant's CPU time
 * given as a ratio to the shipped one's in the same round (the median and quartiles of the
 * per-round ratios). Valid objects and objects with mistakes are measured apart: two of the
 * rewrites are about the error path.
 *
 *   npm run bench:rewrites
 *
 * Run pinned to one core (the npm script does).
 */
import type { ValidateFunction } from 'ajv';
import { REWRITES, countCodePointsOnlyWhenNeeded, errorsOutOfLine, keepFirstErrors, pathsOnlyOnError, standaloneModule, stopLoopsPastTheBound, validatorsFromSource, type Rewrite } from '../src/schema/compiler.js';
import { ruleModules } from '../rules/index.js';
import { corpus } from './corpus.js';
import { cpuMicrosOver, quantile, warmUp } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const PASSES_PER_ROUND = Number(process.env.BENCH_PASSES ?? 200);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);

const schemas = Object.fromEntries(ruleModules.map((r) => [r.kind, r.schema]));

const without = (...left: Rewrite[]): readonly Rewrite[] => REWRITES.filter((r) => !left.includes(r));
// pathsOnlyOnError reads the code errorsOutOfLine leaves, so it goes when that one goes.
const VARIANTS: Record<string, readonly Rewrite[]> = {
  shipped: REWRITES,
  'without countCodePointsOnlyWhenNeeded': without(countCodePointsOnlyWhenNeeded),
  // A bound, not a saving: what its check in every loop costs.
  'without stopLoopsPastTheBound': without(stopLoopsPastTheBound),
  // keepFirstErrors reads the sites of both of these, so it goes with either, and stopLoopsPastTheBound with it.
  'without pathsOnlyOnError': without(pathsOnlyOnError, keepFirstErrors, stopLoopsPastTheBound),
  'without errorsOutOfLine (and pathsOnlyOnError)': without(errorsOutOfLine, pathsOnlyOnError, keepFirstErrors, stopLoopsPastTheBound),
  'ajv as generated': [],
};

const variants = Object.entries(VARIANTS).map(([name, rewrites]) => {
  const code = standaloneModule(schemas, rewrites);
  return { name, bytes: code.length, validators: validatorsFromSource(code) };
});

type Obj = { kind: string };
const objects = corpus() as Obj[];
const shipped = variants[0]!.validators;
const valid = objects.filter((o) => shipped[o.kind]!(o));
const invalid = objects.filter((o) => !shipped[o.kind]!(o));

for (const [what, items] of [
  ['valid objects', valid],
  ['objects with mistakes', invalid],
] as const) {
  const run = (validators: Record<string, ValidateFunction>) => cpuMicrosOver(items, PASSES_PER_ROUND, (o) => validators[o.kind]!(o));
  warmUp(WARMUP_SECONDS, () => variants.forEach((v) => run(v.validators)));
  const ratios = variants.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) {
    // Each round starts with another variant, so none is always run first or last.
    const times = new Array<number>(variants.length);
    for (let k = 0; k < variants.length; k++) {
      const i = (r + k) % variants.length;
      times[i] = run(variants[i]!.validators);
    }
    times.forEach((t, i) => ratios[i]!.push(t / times[0]!));
  }
  console.log(`${what} (${items.length}), ${ROUNDS} rounds of ${PASSES_PER_ROUND} passes: CPU time / the shipped validators' (median; quartiles)`);
  variants.forEach((v, i) => {
    const at = (q: number) => quantile(ratios[i]!, q).toFixed(2);
    console.log(`  ${v.name.padEnd(48)} ${at(0.5)}x (${at(0.25)}–${at(0.75)}), ${Math.round(v.bytes / 1024)} KiB of code`);
  });
}
