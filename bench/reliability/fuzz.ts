/**
 * Harness 1, input fuzzing: `npm run reliability:fuzz [-- --seed N --inputs N --webhook-inputs N]`.
 *
 * The library: `--inputs` (100,000) inputs through validate(), applyDefaults() and review(), split
 * over `--workers` worker threads (one per core), each watched for an input it never finishes.
 * The webhook: `--webhook-inputs` (25,000) generated requests against `fleetgate serve` in a
 * child process (HTTPS, development certificates in a temporary folder), `--stalls` uploads that
 * stall on purpose among them. Memory is read before (after a warm-up and a pause) and after
 * (after the same pause). Prints the seed first: `--seed N` runs the same inputs again, and
 * `--index I` runs input I alone and prints its recipe. Exits 1 when a goal is missed.
 */
import { Worker } from 'node:worker_threads';
import { freshSeed, numberFlags, sleep } from './args.js';
import { Goals } from './goals.js';
import { libraryInputs, MAX_TEXT, mergeLibraryFigures, emptyLibraryFigures, type LibraryFigures, type Failure } from './library-fuzz.js';
import type { LibraryWorkerData } from './library-worker.js';
import { heapFromMetrics, mallocMainArenaMiB, rssMiB } from './process-stats.js';
import { collectGarbageThrough, INSPECTOR_ARG, inspectorUrlIn } from './inspector.js';
import { startWebhook } from './server-process.js';
import { fuzzWebhook, oversized, webhookInputs, type WebhookFigures } from './webhook-fuzz.js';
import { send } from './client.js';
import { describeRecipe } from './recipes.js';

const { numbers: o, strings } = numberFlags(
  {
    seed: freshSeed(),
    inputs: 100_000,
    'webhook-inputs': 25_000,
    workers: 2,
    concurrency: 16,
    'deadline-ms': 5_000,
    'webhook-deadline-ms': 10_000,
    stalls: 10,
    'settle-ms': 12_000,
    /** Inputs per worker (requests, for the webhook) before memory is first read: JIT code, caches and heap reach their working size. */
    'warm-up': 5_000,
    'webhook-warm-up': 10_000,
    index: -1,
  },
  { only: 'string' },
);
const only = strings.only as 'library' | 'webhook' | undefined;
if (only !== undefined && only !== 'library' && only !== 'webhook') throw new Error('--only must be library or webhook');

/** A worker that has not moved on from one input for this long is stuck: the input is a hang. */
const STUCK_MS = Math.max(60_000, o['deadline-ms'] * 4);

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
const mib = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(1));

interface LibraryRun {
  figures: LibraryFigures;
  rssBefore: number;
  rssAfter: number;
  heapBefore: number;
  heapAfter: number;
  seconds: number;
}

/** A worker running library-worker.ts: `warm` gives its heap once it has warmed up; after `go`, `finished` its figures and heap. */
interface LibraryWorker {
  worker: Worker;
  warm: Promise<number>;
  finished: Promise<{ figures?: LibraryFigures; heapMiB: number }>;
}

/** Starts a library worker (library-worker.ts' protocol); `warm` and `finished` reject if it fails. */
function startLibraryWorker(data: LibraryWorkerData): LibraryWorker {
  const worker = new Worker(new URL('./library-worker.js', import.meta.url), { workerData: data });
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  const next = <T>(type: string) => Promise.race([new Promise<T>((resolve) => worker.on('message', (message: T & { type: string }) => message.type === type && resolve(message))), failed]);
  const warm = next<{ heapMiB: number }>('warm').then((message) => message.heapMiB);
  const finished = next<{ figures?: LibraryFigures; heapMiB: number }>('done');
  // A failure is seen where its caller awaits; these handlers only keep it from counting as unhandled where it does not.
  for (const promise of [failed, warm, finished]) promise.catch(() => undefined);
  return { worker, warm, finished };
}

