/**
 * The etcd backend next to the embedded default (the durable LevelDB store), in one run, on
 * realistic objects (bench/stored-objects.ts), against a real etcd (Debian's etcd-server) started
 * here on loopback ports in a temporary directory:
 *
 * - creates/s with 64 writers in flight and one at a time (each backend's every write is on
 *   disk before it is acknowledged: LevelDB's synced batch, etcd's fsynced raft log);
 * - watch fan-out: 1,000 watchers of one kind, one writer with 16 creates in flight; how long
 *   until every watcher has every event, as creates/s and events delivered/s, against the same
 *   creates with no watcher; and, for etcd, how many watchers etcd itself counts meanwhile.
 *
 * Run: `npm run bench:etcd` (BENCH_SECONDS sets each timed create run, default 3; BENCH_WATCHERS,
 * default 1000; BENCH_FANOUT_WRITES, default 500). Absolute figures move with the machine's load
 * (printed at the start and the end); compare the ratios.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDurableStorage } from '../src/apiserver/storage/durable.js';
import { openEtcdStorage } from '../src/apiserver/storage/etcd-store.js';
import type { Storage } from '../src/apiserver/storage/storage.js';
import { startEtcd, type EtcdServer } from '../test/fixtures/etcd-process.js';
import { storedObject } from './stored-objects.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1_000);
const FANOUT_WRITES = Number(process.env.BENCH_FANOUT_WRITES ?? 500);
const CLUSTERS = '/cluster.karmada.io/clusters/';

type Prepared = { key: string; object: Record<string, unknown> }[];

interface Backend {
  name: string;
  open(): Promise<{ storage: Storage; close(): Promise<void> }>;
}

/** Creates `objects` with `concurrency` writers in flight, for at most `seconds`: how many it created. */
async function createAll(storage: Storage, objects: Prepared, concurrency: number, seconds = Infinity): Promise<number> {
  let next = 0;
  const deadline = performance.now() + seconds * 1000;
  const writer = async () => {
    while (next < objects.length && performance.now() < deadline) {
      const { key, object } = objects[next++]!;
      await storage.create(key, object);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, writer));
  return next;
}

async function createRate(storage: Storage, objects: Prepared, concurrency: number, seconds: number): Promise<number> {
  const start = performance.now();
  const count = await createAll(storage, objects, concurrency, seconds);
  return count / ((performance.now() - start) / 1000);
}

/** `count` Cluster objects (the fan-out's kind), named from `from` on. */
function clusters(count: number, from: number): Prepared {
  const out: Prepared = [];
  for (let index = 0; out.length < count; index++) {
    const prepared = storedObject(index);
    if (!prepared.key.startsWith(CLUSTERS)) continue;
    const name = `bench-${from + out.length}`;
    out.push({ key: `${CLUSTERS}${name}`, object: { ...prepared.object, metadata: { ...(prepared.object.metadata as object), name } } });
  }
  return out;
}

/** Creates `objects` 16 at a time and resolves when `delivered()` says every watcher has them all: seconds taken. */
async function timedWrites(storage: Storage, objects: Prepared, delivered: () => boolean): Promise<number> {
  const start = performance.now();
  await createAll(storage, objects, 16);
  while (!delivered()) await new Promise((resolve) => setImmediate(resolve));
  return (performance.now() - start) / 1000;
}

interface FanOut {
  alone: number;
  watched: number;
  deliveries: number;
  etcdWatchers?: number;
}

