/**
 * fleetgate apiserver benchmark, on one core (`npm run bench:apiserver` pins it with taskset):
 *
 * 1. The server's overhead per request, as a ratio to the library's validate() alone on the same
 *    objects, measured in the same run: creates, gets, and lists of 10,000 objects (plain JSON and
 *    the Table kubectl get asks for). Requests go through the Koa app in process (light-my-request:
 *    routing, decoding, admission, storage, encoding; no sockets), on the in-memory store and on
 *    the durable one (whose creates wait for the disk, so they are sent 32 at a time and share
 *    each sync). The harness's own cost is measured too, as a floor: a bare Koa app answering the
 *    same requests.
 * 2. Watch fan-out over HTTP: 100 watchers on loopback sockets (plain JSON, then the Table kubectl
 *    get -w asks for), one writer: creates/s as a ratio to the same writer with no watcher, events
 *    delivered per second and the memory the process holds while they run.
 *
 * RSS with 100,000 objects and restart times are the storage benchmark's (npm run bench:storage).
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import inject from 'light-my-request';
import Koa from 'koa';
import { validate, applyDefaults } from '../src/index.js';
import { createApiServerApp } from '../src/apiserver/app.js';
import { createMemoryStorage } from '../src/apiserver/storage/index.js';
import { openDurableStorage } from '../src/apiserver/storage/index.js';
import type { Storage } from '../src/apiserver/storage/index.js';
import { cluster } from '../test/fixtures/cluster.js';

const COUNT = Number(process.env.BENCH_OBJECTS ?? 10_000);
const LIST_ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 5);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 100);
const WATCH_WRITES = Number(process.env.BENCH_WATCH_WRITES ?? 1_000);
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';

const objects = Array.from({ length: COUNT }, (_, i) => {
  const o = structuredClone(cluster) as Record<string, any>;
  delete o.status;
  o.metadata = { name: `member-${String(i).padStart(5, '0')}`, labels: { ...o.metadata.labels } };
  return o;
});
const bodies = objects.map((o) => JSON.stringify(o));

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The baseline: the library's own work on each object (defaults, then validation), as the server runs it. */
function validateAll(): number {
  const start = process.hrtime.bigint();
  for (const o of objects) {
    const defaulted = applyDefaults(o, { operation: 'CREATE' }).object;
    if (!validate(defaulted).allowed) throw new Error(`${o.metadata.name} is not valid`);
  }
  return seconds(start);
}

async function overhead(name: string, storage: Storage, concurrency: number): Promise<void> {
  const { app } = createApiServerApp({ storage });
  const handler = app.callback();
  const call = (method: string, url: string, payload?: string, accept?: string) =>
    inject(handler, { method: method as 'GET', url, ...(payload ? { payload, headers: { 'content-type': 'application/json' } } : accept ? { headers: { accept } } : {}) });

  validateAll(); // warm the library
  const validateSeconds = validateAll();
  // The floor: a Koa app that answers every request at once, through the same in-process harness.
  const floorApp = new Koa();
  floorApp.use((ctx) => {
    ctx.status = 201;
    ctx.body = '{}';
  });
  const floorHandler = floorApp.callback();
  let start = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i++) await inject(floorHandler, { method: 'POST', url: CLUSTERS, payload: bodies[i]!, headers: { 'content-type': 'application/json' } });
  const floorSeconds = seconds(start);
  start = process.hrtime.bigint();
  for (const o of objects) await inject(floorHandler, { method: 'GET', url: `${CLUSTERS}/${o.metadata.name}` });
  const getFloorSeconds = seconds(start);

  start = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i += concurrency) {
    const batch = bodies.slice(i, i + concurrency).map((b) => call('POST', CLUSTERS, b));
    for (const res of await Promise.all(batch)) if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.payload}`);
  }
  const createSeconds = seconds(start);

  start = process.hrtime.bigint();
  for (const o of objects) {
    const res = await call('GET', `${CLUSTERS}/${o.metadata.name}`);
    if (res.statusCode !== 200) throw new Error(`get: ${res.statusCode}`);
  }
  const getSeconds = seconds(start);

  const list = async (accept?: string) => {
    await call('GET', CLUSTERS, undefined, accept); // warm
    const begin = process.hrtime.bigint();
    for (let r = 0; r < LIST_ROUNDS; r++) {
      const res = await call('GET', CLUSTERS, undefined, accept);
      if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode}`);
    }
    return seconds(begin) / LIST_ROUNDS;
  };
  const listSeconds = await list();
  const tableSeconds = await list('application/json;as=Table;v=v1;g=meta.k8s.io,application/json');

  const perObject = validateSeconds / COUNT;
  console.log(`\n${name} store, ${COUNT.toLocaleString('en-US')} Clusters (creates ${concurrency} at a time):`);
  console.log(`  validate() alone:        ${fmt(COUNT / validateSeconds, 0)} objects/s (${fmt(perObject * 1e6)} µs each)   baseline`);
  console.log(`  harness floor (bare Koa, same requests): POST ${fmt(COUNT / floorSeconds, 0)} /s (${fmt(floorSeconds / validateSeconds, 2)}× validate()), GET ${fmt(COUNT / getFloorSeconds, 0)} /s (${fmt(getFloorSeconds / validateSeconds, 2)}×)`);
  console.log(`  create (POST):           ${fmt(COUNT / createSeconds, 0)} /s   ${fmt(createSeconds / validateSeconds, 2)}× validate(); ${fmt((createSeconds - floorSeconds) / validateSeconds, 2)}× above the floor`);
  console.log(`  get (GET item):          ${fmt(COUNT / getSeconds, 0)} /s   ${fmt(getSeconds / validateSeconds, 2)}× validate(); ${fmt((getSeconds - getFloorSeconds) / validateSeconds, 2)}× above the floor`);
  console.log(`  list of ${COUNT} (JSON):  ${fmt(listSeconds * 1000)} ms   ${fmt(listSeconds / validateSeconds, 2)}× validate() of the same objects`);
  console.log(`  list of ${COUNT} (Table): ${fmt(tableSeconds * 1000)} ms   ${fmt(tableSeconds / validateSeconds, 2)}× validate() of the same objects`);
  await storage.close();
}

