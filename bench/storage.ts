/**
 * Storage benchmark for `fleetgate apiserver`: the durable embedded store (LevelDB, synced group
 * commit) against the memory engine in the same run, on realistic objects (bench/stored-objects.ts).
 *
 * - creates/s: memory vs durable with 64 writers in flight (group commit), and durable one write
 *   at a time (one sync each);
 * - gets/s and lists of 10,000 objects (memory engine), against JSON.parse of the same texts;
 * - watch fan-out: one writer, 100 watchers (memory engine): writes/s and events/s, against the
 *   writer alone, and the memory the watchers add;
 * - RSS with 10,000 and 100,000 stored objects, each engine in its own process;
 * - restart: opening the durable store with 100,000 objects, against a bare LevelDB scan of the
 *   same directory (the least any loader does).
 *
 * Run: `npm run bench:storage` (BENCH_SECONDS sets each timed run, default 3). Absolute figures
 * move with the machine's load; the ratios are what to compare.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClassicLevel } from 'classic-level';
import { openDurableStorage } from '../src/apiserver/storage/durable.js';
import { createMemoryStorage } from '../src/apiserver/storage/memory.js';
import type { Storage } from '../src/apiserver/storage/storage.js';
import { median } from './stats.js';
import { everything, storedObject } from './stored-objects.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const self = fileURLToPath(import.meta.url);
const MiB = 1024 * 1024;

type Prepared = { key: string; object: Record<string, unknown> }[];
const prepare = (count: number, from = 0): Prepared => Array.from({ length: count }, (_, i) => storedObject(from + i));

/** Creates `objects` with `concurrency` writers in flight, for at most `seconds`. */
async function createRate(storage: Storage, objects: Prepared, concurrency: number, seconds: number): Promise<{ count: number; perSecond: number }> {
  let next = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const writer = async () => {
    while (next < objects.length && performance.now() < deadline) {
      const { key, object } = objects[next++]!;
      await storage.create(key, object);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, writer));
  const elapsed = (performance.now() - start) / 1000;
  return { count: next, perSecond: next / elapsed };
}

async function withDirectory<T>(work: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'fleetgate-bench-storage-'));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function creates(): Promise<void> {
  const objects = prepare(60_000);
  const memory = createMemoryStorage();
  const inMemory = await createRate(memory, objects, 64, SECONDS);
  await memory.close();
  const grouped = await withDirectory(async (directory) => {
    const durable = await openDurableStorage({ directory });
    const rate = await createRate(durable, objects, 64, SECONDS);
    const { batches, writes } = durable.commitStats();
    await durable.close();
    return { ...rate, perBatch: writes / batches };
  });
  const single = await withDirectory(async (directory) => {
    const durable = await openDurableStorage({ directory });
    const rate = await createRate(durable, objects, 1, SECONDS);
    await durable.close();
    return rate;
  });
  console.log('\ncreates/s (realistic objects, %d s each)', SECONDS);
  console.log(`  memory engine, 64 in flight:            ${fmt(inMemory.perSecond)} /s  (${inMemory.count} creates)`);
  console.log(`  durable, 64 in flight (group commit):   ${fmt(grouped.perSecond)} /s  (${grouped.count} creates, ${grouped.perBatch.toFixed(1)} writes per synced batch)`);
  console.log(`  durable, one at a time (a sync each):   ${fmt(single.perSecond)} /s  (${single.count} creates, ${(1000 / single.perSecond).toFixed(2)} ms each)`);
  console.log(`  ratio durable grouped / memory:         ${(grouped.perSecond / inMemory.perSecond).toFixed(3)}`);
  console.log(`  ratio durable grouped / one at a time:  ${(grouped.perSecond / single.perSecond).toFixed(1)}`);
}

async function reads(): Promise<void> {
  const count = 10_000;
  const objects = prepare(count);
  const storage = createMemoryStorage();
  await createRate(storage, objects, 64, 600);
  const texts = objects.map(({ object }) => JSON.stringify(object));

  let gets = 0;
  const getStart = performance.now();
  while (performance.now() - getStart < SECONDS * 1000) {
    for (let i = 0; i < 1000; i++) await storage.get(objects[(gets + i * 7919) % count]!.key);
    gets += 1000;
  }
  const getsPerSecond = gets / ((performance.now() - getStart) / 1000);
  let parses = 0;
  const parseStart = performance.now();
  while (performance.now() - parseStart < SECONDS * 1000) {
    for (let i = 0; i < 1000; i++) JSON.parse(texts[(parses + i * 7919) % count]!);
    parses += 1000;
  }
  const parsesPerSecond = parses / ((performance.now() - parseStart) / 1000);

  const listMs: number[] = [];
  const pagedMs: number[] = [];
  const parseAllMs: number[] = [];
  for (let round = 0; round < 5; round++) {
    let start = performance.now();
    const list = await storage.list(everything);
    listMs.push(performance.now() - start);
    if (list.items.length !== count) throw new Error(`listed ${list.items.length} of ${count}`);
    start = performance.now();
    let startKey: string | undefined;
    do {
      const page = await storage.list(everything, { limit: 500, startKey, revision: list.revision });
      startKey = page.continueKey;
    } while (startKey !== undefined);
    pagedMs.push(performance.now() - start);
    start = performance.now();
    for (const text of texts) JSON.parse(text);
    parseAllMs.push(performance.now() - start);
  }
  await storage.close();
  const bytes = texts.reduce((sum, text) => sum + text.length, 0);
  console.log(`\nreads, memory engine, ${count} objects (${(bytes / count / 1024).toFixed(1)} KiB of JSON each)`);
  console.log(`  get:                          ${fmt(getsPerSecond)} /s   (JSON.parse of one object: ${fmt(parsesPerSecond)} /s, ratio ${(getsPerSecond / parsesPerSecond).toFixed(2)})`);
  console.log(`  list of all ${count}:         ${median(listMs).toFixed(1)} ms (JSON.parse of them all: ${median(parseAllMs).toFixed(1)} ms, ratio ${(median(listMs) / median(parseAllMs)).toFixed(2)})`);
  console.log(`  the same in pages of 500:     ${median(pagedMs).toFixed(1)} ms (ratio to one list ${(median(pagedMs) / median(listMs)).toFixed(2)})`);
}