async function libraryPhase(): Promise<LibraryRun> {
  const began = performance.now();
  const workers = Math.max(1, o.workers);
  const cursor = new SharedArrayBuffer(4 * workers);
  const cursors = new Int32Array(cursor);
  let figures = emptyLibraryFigures();
  const heaps = { before: 0, after: 0 };
  let rssBefore = Number.NaN;
  const shardEnds: number[] = [];

  /** Starts a worker for [from, to); resolves once it is warm. */
  const launch = (slot: number, from: number, to: number, warmUp: number) => {
    Atomics.store(cursors, slot, from);
    const { worker, warm, finished } = startLibraryWorker({ seed: o.seed, from, to, deadlineMs: o['deadline-ms'], warmUp, cursor, slot, settleMs: warmUp ? o['settle-ms'] : 0 });
    const figures = finished.then(
      (done): LibraryFigures | undefined => {
        heaps.after += done.heapMiB;
        return done.figures;
      },
      (err: Error): LibraryFigures => {
        // An exception that escaped the fuzzer itself: a crash of the worker, counted as one.
        const index = Atomics.load(cursors, slot);
        const crash: Failure = { index, what: 'worker crashed', message: err.message, recipe: describeRecipe(libraryInputs(o.seed).at(index)) };
        return { ...emptyLibraryFigures(), exceptions: 1, failures: [crash] };
      },
    );
    return { worker, warm, finished: figures };
  };

  const shards = Array.from({ length: workers }, (_, slot) => {
    const from = Math.floor((o.inputs * slot) / workers);
    const to = Math.floor((o.inputs * (slot + 1)) / workers);
    shardEnds[slot] = to;
    return launch(slot, from, to, o['warm-up']);
  });
  heaps.before = (await Promise.all(shards.map((s) => s.warm))).reduce((a, b) => a + b, 0);
  rssBefore = process.memoryUsage().rss / 1024 / 1024;
  console.log(`library: ${workers} workers warm (${o['warm-up']} inputs each), RSS ${mib(rssBefore)} MiB, heap ${mib(heaps.before)} MiB; fuzzing ${o.inputs} inputs`);

  // Each slot runs shard after shard: the first, then (after a hang) the rest of it from the input after the stuck one.
  const runSlot = async (slot: number, first: ReturnType<typeof launch>): Promise<void> => {
    let current = first;
    for (;;) {
      current.worker.postMessage('go');
      let last = Atomics.load(cursors, slot);
      let movedAt = performance.now();
      const stuck = new Promise<'stuck'>((resolve) => {
        const watch = setInterval(() => {
          const now = Atomics.load(cursors, slot);
          if (now !== last) {
            last = now;
            movedAt = performance.now();
          } else if (performance.now() - movedAt > STUCK_MS) {
            clearInterval(watch);
            resolve('stuck');
          }
        }, 250);
        void current.finished.then(() => clearInterval(watch));
      });
      const outcome = await Promise.race([current.finished, stuck]);
      if (outcome !== 'stuck') {
        if (outcome) figures = mergeLibraryFigures(figures, outcome);
        await current.worker.terminate();
        return;
      }
      const index = Atomics.load(cursors, slot);
      await current.worker.terminate();
      figures = mergeLibraryFigures(figures, {
        ...emptyLibraryFigures(),
        hangs: 1,
        failures: [{ index, what: 'hang', message: `no progress for ${STUCK_MS} ms`, recipe: describeRecipe(libraryInputs(o.seed).at(index)) }],
      });
      console.log(`library: input ${index} hangs (no progress for ${STUCK_MS / 1000} s); going on from ${index + 1}`);
      if (index + 1 >= shardEnds[slot]!) return;
      current = launch(slot, index + 1, shardEnds[slot]!, 0);
      await current.warm.catch(() => undefined);
    }
  };
  const progress = setInterval(() => {
    const done = Array.from({ length: workers }, (_, slot) => Atomics.load(cursors, slot) - Math.floor((o.inputs * slot) / workers)).reduce((a, b) => a + b, 0);
    console.log(`library: ${done} of ${o.inputs} inputs, ${seconds(began)} s`);
  }, 10_000);
  await Promise.all(shards.map((shard, slot) => runSlot(slot, shard)));
  clearInterval(progress);
  // The workers collected their garbage before reporting; what the process holds now is what the run kept.
  const rssAfter = process.memoryUsage().rss / 1024 / 1024;
  return { figures, rssBefore, rssAfter, heapBefore: heaps.before, heapAfter: heaps.after, seconds: (performance.now() - began) / 1000 };
}

