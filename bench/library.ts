/**
 * Library throughput on a mixed corpus of all 13 kinds (valid and invalid objects).
 *
 * validate() and the ajv schema pass alone run back to back in every round, in the
 * same process, and the ratio is taken per round: whatever else the shared machine
 * does hits both sides of a ratio alike. Rates count this process's CPU time, not
 * wall time, for the same reason. `npm run bench` pins the run to one core.
 */
import { validate } from '../src/validate.js';
import { checkSchema, kindValidator } from '../src/schema.js';
import { rulesFor } from '../rules/index.js';
import { corpus } from './corpus.js';
import { cpuMicros, median } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 41);
const PASSES_PER_ROUND = Number(process.env.BENCH_PASSES ?? 40);

/** Objects per CPU-second for `passes` runs of fn over the corpus. */
function rate(fn: (o: unknown) => unknown, objects: readonly unknown[], passes: number): number {
  const micros = cpuMicros(() => {
    for (let p = 0; p < passes; p++) for (const o of objects) fn(o);
  });
  return (passes * objects.length) / (micros / 1e6);
}

const schemaOnly = (o: unknown) => {
  const rules = rulesFor((o as { kind: string }).kind)!;
  return checkSchema(rules.schema, o, kindValidator(rules));
};
const full = (o: unknown) => validate(o);

const objects = corpus();
const kinds = new Set(objects.map((o) => (o as { kind: string }).kind));
const invalid = objects.filter((o) => !validate(o).allowed).length;

// Warm-up: JIT, compiled schemas, the cron/time-zone/Lua caches.
rate(full, objects, PASSES_PER_ROUND * 5);
rate(schemaOnly, objects, PASSES_PER_ROUND * 5);

const schemaRates: number[] = [];
const fullRates: number[] = [];
const ratios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const s = rate(schemaOnly, objects, PASSES_PER_ROUND);
  const f = rate(full, objects, PASSES_PER_ROUND);
  schemaRates.push(s);
  fullRates.push(f);
  ratios.push(s / f);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`corpus: ${objects.length} objects, ${kinds.size} kinds, ${invalid} invalid; ${ROUNDS} rounds of ${PASSES_PER_ROUND} passes each`);
console.log(`schema pass only : ${fmt(median(schemaRates))} objects per CPU-second (median)`);
console.log(`validate()       : ${fmt(median(fullRates))} objects per CPU-second (median)`);
console.log(`validate() costs ${median(ratios).toFixed(2)}x the schema pass alone (median of per-round ratios)`);
