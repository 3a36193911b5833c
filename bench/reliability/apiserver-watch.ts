/**
 * Harness 4b, watch under load: `npm run reliability:apiserver-watch [-- --watchers 100 --rate 100 --seconds 60]`.
 *
 * `fleetgate apiserver` on its durable store (unpinned: on a machine shared with other pinned
 * processes a pinned server starves; `--server-cpu N` pins it to core N with taskset), `--watchers`
 * watch streams of Clusters from one resourceVersion, each on a connection of its own, one of them
 * slow: it reads one chunk of its socket, then waits `--slow-pause-ms` before the next, and when
 * the server cuts it off it resumes from the last resourceVersion it read (relisting on a 410), as
 * client-go's reflector does. Meanwhile an open-loop writer creates, updates and deletes Clusters
 * at `--rate` writes per second (cluster-writes.ts), every answer checked.
 *
 * Goals: every write acknowledged; every fast watcher receives every acknowledged write once, in
 * resourceVersion order, and nothing else, within `--stall-ms` of its acknowledgement, and none is
 * ended; every session of the slow watcher is an unbroken run of that same sequence (nothing lost
 * or reordered up to where it was cut); the server cut the slow watcher off rather than queue for
 * it without bound, holding at most `--backlog-mib` of unsent events for it when it did (the
 * server's own figure, from its log: its bound is 4 MiB plus the event that crossed it); the
 * server's RSS grows by at most `--rss-growth-mib` over the load (it keeps 75 s of changes, so
 * some growth is expected); exit 0 on SIGTERM.
 * Exits 1 when a goal is missed.
 */
import { freshSeed, numberFlags, sleep } from './args.js';
import { ApiClient, startApiserver, targetOf } from './apiserver-process.js';
import { apiserverFolder } from './apiserver-process.js';
import { CLUSTERS, KeyModel, seeded, type Write } from './cluster-writes.js';
import { Goals } from './goals.js';
import { openLoop, summarizeLatencies } from './open-loop.js';
import { ProcessSampler, cpuSeconds } from './process-stats.js';
import { tallyEvents, WatchStream, type SeenEvent } from './watch-stream.js';
import { join } from 'node:path';
import { rmSync } from 'node:fs';

const { numbers: o } = numberFlags({
  watchers: 100,
  rate: 100,
  seconds: 60,
  keys: 400,
  'delete-every': 8,
  'slow-pause-ms': 1000,
  'slow-reconnect-ms': 1000,
  'stall-ms': 10_000,
  'backlog-mib': 4.5,
  'rss-growth-mib': 100,
  'server-cpu': -1,
  seed: Number.NaN,
});
const seed = Number.isNaN(o.seed) ? freshSeed() : o.seed;
const random = seeded(seed);
const MiB = 1024 * 1024;
const TOO_SLOW = 'watch ended: the client fell too far behind';

const typeOf = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
/** What a write's event carries: its type, key and counter, and (but for a delete, answered with a Status) its resourceVersion. */
const carried = (write: Write) => (write.kind === 'delete' ? `DELETED ${write.name} #${write.prevN}` : `${typeOf[write.kind]} ${write.name} #${write.n} @${write.rv}`);
const seen = (event: SeenEvent) => (event.type === 'DELETED' ? `DELETED ${event.name} #${event.n}` : `${event.type} ${event.name} #${event.n} @${event.rv}`);