/** A server's memory at one moment, in MiB: resident, V8's heap in use and committed, malloc's main arena. */
interface MemoryReading {
  rss: number;
  heap?: number;
  committed?: number;
  arena: number;
}

interface WebhookRun {
  figures: WebhookFigures;
  /** Idle, as V8 left the heap (the least over `--settle-ms`). */
  idleBefore: MemoryReading;
  idleAfter: MemoryReading;
  /** After a full collection asked for through the inspector: what the server keeps. The goal is on these. */
  before: MemoryReading;
  after: MemoryReading;
  /** The server died during the run, or did not exit 0 on SIGTERM after it. */
  crashed: boolean;
  exit: string;
  seconds: number;
}

/**
 * The server's memory once idle: the least RSS and heap seen over `--settle-ms`, read every half
 * second (V8 gives memory back some seconds after the load stops, and a single reading may fall
 * before it); then again after a full collection, asked for through its inspector. Idle, a heap can
 * hold tens of MiB of garbage for minutes after a load (V8 collects when the heap grows or its memory
 * reducer decides to, and an idle server allocates nothing), and a reading with it in cannot tell
 * growth from garbage; the collected one counts what the server keeps.
 */
async function settled(pid: number, metricsUrl: string, inspectorUrl: string): Promise<{ idle: MemoryReading; collected: MemoryReading }> {
  const idle: MemoryReading = { rss: Number.POSITIVE_INFINITY, arena: Number.POSITIVE_INFINITY };
  const until = performance.now() + o['settle-ms'];
  while (performance.now() < until) {
    await sleep(500);
    idle.rss = Math.min(idle.rss, rssMiB(pid));
    idle.arena = Math.min(idle.arena, mallocMainArenaMiB(pid));
    const heap = await heapFromMetrics(metricsUrl);
    if (heap !== undefined) {
      idle.heap = Math.min(idle.heap ?? heap.used, heap.used);
      idle.committed = Math.min(idle.committed ?? heap.total, heap.total);
    }
  }
  await collectGarbageThrough(inspectorUrl);
  // V8 unmaps the pages a collection freed on a background thread, within a second.
  await sleep(1000);
  const heap = await heapFromMetrics(metricsUrl);
  return { idle, collected: { rss: rssMiB(pid), heap: heap?.used, committed: heap?.total, arena: mallocMainArenaMiB(pid) } };
}