async function fanOut(storage: Storage, etcd: EtcdServer | undefined, offset: number): Promise<FanOut> {
  const alone = FANOUT_WRITES / (await timedWrites(storage, clusters(FANOUT_WRITES, offset), () => true));
  const from = await storage.currentRevision();
  const counts = new Array<number>(WATCHERS).fill(0);
  const watches = Array.from({ length: WATCHERS }, () => storage.watch(CLUSTERS, { fromRevision: from }));
  const readers = watches.map(async (watch, index) => {
    for await (const _ of watch) counts[index]!++;
  });
  let etcdWatchers: number | undefined;
  const seconds = await timedWrites(storage, clusters(FANOUT_WRITES, offset + FANOUT_WRITES), () => {
    return counts.every((count) => count >= FANOUT_WRITES);
  });
  if (etcd) etcdWatchers = await etcd.metric('etcd_debugging_mvcc_watcher_total');
  for (const watch of watches) watch.stop();
  await Promise.all(readers);
  return { alone, watched: FANOUT_WRITES / seconds, deliveries: (FANOUT_WRITES * WATCHERS) / seconds, ...(etcdWatchers !== undefined ? { etcdWatchers } : {}) };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

async function main(): Promise<void> {
  console.log(`etcd backend benchmark: load average ${load()} at the start (2 cores)`);
  let etcd: EtcdServer;
  try {
    etcd = await startEtcd();
  } catch (error) {
    console.error(`cannot start etcd: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  const directories: string[] = [];
  let prefixes = 0;
  const backends: Backend[] = [
    {
      name: 'embedded (durable LevelDB)',
      async open() {
        const directory = await mkdtemp(join(tmpdir(), 'fleetgate-bench-etcd-'));
        directories.push(directory);
        const storage = await openDurableStorage({ directory });
        return { storage, close: () => storage.close() };
      },
    },
    {
      name: `etcd 3.4 (${etcd.url})`,
      async open() {
        const storage = await openEtcdStorage({ servers: [etcd.url], prefix: `/bench-${++prefixes}`, compactionIntervalMs: 0, kinds: [CLUSTERS] });
        return { storage, close: () => storage.close() };
      },
    },
  ];

  try {
    const objects = Array.from({ length: 60_000 }, (_, i) => storedObject(i));
    const creates: Record<string, { many: number; one: number }> = {};
    for (const backend of backends) {
      const many = await backend.open();
      const rateMany = await createRate(many.storage, objects, 64, SECONDS);
      await many.close();
      const one = await backend.open();
      const rateOne = await createRate(one.storage, objects, 1, SECONDS);
      await one.close();
      creates[backend.name] = { many: rateMany, one: rateOne };
    }
    const [embedded, onEtcd] = backends.map((backend) => creates[backend.name]!) as [{ many: number; one: number }, { many: number; one: number }];
    console.log(`\ncreates/s (realistic objects, ${SECONDS} s each; every write durable before it is acknowledged)`);
    for (const backend of backends) {
      const rate = creates[backend.name]!;
      console.log(`  ${backend.name.padEnd(34)} 64 in flight: ${fmt(rate.many).padStart(7)} /s   1 at a time: ${fmt(rate.one).padStart(6)} /s`);
    }
    console.log(`  etcd / embedded:                   64 in flight: ${(onEtcd.many / embedded.many).toFixed(2)}×       1 at a time: ${(onEtcd.one / embedded.one).toFixed(2)}×`);

    console.log(`\nwatch fan-out: ${WATCHERS} watchers of one kind, ${FANOUT_WRITES} creates 16 in flight, until every watcher has every event`);
    const fanOuts: FanOut[] = [];
    for (const [index, backend] of backends.entries()) {
      const opened = await backend.open();
      const result = await fanOut(opened.storage, index === 1 ? etcd : undefined, 0);
      await opened.close();
      fanOuts.push(result);
      console.log(
        `  ${backend.name.padEnd(34)} alone: ${fmt(result.alone).padStart(6)} creates/s   watched: ${fmt(result.watched).padStart(6)} creates/s (${(result.watched / result.alone).toFixed(2)}×), ${fmt(result.deliveries).padStart(9)} events delivered/s` +
          (result.etcdWatchers !== undefined ? `; etcd counted ${result.etcdWatchers} watcher(s)` : ''),
      );
    }
    console.log(`  etcd / embedded, watched creates/s: ${(fanOuts[1]!.watched / fanOuts[0]!.watched).toFixed(2)}×`);
  } finally {
    await etcd.close();
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
    console.log(`\nload average ${load()} at the end`);
  }
}

await main();
