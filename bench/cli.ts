/**
 * CLI benchmark: `fleetgate validate` over 10,000 manifests of all 13 kinds in one
 * multi-document YAML file (a tenth of them broken), wall time including start-up,
 * and start-up alone (an empty file). Each figure is the median of several runs pinned
 * to one core, next to a bare `node -e ""` start measured in the same run as the
 * baseline. Run: `npm run bench:cli` (Linux, uses taskset when present).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { corpus } from './corpus.js';
import { median } from './stats.js';

const MANIFESTS = Number(process.env.BENCH_MANIFESTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const bin = fileURLToPath(new URL('../src/cli/bin.js', import.meta.url));
const pin = spawnSync('taskset', ['--version']).status === 0 ? ['taskset', '-c', '0'] : [];

const dir = mkdtempSync(join(tmpdir(), 'fleetgate-cli-bench-'));
const all = corpus() as Record<string, any>[];
const valid = all.filter((_, i) => i % 3 === 0);
const broken = all.filter((_, i) => i % 3 !== 0);
const docs: string[] = [];
for (let i = 0; i < MANIFESTS; i++) {
  const o = structuredClone(i % 10 === 9 ? broken[i % broken.length]! : valid[i % valid.length]!);
  // Unique names keep the objects apart; the broken variants stay broken.
  if (typeof o.metadata?.name === 'string' && !o.metadata.name.includes('_')) o.metadata.name = `${o.metadata.name.slice(0, 40)}-${i}`;
  docs.push(stringify(o));
}
const big = join(dir, 'manifests.yaml');
writeFileSync(big, docs.join('---\n'));
const empty = join(dir, 'empty.yaml');
writeFileSync(empty, '');

function wall(args: string[]): number {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const start = process.hrtime.bigint();
    const [cmd, ...rest] = [...pin, ...args];
    spawnSync(cmd!, rest, { stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

const node = wall([process.execPath, '-e', '']);
const startup = wall([process.execPath, bin, 'validate', empty]);
const full = wall([process.execPath, bin, 'validate', '--quiet', big]);
console.log(`${MANIFESTS} manifests (${(docs.join('').length / 1024 / 1024).toFixed(1)} MiB of YAML), median of ${RUNS} runs on one core`);
console.log(`bare node start        : ${node.toFixed(0)} ms`);
console.log(`fleetgate start-up     : ${startup.toFixed(0)} ms (${(startup / node).toFixed(1)}x a bare node start)`);
console.log(`validate ${MANIFESTS} manifests: ${full.toFixed(0)} ms including start-up (${((full - startup) / MANIFESTS * 1000).toFixed(0)} µs per manifest after start-up)`);