async function fanOut(): Promise<void> {
  const watchers = 100;
  const objects = prepare(1_000);
  let sample = () => {};
  const writeFor = async (storage: Storage, seconds: number) => {
    let writes = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      const { key } = objects[(writes * 7919) % objects.length]!;
      await storage.guaranteedUpdate(key, (current) => ({ ...current, metadata: { ...(current.metadata as object), labels: { tick: String(writes) } } }));
      if (++writes % 10 === 0) sample(); // the watchers run in microtasks between writes: no timer would fire
    }
    return writes / ((performance.now() - start) / 1000);
  };

  const alone = createMemoryStorage();
  await createRate(alone, objects, 64, 600);
  const aloneRate = await writeFor(alone, SECONDS);
  await alone.close();

  const texts = objects.map(({ object }) => JSON.stringify(object));
  let parses = 0;
  const parseStart = performance.now();
  while (performance.now() - parseStart < SECONDS * 1000) {
    for (let i = 0; i < 1000; i++) JSON.parse(texts[(parses + i) % texts.length]!);
    parses += 1000;
  }
  const parsesPerSecond = parses / ((performance.now() - parseStart) / 1000);

  const storage = createMemoryStorage();
  await createRate(storage, objects, 64, 600);
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  sample = () => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  };
  const from = await storage.currentRevision();
  let delivered = 0;
  let ended = 0;
  let outOfOrder = 0;
  const consumers = Array.from({ length: watchers }, async () => {
    const watch = storage.watch(everything, { fromRevision: from });
    let last = from;
    try {
      for await (const event of watch) {
        if (event.revision !== last + 1) outOfOrder++;
        last = event.revision;
        delivered++;
      }
    } catch {
      ended++;
    }
  });
  const start = performance.now();
  const withRate = await writeFor(storage, SECONDS);
  const current = await storage.currentRevision();
  while (delivered < (current - from) * watchers && ended === 0) await new Promise((resolve) => setImmediate(resolve));
  const elapsed = (performance.now() - start) / 1000;
  sample();
  await storage.close();
  await Promise.all(consumers);
  const eventsPerSecond = delivered / elapsed;
  console.log(`\nwatch fan-out, memory engine: one writer (updates, awaited one by one), ${watchers} watchers reading as fast as they can`);
  console.log(`  writes/s alone:               ${fmt(aloneRate)}`);
  console.log(`  writes/s with ${watchers} watchers:     ${fmt(withRate)}  (ratio ${(withRate / aloneRate).toFixed(3)})`);
  console.log(`  events delivered/s:           ${fmt(eventsPerSecond)}  (${delivered} events, all delivered: ${delivered === (current - from) * watchers}, out of order or skipped: ${outOfOrder}, watchers ended: ${ended})`);
  console.log(`  JSON.parse of one object:     ${fmt(parsesPerSecond)} /s; ratio events delivered / parses ${(eventsPerSecond / parsesPerSecond).toFixed(2)} (above 1: watchers share one decode per event)`);
  console.log(`  memory added while watching:  RSS +${((peakRss - before.rss) / MiB).toFixed(1)} MiB, heap +${((peakHeap - before.heapUsed) / MiB).toFixed(1)} MiB (peaks)`);
}

/** Child: fills one engine with `count` objects and prints its RSS before and after. */
async function rssChild(engine: string, count: number, directory?: string): Promise<void> {
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      global.gc?.();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return process.memoryUsage();
  };
  const storage = engine === 'memory' ? createMemoryStorage() : await openDurableStorage({ directory: directory! });
  const empty = await settle();
  // In chunks, each made and let go inside fill(), so no prepared object is alive at the measurement.
  const fill = async (from: number, size: number): Promise<number> => {
    const objects = prepare(size, from);
    await createRate(storage, objects, 256, 3_600);
    return objects.reduce((sum, { object }) => sum + JSON.stringify(object).length, 0);
  };
  let bytes = 0;
  for (let from = 0; from < count; from += 5_000) bytes += await fill(from, Math.min(5_000, count - from));
  const full = await settle();
  await storage.close();
  console.log(JSON.stringify({ empty: empty.rss, full: full.rss, emptyHeap: empty.heapUsed, heap: full.heapUsed, bytes }));
}

