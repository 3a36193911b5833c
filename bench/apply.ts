/**
 * Server-side apply of a 50-field Cluster, as a ratio to a JSON merge patch of the same change.
 *
 * - `apply, unchanged`: the stored manifest applied again (nothing changes, nothing is stored);
 * - `apply, changed`: the manifest with one field changed;
 * - `merge patch`: RFC 7386 of that one-field change onto the stored object, the baseline;
 * - `merge patch + trackUpdate`: the same, with the ownership bookkeeping the server adds to
 *   every non-apply write.
 *
 * All four run back to back in every round, in this process, and ratios are taken per round:
 * whatever else the shared machine does hits both sides of a ratio alike. Times are CPU time.
 * `npm run bench:apply` builds and pins the run to one core.
 */
import { apply, kindInfo, trackUpdate } from '../src/apiserver/apply/index.js';
import { rulesFor } from '../rules/index.js';
import { isRecord } from '../src/util/is.js';
import { cpuMicros, median, warmUp } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 31);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 4);

const kind = kindInfo(rulesFor('Cluster')!, 'karmada.io');
const now = new Date('2026-01-01T00:00:00Z');

/** A Cluster manifest with 50 fields: spec scalars, a list, keyed taints, labels, annotations and proxy headers. */
function manifest(region: string): Record<string, unknown> {
  const labels = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`example.com/label-${i}`, `value-${i}`]));
  const annotations = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`example.com/note-${i}`, `note ${i}`]));
  const proxyHeader = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`X-Header-${i}`, `h${i}`]));
  return {
    apiVersion: kind.apiVersion,
    kind: 'Cluster',
    metadata: { name: 'member-1', labels, annotations },
    spec: {
      syncMode: 'Push',
      apiEndpoint: 'https://member-1.example.com:6443',
      id: 'd4b1f3c2-1111-2222-3333-444455556666',
      provider: 'aws',
      region,
      zone: 'zone-a',
      zones: ['zone-a', 'zone-b'],
      insecureSkipTLSVerification: false,
      proxyURL: 'http://proxy.example.com:3128',
      proxyHeader,
      secretRef: { namespace: 'karmada-cluster', name: 'member-1' },
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'member-1-impersonator' },
      taints: [
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
        { key: 'maintenance', effect: 'NoExecute' },
        { key: 'spot', value: 'true', effect: 'PreferNoSchedule' },
      ],
    },
  };
}

/** Leaf fields of a manifest, to check it has the 50 the bench claims. */
function leaves(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + leaves(x), 0);
  if (isRecord(v)) return Object.values(v).reduce((n: number, x) => n + leaves(x), 0);
  return 1;
}

/** RFC 7386: null deletes, objects merge, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const created = apply({ live: undefined, applied: manifest('eu-west-1'), manager: 'kubectl', force: false, kind, name: 'member-1', now });
if (!created.ok) throw new Error(created.status.message);
const live = { ...created.object, metadata: { ...(created.object.metadata as object), uid: 'u-1', resourceVersion: '41', creationTimestamp: '2026-01-01T00:00:00Z' } };
const unchanged = manifest('eu-west-1');
const changed = manifest('eu-central-1');
const patch = { spec: { region: 'eu-central-1' } };

const cases = {
  'apply, unchanged': () => apply({ live, applied: unchanged, manager: 'kubectl', force: false, kind, name: 'member-1', now }),
  'apply, changed': () => apply({ live, applied: changed, manager: 'kubectl', force: false, kind, name: 'member-1', now }),
  'merge patch': () => mergePatch(live, patch),
  'merge patch + trackUpdate': () => trackUpdate({ live, updated: mergePatch(live, patch) as Record<string, unknown>, manager: 'kubectl-patch', kind, now }),
};

// The cases must do what their names say.
const first = cases['apply, unchanged']();
const second = cases['apply, changed']();
if (!first.ok || first.changed || !second.ok || !second.changed) throw new Error('the apply cases do not do what they claim');
if ((second.object.spec as { region: string }).region !== 'eu-central-1') throw new Error('the changed apply did not change the region');

const microsPerOp = (fn: () => unknown): number => cpuMicros(() => {
  for (let i = 0; i < ITERATIONS; i++) fn();
}) / ITERATIONS;

warmUp(WARMUP_SECONDS, () => {
  for (const fn of Object.values(cases)) microsPerOp(fn);
});

const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const ratios: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  const round: Record<string, number> = {};
  for (const [name, fn] of Object.entries(cases)) round[name] = microsPerOp(fn);
  for (const name of Object.keys(cases)) {
    times[name]!.push(round[name]!);
    ratios[name]!.push(round[name]! / round['merge patch']!);
  }
}

console.log(`Server-side apply of a ${leaves(unchanged)}-field Cluster (${ROUNDS} rounds of ${ITERATIONS}; medians, CPU time)`);
console.log('case                          µs/op     × merge patch');
for (const name of Object.keys(cases)) {
  console.log(`${name.padEnd(28)}${median(times[name]!).toFixed(1).padStart(8)}${median(ratios[name]!).toFixed(1).padStart(14)}`);
}
