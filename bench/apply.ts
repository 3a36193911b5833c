/**
 * Server-side apply of a 50-field Cluster, as a ratio to a JSON merge patch of the same change,
 * measured twice:
 *
 * 1. The apply module alone:
 *    - `apply, unchanged`: the stored manifest applied again (nothing changes, nothing is stored);
 *    - `apply, changed`: the manifest with one field changed;
 *    - `merge patch`: RFC 7386 of that one-field change onto the stored object, the baseline;
 *    - `merge patch + trackUpdate`: the same, with the ownership bookkeeping the server adds to
 *      every non-apply write.
 * 2. Through the API server (its Koa app in process, in-memory store): whole PATCH requests,
 *    decoding, admission, storage and the answer included, which is what a client waits for:
 *    - `apply, unchanged`: the same manifest again (admission runs, nothing is stored);
 *    - `apply, changed`: the manifest with the region flipped between two values, so each
 *      request is a real change, stored;
 *    - `merge patch`: `{"spec":{"region": …}}`, the same change, the baseline.
 *
 * The cases of a part run back to back in every round, in this process, and ratios are taken per
 * round: whatever else the shared machine does hits both sides of a ratio alike. Times are CPU
 * time. `npm run bench:apply` builds and pins the run to one core.
 */
import inject from 'light-my-request';
import { apply, kindInfo, trackUpdate } from '../src/apiserver/apply/index.js';
import { createApiServerApp } from '../src/apiserver/app.js';
import { createMemoryStorage } from '../src/apiserver/storage/index.js';
import { rulesFor } from '../rules/index.js';
import { isRecord } from '../src/util/is.js';
import { cpuMicros, median, warmUp } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 31);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 4);

const kind = kindInfo(rulesFor('Cluster')!, 'karmada.io');
const now = new Date('2026-01-01T00:00:00Z');

/** A valid Cluster manifest with 50 fields: spec scalars, a list, keyed taints, labels, annotations and proxy headers. */
function manifest(region: string): Record<string, unknown> {
  const labels = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`example.com/label-${i}`, `value-${i}`]));
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

console.log(`Server-side apply of a ${leaves(unchanged)}-field Cluster (node ${process.version}; medians, CPU time)`);
console.log(`\n1. The apply module alone (${ROUNDS} rounds of ${ITERATIONS}):`);
console.log('case                          µs/op     × merge patch');
for (const name of Object.keys(cases)) {
  console.log(`${name.padEnd(28)}${median(times[name]!).toFixed(1).padStart(8)}${median(ratios[name]!).toFixed(1).padStart(14)}`);
}

await throughTheServer();

/** Part 2: whole PATCH requests through the API server's app, each case's ratio to the merge patch's. */
async function throughTheServer(): Promise<void> {
  const storage = createMemoryStorage();
  const handler = createApiServerApp({ storage }).app.callback();
  const collection = '/apis/cluster.karmada.io/v1alpha1/clusters';
  const APPLY = 'application/apply-patch+yaml';
  const MERGE = 'application/merge-patch+json';
  const send = async (name: string, query: string, type: string, body: unknown, expected: number): Promise<string> => {
    const res = await inject(handler, { method: 'PATCH', url: `${collection}/${name}?${query}`, headers: { 'content-type': type }, payload: JSON.stringify(body) });
    if (res.statusCode !== expected) throw new Error(`${type}: ${res.statusCode} ${res.payload.slice(0, 300)}`);
    return (JSON.parse(res.payload) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  };
  const applied = (name: string, region: string) => ({ ...manifest(region), metadata: { ...(manifest(region).metadata as object), name } });
  const regions = ['eu-west-1', 'eu-central-1'];
  const query = 'fieldManager=kubectl&fieldValidation=Strict';
  // The applies go to one object, the merge patches to a twin, so neither's writes conflict with the other's.
  await send('member-1', query, APPLY, applied('member-1', regions[0]!), 201);
  await send('member-2', query, APPLY, applied('member-2', regions[0]!), 201);
  let applyFlip = 0;
  let mergeFlip = 0;
  const serverCases: Record<string, () => Promise<unknown>> = {
    'apply, unchanged': async () => {
      const before = await send('member-1', query, APPLY, applied('member-1', regions[applyFlip % 2]!), 200);
      const after = await send('member-1', query, APPLY, applied('member-1', regions[applyFlip % 2]!), 200);
      if (before !== after) throw new Error('the unchanged apply wrote');
    },
    'apply, changed': () => send('member-1', query, APPLY, applied('member-1', regions[++applyFlip % 2]!), 200),
    'merge patch': () => send('member-2', 'fieldManager=kubectl-patch&fieldValidation=Strict', MERGE, { spec: { region: regions[++mergeFlip % 2] } }, 200),
  };
  // Each unchanged case sends two requests (to check it wrote nothing): count them both.
  const requestsPerCall: Record<string, number> = { 'apply, unchanged': 2, 'apply, changed': 1, 'merge patch': 1 };
  const microsPerRequest = async (name: string): Promise<number> => {
    const start = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) await serverCases[name]!();
    const { user, system } = process.cpuUsage(start);
    return (user + system) / (REQUESTS * requestsPerCall[name]!);
  };
  const until = performance.now() + WARMUP_SECONDS * 1000;
  while (performance.now() < until) for (const name of Object.keys(serverCases)) await microsPerRequest(name);
  const serverTimes: Record<string, number[]> = Object.fromEntries(Object.keys(serverCases).map((k) => [k, []]));
  const serverRatios: Record<string, number[]> = Object.fromEntries(Object.keys(serverCases).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const round: Record<string, number> = {};
    for (const name of Object.keys(serverCases)) round[name] = await microsPerRequest(name);
    for (const name of Object.keys(serverCases)) {
      serverTimes[name]!.push(round[name]!);
      serverRatios[name]!.push(round[name]! / round['merge patch']!);
    }
  }
  console.log(`\n2. Through the API server, whole PATCH requests (in-memory store; ${ROUNDS} rounds of ${REQUESTS} requests a case):`);
  console.log('case                          µs/request  × merge patch');
  for (const name of Object.keys(serverCases)) {
    console.log(`${name.padEnd(28)}${median(serverTimes[name]!).toFixed(0).padStart(10)}${median(serverRatios[name]!).toFixed(2).padStart(14)}`);
  }
  await storage.close();
}