/** Child: opens the durable store in `directory` and prints how long that took. */
async function openChild(directory: string): Promise<void> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const storage = await openDurableStorage({ directory });
  const ms = performance.now() - start;
  const { user, system } = process.cpuUsage(cpu);
  const objects = (await storage.list(everything, { limit: 1 })).remainingItemCount;
  global.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  await storage.close();
  console.log(JSON.stringify({ ms, cpuMs: (user + system) / 1000, objects: (objects ?? 0) + 1, rss, heap: heapUsed }));
}

/** Child: the floor for opening: a bare LevelDB open and a read of every key and value. */
async function scanChild(directory: string): Promise<void> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const db = new ClassicLevel<string, string>(directory);
  await db.open();
  let entries = 0;
  for await (const [key, value] of db.iterator()) if (key.length + value.length > 0) entries++;
  const ms = performance.now() - start;
  const { user, system } = process.cpuUsage(cpu);
  await db.close();
  console.log(JSON.stringify({ ms, cpuMs: (user + system) / 1000, entries }));
}

function child(args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ['--expose-gc', self, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    process_.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    process_.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

async function memoryAndRestart(): Promise<void> {
  console.log('\nRSS with stored objects (each engine filled in its own process, after GC)');
  for (const count of [10_000, 100_000]) {
    const memory = await child(['rss', 'memory', String(count)]);
    const directory = await mkdtemp(join(tmpdir(), 'fleetgate-bench-storage-'));
    try {
      const durable = await child(['rss', 'durable', String(count), directory]);
      const per = (figures: { empty: number; full: number }) => (figures.full - figures.empty) / count;
      const perHeap = (figures: { emptyHeap: number; heap: number }) => (figures.heap - figures.emptyHeap) / count;
      const json = memory.bytes / count;
      console.log(`  ${fmt(count)} objects, ${(json / 1024).toFixed(1)} KiB of JSON each (${(memory.bytes / MiB).toFixed(0)} MiB in all):`);
      for (const [name, figures] of [['memory engine', memory], ['durable', durable]] as const) {
        console.log(
          `    ${name.padEnd(14)} RSS ${(figures.full / MiB).toFixed(0)} MiB (${(figures.empty / MiB).toFixed(0)} empty): ` +
            `${(per(figures) / 1024).toFixed(1)} KiB per object, ${(per(figures) / json).toFixed(2)}× its JSON; ` +
            `JS heap ${(perHeap(figures) / 1024).toFixed(1)} KiB per object, ${(perHeap(figures) / json).toFixed(2)}× its JSON`,
        );
      }
      if (count === 100_000) {
        const opens: { ms: number; cpuMs: number; objects: number; rss: number; heap: number }[] = [];
        const scans: { ms: number; cpuMs: number; entries: number }[] = [];
        for (let round = 0; round < 3; round++) {
          opens.push(await child(['open', directory]));
          scans.push(await child(['scan', directory]));
        }
        const openMs = median(opens.map((open) => open.ms));
        const scanMs = median(scans.map((scan) => scan.ms));
        const openCpu = median(opens.map((open) => open.cpuMs));
        const scanCpu = median(scans.map((scan) => scan.cpuMs));
        console.log(`\nrestart with ${fmt(opens[0]!.objects)} objects (durable; ${fmt(scans[0]!.entries)} LevelDB entries: the objects, the kept log, 3 meta keys)`);
        console.log(
          `  open (load objects and log):  ${openMs.toFixed(0)} ms wall, ${openCpu.toFixed(0)} ms CPU, medians of 3 (wall ${opens.map((open) => open.ms.toFixed(0)).join(', ')}); ` +
            `after it RSS ${(median(opens.map((open) => open.rss)) / MiB).toFixed(0)} MiB, JS heap ${(median(opens.map((open) => open.heap)) / MiB).toFixed(0)} MiB ` +
            `(${(durable.full / MiB).toFixed(0)} and ${(durable.heap / MiB).toFixed(0)} MiB when filled)`,
        );
        console.log(`  bare LevelDB open and scan:   ${scanMs.toFixed(0)} ms wall, ${scanCpu.toFixed(0)} ms CPU; ratio open / scan ${(openMs / scanMs).toFixed(2)} wall, ${(openCpu / scanCpu).toFixed(2)} CPU`);
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const [mode, ...args] = process.argv.slice(2);
if (mode === 'rss') await rssChild(args[0]!, Number(args[1]), args[2]);
else if (mode === 'open') await openChild(args[0]!);
else if (mode === 'scan') await scanChild(args[0]!);
else {
  console.log(`storage benchmark: node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at start`);
  if (!mode || mode === 'creates') await creates();
  if (!mode || mode === 'reads') await reads();
  if (!mode || mode === 'fanout') await fanOut();
  if (!mode || mode === 'memory') await memoryAndRestart();
  console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end (2 cores shared with other work)`);
}