/** What one fan-out run measured: creates/s while watched, events/s until every watcher had every event, memory. */
interface FanOutFigures {
  createsPerSecond: number;
  eventsPerSecond: number;
  seconds: number;
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  heapAfter: number;
}

/**
 * WATCH_WRITES creates, one at a time, on a fresh in-memory server with `watchers` watch streams of
 * Clusters open on a loopback socket (asking for `accept`, e.g. kubectl get -w's Table); resolves
 * once every watcher has every event. With no watcher: the writer's own pace, the baseline.
 */
async function fanOut(watchers: number, accept?: string): Promise<FanOutFigures> {
  const storage = createMemoryStorage();
  const api = createApiServerApp({ storage });
  const server = createServer(api.app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  global.gc?.();
  const before = process.memoryUsage();
  let delivered = 0;
  const expected = watchers * WATCH_WRITES;
  let done!: () => void;
  const allDelivered = new Promise<void>((r) => (done = r));
  if (expected === 0) done();
  const streams = Array.from({ length: watchers }, () =>
    request({ host: '127.0.0.1', port, path: `${CLUSTERS}?watch=true&resourceVersion=1`, agent: false, headers: accept ? { accept } : {} }, (res) => {
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          pending = pending.slice(nl + 1);
          if (++delivered === expected) done();
        }
      });
    }).end(),
  );
  while (api.watchCount() < watchers) await new Promise((r) => setTimeout(r, 50));
  const handler = api.app.callback();
  let peakRss = before.rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const start = process.hrtime.bigint();
  for (let i = 0; i < WATCH_WRITES; i++) {
    const payload = JSON.stringify({ ...objects[i % COUNT], metadata: { name: `watched-${i}` } });
    const res = await inject(handler, { method: 'POST', url: CLUSTERS, payload, headers: { 'content-type': 'application/json' } });
    if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode}`);
  }
  const writeSeconds = seconds(start);
  await allDelivered;
  const total = seconds(start);
  clearInterval(sampler);
  const after = process.memoryUsage();
  api.endWatches();
  for (const s of streams) s.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await storage.close();
  return {
    createsPerSecond: WATCH_WRITES / writeSeconds,
    eventsPerSecond: expected / total,
    seconds: total,
    rssBefore: before.rss,
    rssPeak: Math.max(peakRss, after.rss),
    rssAfter: after.rss,
    heapAfter: after.heapUsed,
  };
}

async function fanOuts(): Promise<void> {
  const MiB = 2 ** 20;
  await fanOut(0); // warm the server's code paths
  const alone = await fanOut(0);
  console.log(`\nWatch fan-out over HTTP: ${WATCHERS} watchers of Clusters on loopback sockets, one writer, ${WATCH_WRITES.toLocaleString('en-US')} creates one at a time:`);
  console.log(`  no watcher:          ${fmt(alone.createsPerSecond, 0)} creates/s   baseline`);
  const forms: [string, string | undefined][] = [
    ['JSON watchers', undefined],
    ['Table watchers', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json'],
  ];
  for (const [name, accept] of forms) {
    const run = await fanOut(WATCHERS, accept);
    console.log(
      `  ${(name + ':').padEnd(20)} ${fmt(run.createsPerSecond, 0)} creates/s (${fmt(run.createsPerSecond / alone.createsPerSecond, 3)}× alone); ` +
        `${fmt(run.eventsPerSecond, 0)} events/s delivered (${(WATCHERS * WATCH_WRITES).toLocaleString('en-US')} in ${fmt(run.seconds, 2)} s); ` +
        `RSS ${fmt(run.rssBefore / MiB)} MiB before, peak ${fmt(run.rssPeak / MiB)} MiB, ${fmt(run.rssAfter / MiB)} MiB after; heap used ${fmt(run.heapAfter / MiB)} MiB`,
    );
  }
}

console.log(`fleetgate apiserver benchmark (node ${process.version}; one core when run through npm run bench:apiserver)`);
// `node dist/bench/apiserver.js fanout` (or `overhead`) runs one part.
const only = process.argv[2];
// Fan-out first, so its memory figures start from a fresh process.
if (!only || only === 'fanout') await fanOuts();
if (!only || only === 'overhead') {
  await overhead('In-memory', createMemoryStorage(), 1);
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-bench-apiserver-'));
  try {
    await overhead('Durable (LevelDB, synced group commits)', await openDurableStorage({ directory: join(dir, 'data') }), 32);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