async function webhookPhase(): Promise<WebhookRun> {
  const began = performance.now();
  let inspectorUrl: string | undefined;
  const server = await startWebhook({ nodeArgs: [INSPECTOR_ARG], onText: (line) => (inspectorUrl ??= inspectorUrlIn(line)) });
  if (inspectorUrl === undefined) {
    await server.stop();
    throw new Error(`the server did not say where its inspector (${INSPECTOR_ARG}) listens`);
  }
  const target = { host: '127.0.0.1', port: server.ready.port, ca: server.ready.ca };
  const metricsUrl = `http://127.0.0.1:${server.ready.probePort}/metrics`;
  // The warm-up is the run's own mix (another seed), stalled uploads included: the memory read
  // after it is the server's working size for this traffic, and the run's question is whether
  // more of it grows that.
  await fuzzWebhook(target, { seed: o.seed ^ 0x5eed, from: 0, to: o['webhook-warm-up'], concurrency: o.concurrency, deadlineMs: o['webhook-deadline-ms'], stalls: o.stalls });
  // The largest bodies the server takes, and some it refuses, before memory is first read: what
  // the allocator keeps after its largest requests is the server's working size, not growth.
  await Promise.all(
    [-1024, -1024, -1024, -1024, 1, 1].map((over) =>
      send(target, { path: '/validate', headers: { 'content-type': 'application/json' }, body: oversized(over).body, deadlineMs: o['webhook-deadline-ms'] * 3, agent: false }),
    ),
  );
  const { idle: idleBefore, collected: before } = await settled(server.pid, metricsUrl, inspectorUrl);
  console.log(`webhook: pid ${server.pid} on port ${server.ready.port}, warm (${o['webhook-warm-up']} requests, ${o.stalls} stalled uploads and 6 of about 7 MiB), ${describeMemory(before)} after a full collection; fuzzing ${o['webhook-inputs']} requests and ${o.stalls} stalled uploads`);
  let done = 0;
  const progress = setInterval(() => console.log(`webhook: ${done} of ${o['webhook-inputs']} requests, ${seconds(began)} s`), 10_000);
  const figures = await fuzzWebhook(target, {
    seed: o.seed,
    from: 0,
    to: o['webhook-inputs'],
    concurrency: o.concurrency,
    deadlineMs: o['webhook-deadline-ms'],
    stalls: o.stalls,
    onProgress: (n) => (done = n),
  });
  clearInterval(progress);
  const diedDuring = server.child.exitCode !== null || server.child.signalCode !== null;
  const unread: MemoryReading = { rss: Number.NaN, arena: Number.NaN };
  const { idle: idleAfter, collected: after } = diedDuring ? { idle: unread, collected: unread } : await settled(server.pid, metricsUrl, inspectorUrl);
  const exit = await server.stop();
  const crashed = diedDuring || exit.code !== 0;
  if (crashed) console.log(`webhook: the server ${diedDuring ? 'died during the run' : `exited ${exit.code ?? exit.signal} on SIGTERM`}; its last lines:\n${server.log.slice(-20).map((l) => JSON.stringify(l)).join('\n')}`);
  return { figures, idleBefore, idleAfter, before, after, crashed, exit: `${exit.code ?? exit.signal} after ${exit.ms.toFixed(0)} ms`, seconds: (performance.now() - began) / 1000 };
}

const describeMemory = (m: MemoryReading) => `RSS ${mib(m.rss)} MiB (V8 heap ${mib(m.heap)} in use, ${mib(m.committed)} committed; malloc's main arena ${mib(m.arena)})`;
const memoryChange = (from: MemoryReading, to: MemoryReading) =>
  `RSS ${mib(from.rss)} -> ${mib(to.rss)} MiB, V8 heap in use ${mib(from.heap)} -> ${mib(to.heap)}, committed ${mib(from.committed)} -> ${mib(to.committed)}, malloc's main arena ${mib(from.arena)} -> ${mib(to.arena)}`;

function printFailures(title: string, failures: Failure[]): void {
  if (!failures.length) return;
  console.log(`${title}: first failures (reproduce one with --seed ${o.seed} --index I):`);
  for (const f of failures) console.log(`  #${f.index} ${f.what}: ${f.message}\n    recipe: ${f.recipe}`);
}

/**
 * The library's figures for input `index` alone, in a worker thread as the run has it: a worker's
 * stack (4 MiB) is larger than the main thread's, and an input that is costly for its depth costs
 * there what it cost in the run (one nested 49,339 deep: 5.2 s in a worker, 375 ms on the main thread).
 */
async function fuzzOneInWorker(index: number): Promise<LibraryFigures> {
  const { worker, warm, finished } = startLibraryWorker({ seed: o.seed, from: index, to: index + 1, deadlineMs: o['deadline-ms'], warmUp: 0, cursor: new SharedArrayBuffer(4), slot: 0, settleMs: 0 });
  try {
    await warm;
    worker.postMessage('go');
    return (await finished).figures!;
  } finally {
    void worker.terminate();
  }
}