async function main(): Promise<number> {
  const cwd = apiserverFolder();
  /** What the server held for each watcher it cut off (its log's unsentBytes). */
  const cuts: number[] = [];
  let onCut: () => void = () => undefined;
  const server = await startApiserver({
    cwd,
    storageArgs: ['--data-dir', join(cwd, 'data')],
    cpu: o['server-cpu'] < 0 ? undefined : o['server-cpu'],
    onLine: (line) => {
      if (typeof line === 'object' && line !== null && (line as { msg?: string }).msg === TOO_SLOW) {
        cuts.push(Number((line as { unsentBytes?: number }).unsentBytes) / MiB);
        onCut();
      }
    },
  });
  const target = targetOf(server);
  const client = new ApiClient(target, 64);
  console.log(`apiserver watch under load: ${o.watchers} watchers (one slow: a chunk every ${o['slow-pause-ms']} ms), ${o.rate} writes/s for ${o.seconds} s over ${o.keys} Clusters; seed ${seed}`);

  // The objects the load updates and deletes, created first.
  const keys = Array.from({ length: o.keys }, (_, i) => new KeyModel(`watched-${i}`, 0));
  for (let i = 0; i < keys.length; i += 32) {
    const created = await Promise.all(keys.slice(i, i + 32).map((key) => key.write(client, o['delete-every'], random)));
    const failed = created.find((write) => write.outcome !== 'acked');
    if (failed) throw new Error(`creating the Clusters: ${failed.status ?? failed.error}`);
  }
  const start = await client.call('GET', CLUSTERS);
  const startRv = Number(start.json.metadata.resourceVersion);

  const watchPath = (rv: number) => `${CLUSTERS}?watch=true&resourceVersion=${rv}&timeoutSeconds=3600`;
  const fast = Array.from({ length: o.watchers - 1 }, () => new WatchStream(target, watchPath(startRv)));
  // The slow watcher, its sessions, and the resourceVersions the server had acknowledged when it cut each one.
  const slowSessions: { stream: WatchStream; from: number; relisted: boolean }[] = [];
  let slowRunning = true;
  const openSlow = (from: number, relisted: boolean) => {
    const stream = new WatchStream(target, watchPath(from), { pauseMs: o['slow-pause-ms'] });
    slowSessions.push({ stream, from, relisted });
    return stream;
  };
  const slowLoop = (async () => {
    let from = startRv;
    let relisted = false;
    while (slowRunning) {
      const stream = openSlow(from, relisted);
      await stream.ended;
      if (!slowRunning) break;
      await sleep(o['slow-reconnect-ms']); // client-go's reflector backs off before it watches again
      if (stream.events.some((event) => event.type === 'ERROR')) {
        const list = await client.call('GET', CLUSTERS);
        from = Number(list.json?.metadata?.resourceVersion);
        relisted = true;
      } else {
        from = Math.max(from, stream.lastRv);
        relisted = false;
      }
    }
  })();
  // When the server says it cut a watcher off, the slow one reads the rest of its socket at once (its kernel buffers), so its session ends.
  const writes: Write[] = [];
  onCut = () => slowSessions.at(-1)?.stream.readFaster();
  const opened = await Promise.all([...fast, ...slowSessions.map((s) => s.stream)].map((stream) => stream.opened));
  if (opened.some((status) => status !== 200)) throw new Error(`watches opened with ${[...new Set(opened)].join(', ')}`);

  const sampler = new ProcessSampler(server.pid, `http://127.0.0.1:${server.ready.probePort}/metrics`).start(1000);
  const idle = () => {
    for (let tries = 0; tries < keys.length; tries++) {
      const key = keys[Math.floor(random() * keys.length)]!;
      if (!key.busy && !key.unknown) return key;
    }
    return undefined;
  };
  // CPU time over the load: a server short of its core (a busy machine) shows as a share well under 100 %.
  const cpuBefore = { server: cpuSeconds(server.pid), harness: process.cpuUsage(), at: performance.now() };
  const load = await openLoop({
    rate: o.rate,
    seconds: o.seconds,
    drainMs: 30_000,
    fire: async () => {
      const key = idle();
      // Every key has a write in flight: the server is more than keys / rate seconds behind.
      if (!key) return { ok: false, error: 'not sent: every key had a write in flight' };
      key.busy = true;
      try {
        const write = await key.write(client, o['delete-every'], random);
        writes.push(write);
        return write.outcome === 'acked' ? { ok: true } : { ok: false, error: `${write.kind}: ${write.status ?? write.error}` };
      } finally {
        key.busy = false;
      }
    },
  });
  const loadEnded = performance.now();
  const loadSeconds = (loadEnded - cpuBefore.at) / 1000;
  const serverCpu = (cpuSeconds(server.pid) - cpuBefore.server) / loadSeconds;
  const harnessUsage = process.cpuUsage(cpuBefore.harness);
  const harnessCpu = (harnessUsage.user + harnessUsage.system) / 1e6 / loadSeconds;

  // The acknowledged writes as each watcher should see them.
  const acked = writes.filter((write) => write.outcome === 'acked');
  const expected = new Set(acked.map(carried));
  const ackedAt = new Map(acked.map((write) => [carried(write), write.answeredAt!]));
  const drainDeadline = performance.now() + 30_000;
  while (performance.now() < drainDeadline && fast.some((stream) => stream.events.length < expected.size)) await sleep(50);
  const drainedMs = performance.now() - loadEnded;
  slowRunning = false;
  for (const session of slowSessions) session.stream.close();
  await slowLoop;
  const samples = sampler.stop();

  // Fast watchers: exactly the acknowledged writes, once each, in resourceVersion order, none ended.
  let lost = 0;
  let extra = 0;
  let reordered = 0;
  let ended = 0;
  const delays: number[] = [];
  let reference: SeenEvent[] | undefined;
  for (const stream of fast) {
    const events = stream.events;
    const tally = tallyEvents(events, expected, seen);
    lost += tally.lost;
    extra += tally.extra;
    reordered += tally.reordered;
    for (const event of events) {
      const at = ackedAt.get(seen(event));
      if (at !== undefined) delays.push(Math.max(0, event.at - at));
    }
    if (await Promise.race([stream.ended.then(() => true), sleep(0).then(() => false)])) ended++;
    reference ??= events;
  }
  for (const stream of fast) stream.close();

  // The slow watcher: each session an unbroken run of the sequence after where it started.
  let slowBroken = 0;
  const order = reference ?? [];
  for (const session of slowSessions) {
    const events = session.stream.events.filter((event) => event.type !== 'ERROR');
    const run = order.filter((event) => event.rv > session.from).slice(0, events.length);
    if (events.some((event, i) => run[i] === undefined || seen(event) !== seen(run[i]))) slowBroken++;
  }
  const held = [...cuts].sort((a, b) => a - b);

  const exit = await server.stop('SIGTERM');
  client.close();
  rmSync(cwd, { recursive: true, force: true });

  const latency = summarizeLatencies(load.latencies);
  const delay = summarizeLatencies(delays);
  const loadSamples = samples.filter((sample) => sample.t >= 1);
  const first = mean(loadSamples.slice(0, 5).map((sample) => sample.rssMiB));
  const last = mean(samples.slice(-5).map((sample) => sample.rssMiB));
  const peak = Math.max(...samples.map((sample) => sample.rssMiB));
  const slowEvents = slowSessions.reduce((sum, session) => sum + session.stream.events.length, 0);
  console.log(`\nwrites: ${load.fired} fired at ${load.achievedRate.toFixed(0)}/s, ${acked.length} acknowledged (${acked.filter((w) => w.kind === 'create').length} creates, ${acked.filter((w) => w.kind === 'update').length} updates, ${acked.filter((w) => w.kind === 'delete').length} deletes), ${load.errors + load.unanswered} failed${load.errors ? ` ${JSON.stringify(load.errorReasons)}` : ''}; latency p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`);
  console.log(`fast watchers: ${fast.length}, ${fast.reduce((sum, stream) => sum + stream.events.length, 0)} events; all had every event ${drainedMs.toFixed(0)} ms after the load ended; delivery after the acknowledgement p50 ${delay.p50.toFixed(1)} ms, p99 ${delay.p99.toFixed(1)} ms, max ${delay.max.toFixed(1)} ms`);
  console.log(
    `slow watcher: ${slowSessions.length} sessions, ${slowEvents} events read; cut off by the server ${cuts.length} times (${slowSessions.filter((s) => s.relisted).length} relists after a 410); ` +
      `unsent events the server held for it when it cut it off: ${held.length ? `min ${held[0]!.toFixed(2)}, median ${held[Math.floor(held.length / 2)]!.toFixed(2)}, max ${held.at(-1)!.toFixed(2)} MiB` : 'none'}`,
  );
  console.log(`CPU over the load: the server ${(serverCpu * 100).toFixed(0)} % of a core, this harness ${(harnessCpu * 100).toFixed(0)} %`);
  console.log(`server RSS: ${first.toFixed(1)} MiB over the load's first 5 s, peak ${peak.toFixed(1)} MiB, ${last.toFixed(1)} MiB over the last 5 s; heap used at the end ${samples.at(-1)?.heapUsedMiB?.toFixed(1) ?? '?'} MiB; exit ${exit.code} after SIGTERM in ${exit.ms.toFixed(0)} ms`);

  const goals = new Goals()
    .atMost('writes not acknowledged', load.errors + load.unanswered, 0)
    .atMost('events lost (fast watchers)', lost, 0)
    .atMost('events duplicated or not written (fast watchers)', extra, 0)
    .atMost('events out of order (fast watchers)', reordered, 0)
    .atMost('fast watchers ended', ended, 0)
    .atMost('slowest delivery after the acknowledgement', delay.max, o['stall-ms'], 'ms')
    .atMost('slow watcher sessions not an unbroken run', slowBroken, 0)
    .atLeast('times the slow watcher was cut off', cuts.length, 1)
    .atMost('most unsent events held for the slow watcher', held.length ? held.at(-1)! : Number.NaN, o['backlog-mib'], 'MiB')
    .atMost('RSS growth over the load (last 5 s - first 5 s)', last - first, o['rss-growth-mib'], 'MiB')
    .atMost('exit code after SIGTERM', exit.code ?? Number.NaN, 0);
  console.log(`\n${goals.report('apiserver watch under load')}`);
  return goals.exitCode;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

process.exitCode = await main();
