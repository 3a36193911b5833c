/**
 * Library throughput on a mixed corpus of all 13 kinds (valid and invalid objects).
 *
 * validate() and the ajv schema pass alone run back to back in every round, in the
 * same process, and the ratio is taken per round: whatever else the shared machine
 * does hits both sides of a ratio alike. Rates count this process's CPU time, not
 * wall time, for the same reason. `npm run bench` pins the run to one core.
 *
 * Each run is a fresh process, and there are several: these machines switch between two
 * speeds about 1.7x apart every few seconds to minutes, within a process as well (the
 * schema pass alone moves with validate(); not the JIT, not address-space layout), so a
 * single run says little. The table shows every run, then their medians.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { validate } from '../src/decode/object.js';
import { checkSchema } from '../src/schema/pass.js';
import { kindValidator } from '../src/schema/validators.js';
import { rulesFor } from '../rules/index.js';
import { corpus } from './corpus.js';
import { cpuMicrosOver, median, warmUp } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 41);
const PASSES_PER_ROUND = Number(process.env.BENCH_PASSES ?? 40);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 6);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** Objects per CPU-second for `passes` runs of fn over the corpus. */
function rate(fn: (o: unknown) => unknown, objects: readonly unknown[], passes: number): number {
  return (passes * objects.length) / (cpuMicrosOver(objects, passes, fn) / 1e6);
}

const schemaOnly = (o: unknown) => {
  const rules = rulesFor((o as { kind: string }).kind)!;
  return checkSchema(rules.schema, o, kindValidator(rules));
};
const full = (o: unknown) => validate(o);

interface RunResult {
  schema: number;
  validate: number;
  ratio: number;
  objects: number;
  kinds: number;
  invalid: number;
}

/** One run, in this process: its medians as a JSON line. */
function measure(): void {
  const objects = corpus();
  const kinds = new Set(objects.map((o) => (o as { kind: string }).kind));
  const invalid = objects.filter((o) => !validate(o).allowed).length;

  // The compiler needs about 2.5 s of CPU for the rule modules and the generated schema code.
  // The warm-up also fills the cron, time-zone and Lua caches.
  warmUp(WARMUP_SECONDS, () => {
    rate(full, objects, PASSES_PER_ROUND);
    rate(schemaOnly, objects, PASSES_PER_ROUND);
  });

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

  const result: RunResult = { schema: median(schemaRates), validate: median(fullRates), ratio: median(ratios), objects: objects.length, kinds: kinds.size, invalid };
  console.log(JSON.stringify(result));
}

/** RUNS fresh processes of this script, one after another (they inherit the pinning), and the table. */
function runAll(): void {
  const runs: RunResult[] = [];
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(9);
  for (let i = 0; i < RUNS; i++) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_ONE_RUN: '1' }, encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`bench run ${i + 1} failed: ${child.stderr}`);
    const run = JSON.parse(child.stdout.trim().split('\n').pop()!) as RunResult;
    if (i === 0) {
      console.log(`corpus: ${run.objects} objects, ${run.kinds} kinds, ${run.invalid} invalid; ${RUNS} runs, each a fresh process: ${WARMUP_SECONDS} s warm-up, then ${ROUNDS} rounds of ${PASSES_PER_ROUND} passes`);
      console.log('run | schema pass alone | validate() | validate() / schema pass   (objects per CPU-second, medians of the rounds)');
    }
    console.log(`${String(i + 1).padStart(3)} |         ${fmt(run.schema)} |  ${fmt(run.validate)} | ${run.ratio.toFixed(2)}x`);
    runs.push(run);
  }
  console.log(`median of the runs: validate() ${fmt(median(runs.map((r) => r.validate))).trim()} objects per CPU-second; ${median(runs.map((r) => r.ratio)).toFixed(2)}x the schema pass alone`);
}

if (process.env.BENCH_ONE_RUN) measure();
else runAll();