async function reproduce(index: number): Promise<void> {
  console.log(`input ${index} of seed ${o.seed}`);
  console.log(`library recipe: ${describeRecipe(libraryInputs(o.seed).at(index), 100_000)}`);
  const library = await fuzzOneInWorker(index);
  console.log(`library (in a worker thread, as the run): ${JSON.stringify(library, null, 2)}`);
  console.log(`webhook recipe: ${describeRecipe(webhookInputs(o.seed).at(index), 100_000)}`);
  const server = await startWebhook();
  try {
    const webhook = await fuzzWebhook({ host: '127.0.0.1', port: server.ready.port, ca: server.ready.ca }, { seed: o.seed, from: index, to: index + 1, concurrency: 1, deadlineMs: o['webhook-deadline-ms'], stalls: 0 });
    console.log(`webhook: ${JSON.stringify(webhook, null, 2)}`);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<number> {
  console.log(`reliability:fuzz seed ${o.seed} (rerun the same inputs with --seed ${o.seed})`);
  if (o.index >= 0) {
    await reproduce(o.index);
    return 0;
  }
  const goals = new Goals();
  const lines: string[] = [];
  if (only !== 'webhook') {
    const run = await libraryPhase();
    const f = run.figures;
    lines.push(
      `library: ${f.inputs} inputs (${f.sweepCases} of them the sweep of wrong values at every path), ${f.calls} calls, ${run.seconds.toFixed(1)} s`,
      `library: exceptions ${f.exceptions}, reviews answered 500 ${f.internalErrors}, prototype pollution ${f.prototypePollution}, hangs ${f.hangs} (over ${o['deadline-ms']} ms), texts over ${MAX_TEXT} characters ${f.longTexts}`,
      `library: RSS ${mib(run.rssBefore)} -> ${mib(run.rssAfter)} MiB, heap ${mib(run.heapBefore)} -> ${mib(run.heapAfter)} MiB (after a full GC)`,
      `library: slowest inputs: ${f.slowest.map((s) => `#${s.index} ${s.ms.toFixed(0)} ms`).join(', ')}`,
    );
    printFailures('library', f.failures);
    goals
      .atMost('library: exceptions out of validate/applyDefaults/review', f.exceptions, 0)
      .atMost('library: reviews answered with code 500', f.internalErrors, 0)
      .atMost('library: prototype pollution', f.prototypePollution, 0)
      .atMost('library: hangs', f.hangs, 0)
      .atMost(`library: inputs with a message or warning over ${MAX_TEXT} characters`, f.longTexts, 0)
      .atMost('library: RSS after / before', run.rssAfter / run.rssBefore, 1.1, 'x');
  }
  if (only !== 'library') {
    const run = await webhookPhase();
    const f = run.figures;
    lines.push(
      `webhook: ${f.requests} requests (${f.sweepCases} of them the sweep), ${run.seconds.toFixed(1)} s; answers by status ${JSON.stringify(f.byStatus)}`,
      `webhook: 5xx ${f.http5xx}, reviews answered 500 ${f.reviewInternalErrors}, malformed 200s ${f.malformed}, hangs ${f.hangs} (over ${o['webhook-deadline-ms']} ms), failures before an answer ${f.transportErrors}`,
      `webhook: stalled uploads ${f.stalls.started}: cut by the server ${f.stalls.cut} (the last after ${(f.stalls.maxMs / 1000).toFixed(1)} s), not cut ${f.stalls.notCut}`,
      `webhook: server after a full collection: ${memoryChange(run.before, run.after)}`,
      `webhook: server idle, as V8 left it (the least over ${o['settle-ms'] / 1000} s): ${memoryChange(run.idleBefore, run.idleAfter)}`,
      `webhook: exit on SIGTERM: ${run.exit}`,
      `webhook: slowest requests: ${f.slowest.map((s) => `#${s.index} ${s.ms.toFixed(0)} ms`).join(', ')}`,
    );
    printFailures('webhook', f.failures);
    goals
      .atMost('webhook: crashes', run.crashed ? 1 : 0, 0)
      .atMost('webhook: 5xx answers', f.http5xx, 0)
      .atMost('webhook: reviews answered with code 500', f.reviewInternalErrors, 0)
      .atMost('webhook: 200s that are not the AdmissionReview asked for', f.malformed, 0)
      .atMost('webhook: hangs', f.hangs, 0)
      .atMost('webhook: failures before an answer', f.transportErrors, 0)
      .atMost('webhook: stalled uploads not cut', f.stalls.notCut, 0)
      .atMost('webhook: RSS after / before (after a full collection)', run.after.rss / run.before.rss, 1.1, 'x');
  }
  console.log(lines.join('\n'));
  console.log(goals.report(`reliability:fuzz seed ${o.seed}`));
  return goals.exitCode;
}

process.exitCode = await main();
