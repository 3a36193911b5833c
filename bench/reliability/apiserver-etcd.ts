/**
 * Harness 4c, etcd going away under load: `npm run reliability:apiserver-etcd [-- --outages 4]`.
 *
 * A real etcd (Debian's etcd-server, on loopback ports in a temporary folder) and two
 * `fleetgate apiserver` replicas on it. Writers (cluster-writes.ts: each owns its keys; half write
 * through each replica) create, update and delete Clusters as fast as they are answered, and
 * watchers (half on each replica) watch Clusters from one resourceVersion. `--outages` times, after
 * `--up-seconds` of load, etcd goes away for `--down-seconds`: stopped with SIGTERM, killed with
 * SIGKILL, or frozen with SIGSTOP (connections open, nothing answers), in turn; then it is started
 * again on the same data (or let go on); after the last outage the load runs `--up-seconds` more. A write
 * whose outcome is unknown (a 503 or a reset while etcd went) is resolved by reading its key a
 * second after etcd is back (a write sent to a frozen etcd is applied when it thaws, after the
 * API server answered 503 at its deadline), and the key is not written again before that.
 *
 * Goals: no acknowledged write lost (every key, read through both replicas, is where its writes
 * left it) and no object torn or made by no write; acknowledged writes in real-time resourceVersion
 * order across the replicas; every watcher receives every write that happened (the acknowledged
 * ones and the unknown ones found applied) once, in order, and nothing else, none is ended, and
 * none stalls: each gets a write made after etcd returned within `--stall-ms` of etcd's return;
 * while etcd is down every request is answered (503) within the request timeout and a margin,
 * both replicas say they are not ready, and both are ready again within `--ready-ms` of its
 * return; both exit 0 on SIGTERM.
 * Exits 1 when a goal is missed, 2 when etcd is not installed.
 */
import { freshSeed, numberFlags, sleep } from './args.js';
import { ApiClient, readyz, startApiserver, targetOf, type Apiserver } from './apiserver-process.js';
import { CLUSTERS, KeyModel, realTimeOrderViolations, seeded, writeOf, type Write } from './cluster-writes.js';
import { Goals } from './goals.js';
import { summarizeLatencies } from './open-loop.js';
import { tallyEvents, WatchStream, type SeenEvent } from './watch-stream.js';
import { ETCD_MISSING, etcdPath, startEtcd } from '../../test/fixtures/etcd-process.js';

const { numbers: o } = numberFlags({
  outages: 6,
  'up-seconds': 8,
  'down-seconds': 5,
  writers: 8,
  keys: 16,
  watchers: 20,
  'delete-every': 8,
  'request-timeout-s': 2,
  'stall-ms': 20_000,
  'ready-ms': 20_000,
  seed: Number.NaN,
});
const seed = Number.isNaN(o.seed) ? freshSeed() : o.seed;
const random = seeded(seed);

const typeOf = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
const carried = (write: Write) => (write.kind === 'delete' ? `DELETED ${write.name} #${write.prevN}` : `${typeOf[write.kind]} ${write.name} #${write.n}`);
const seen = (event: SeenEvent) => `${event.type} ${event.name} #${event.n}`;

interface Outage {
  signal: 'SIGTERM' | 'SIGKILL' | 'SIGSTOP';
  /** The replicas' /readyz while etcd was away (sampled in the middle of the outage). */
  readyzDuring: number[];
  stoppedAt: number;
  startedAt: number;
  /** Milliseconds from etcd's return until both replicas answered /readyz 200. */
  readyMs: number;
  /** Per watcher: milliseconds from etcd's return to its first event of a write sent after it. */
  recoveryMs: number[];
}

async function main(): Promise<number> {
  if (!etcdPath) {
    console.log(`apiserver on etcd: cannot run: ${ETCD_MISSING}`);
    return 2;
  }
  const etcd = await startEtcd();
  const args = ['--etcd-servers', etcd.url, '--etcd-request-timeout', `${o['request-timeout-s']}s`];
  const replicas: Apiserver[] = await Promise.all([startApiserver({ storageArgs: args }), startApiserver({ storageArgs: args })]);
  const clients = replicas.map((replica) => new ApiClient(targetOf(replica), o.writers));
  console.log(
    `apiserver on etcd: 2 replicas on ${etcd.url}, ${o.writers} writers × ${o.keys} Clusters, ${o.watchers} watchers; ` +
      `${o.outages} outages of ${o['down-seconds']} s (SIGTERM, SIGKILL, SIGSTOP in turn) after ${o['up-seconds']} s of load each; request timeout ${o['request-timeout-s']} s; seed ${seed}`,
  );

  const start = await clients[0]!.call('GET', CLUSTERS);
  if (start.status !== 200) throw new Error(`first list: ${start.status} ${start.error ?? start.body}`);
  const startRv = Number(start.json.metadata.resourceVersion);
  const watchers = Array.from({ length: o.watchers }, (_, i) => new WatchStream(targetOf(replicas[i % 2]!), `${CLUSTERS}?watch=true&resourceVersion=${startRv}&timeoutSeconds=3600`));
  const opened = await Promise.all(watchers.map((watcher) => watcher.opened));
  if (opened.some((status) => status !== 200)) throw new Error(`watches opened with ${[...new Set(opened)].join(', ')}`);

  const keys = Array.from({ length: o.writers }, (_, writer) => Array.from({ length: o.keys }, (_, k) => new KeyModel(`etcd-w${writer}-k${k}`, writer)));
  const writes: Write[] = [];
  const appliedUnknown: Write[] = [];
  const problems = { lost: [] as string[], unexpected: [] as string[] };
  const note = (list: string[], problem: string) => {
    list.push(problem);
    if (list.length <= 5) console.log(`  PROBLEM: ${problem}`);
  };
  let etcdUp = true;
  let backAt = 0;
  let running = true;
  const writer = async (own: KeyModel[], index: number) => {
    const client = clients[index % 2]!;
    while (running) {
      const key = own[Math.floor(random() * own.length)]!;
      if (key.unknown) {
        // A write sent to a frozen etcd is applied when it thaws, after its 503: read a second after etcd is back.
        if (!etcdUp || performance.now() - backAt < 1000) {
          await sleep(50);
          continue;
        }
        const pending = key.unknown;
        const { resolved, problem } = await key.resolve(client);
        if (problem) note(problems.lost, problem);
        if (resolved && wasApplied(pending, key)) appliedUnknown.push(pending);
        if (!resolved) await sleep(50);
        continue;
      }
      const write = await key.write(client, o['delete-every'], random);
      writes.push(write);
      if (write.outcome === 'refused') note(problems.unexpected, `${write.kind} ${write.name} #${write.n} refused: ${write.status} ${write.error ?? ''}`);
      else if (write.outcome === 'unknown' && etcdUp && write.status !== 503) note(problems.unexpected, `${write.kind} ${write.name} #${write.n}: ${write.status ?? write.error} with etcd up`);
      // While etcd is down the answers come at once: pace the loop rather than spin.
      if (write.outcome !== 'acked') await sleep(20);
    }
  };
  const load = Promise.all(keys.map(writer));

  const outages: Outage[] = [];
  for (let index = 0; index < o.outages; index++) {
    await sleep(o['up-seconds'] * 1000);
    const signal = (['SIGTERM', 'SIGKILL', 'SIGSTOP'] as const)[index % 3]!;
    etcdUp = false;
    const stoppedAt = performance.now();
    if (signal === 'SIGSTOP') etcd.pause();
    else await etcd.stop(signal);
    await sleep((o['down-seconds'] * 1000) / 2);
    const readyzDuring = await Promise.all(replicas.map(readyz));
    await sleep((o['down-seconds'] * 1000) / 2);
    if (signal === 'SIGSTOP') etcd.resume();
    else await etcd.start();
    const startedAt = performance.now();
    backAt = startedAt;
    etcdUp = true;
    let readyMs = Number.NaN;
    while (performance.now() - startedAt < o['ready-ms'] * 2) {
      if ((await Promise.all(replicas.map(readyz))).every((status) => status === 200)) {
        readyMs = performance.now() - startedAt;
        break;
      }
      await sleep(100);
    }
    outages.push({ signal, readyzDuring, stoppedAt, startedAt, readyMs, recoveryMs: [] });
    console.log(
      `outage ${index + 1}: etcd ${signal === 'SIGSTOP' ? 'frozen (SIGSTOP)' : `stopped with ${signal}`} for ${((startedAt - stoppedAt) / 1000).toFixed(1)} s; ` +
        `readyz meanwhile ${readyzDuring.join(', ')}; both replicas ready ${Number.isNaN(readyMs) ? 'NOT within the limit' : `${readyMs.toFixed(0)} ms`} after it was back`,
    );
  }
  await sleep(o['up-seconds'] * 1000);
  running = false;
  await load;
  // Resolve what is still unknown, now that etcd is up.
  for (const key of keys.flat()) {
    for (let tries = 0; key.unknown && tries < 20; tries++) {
      const pending = key.unknown;
      const { resolved, problem } = await key.resolve(clients[key.writer % 2]!);
      if (problem) note(problems.lost, problem);
      if (resolved && wasApplied(pending, key)) appliedUnknown.push(pending);
      if (!resolved) await sleep(250);
    }
    if (key.unknown) note(problems.lost, `${key.name}: could not be read to resolve its last write`);
  }

  // Every key, read through both replicas, where its writes left it.
  let torn = 0;
  let phantom = 0;
  for (const client of clients) {
    const list = await client.call('GET', CLUSTERS);
    if (list.status !== 200) {
      note(problems.lost, `the final list answered ${list.status}`);
      continue;
    }
    const items = new Map<string, any>(list.json.items.map((item: any) => [item.metadata.name, item]));
    for (const key of keys.flat()) {
      const observed = items.get(key.name);
      if (observed && 'torn' in writeOf(observed)) torn++;
      const problem = key.check(observed);
      if (problem) note(problems.lost, problem);
      items.delete(key.name);
    }
    phantom += items.size;
  }

  // Every watcher: every write that happened, once, in order, nothing else; none ended; none stalled.
  const happened = new Set([...writes.filter((write) => write.outcome === 'acked'), ...appliedUnknown].map(carried));
  const drainDeadline = performance.now() + 30_000;
  while (performance.now() < drainDeadline && watchers.some((watcher) => watcher.events.length < happened.size)) await sleep(50);
  let lost = 0;
  let extra = 0;
  let reordered = 0;
  let ended = 0;
  const sentAt = new Map(writes.map((write) => [carried(write), write.sentAt]));
  for (const watcher of watchers) {
    const events = watcher.events;
    const tally = tallyEvents(events, happened, seen);
    lost += tally.lost;
    extra += tally.extra;
    reordered += tally.reordered;
    if (await Promise.race([watcher.ended.then(() => true), sleep(0).then(() => false)])) ended++;
    for (const outage of outages) {
      // Its first event of a write sent after etcd's return: one that reached it through the recovered etcd.
      const firstAfter = events.find((event) => event.at > outage.startedAt && (sentAt.get(seen(event)) ?? 0) > outage.startedAt);
      outage.recoveryMs.push(firstAfter ? firstAfter.at - outage.startedAt : Number.POSITIVE_INFINITY);
    }
    watcher.close();
  }

  const order = realTimeOrderViolations(writes);
  for (const example of order.examples) console.log(`  PROBLEM: resourceVersion order: ${example}`);
  const exits = await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')));
  for (const client of clients) client.close();
  await etcd.close();

  const acked = writes.filter((write) => write.outcome === 'acked');
  const duringOutage = writes.filter((write) => outages.some((outage) => write.sentAt >= outage.stoppedAt && write.sentAt < outage.startedAt));
  const refusals = duringOutage.filter((write) => write.outcome !== 'acked');
  const refusalMs = summarizeLatencies(refusals.map((write) => write.answeredAt! - write.sentAt));
  const slowest = Math.max(0, ...refusals.map((write) => write.answeredAt! - write.sentAt));
  const recovery = outages.flatMap((outage) => outage.recoveryMs);
  const recoveryFigures = summarizeLatencies(recovery.filter(Number.isFinite));
  console.log(
    `\nwrites: ${writes.length} sent, ${acked.length} acknowledged (${acked.filter((w) => w.kind === 'create').length} creates, ${acked.filter((w) => w.kind === 'update').length} updates, ${acked.filter((w) => w.kind === 'delete').length} deletes); ` +
      `${writes.filter((w) => w.outcome === 'unknown').length} with an unknown outcome (${appliedUnknown.length} found applied); ${refusals.length} refused while etcd was down, answered in p50 ${refusalMs.p50.toFixed(0)} ms, max ${slowest.toFixed(0)} ms`,
  );
  console.log(`watchers: ${watchers.length}, ${watchers.reduce((sum, watcher) => sum + watcher.events.length, 0)} events; first event of a write after etcd's return: p50 ${recoveryFigures.p50.toFixed(0)} ms, max ${Math.max(...recovery).toFixed(0)} ms after it started`);
  console.log(`replicas ready again after etcd's return: ${outages.map((outage) => `${outage.readyMs.toFixed(0)} ms`).join(', ')}; exit codes after SIGTERM ${exits.map((exit) => exit.code).join(', ')}`);

  const goals = new Goals()
    .atLeast('outages done', outages.length, o.outages)
    .atMost('acknowledged writes lost or changed', problems.lost.length, 0)
    .atMost('objects torn or made by no write', torn + phantom, 0)
    .atMost('resourceVersion order violations (real time, across replicas)', order.count, 0)
    .atMost('answers other than success or 503', problems.unexpected.length, 0)
    .atMost('slowest answer while etcd was down', slowest, o['request-timeout-s'] * 1000 + 1500, 'ms')
    .atMost('events lost (watchers)', lost, 0)
    .atMost('events duplicated or not written (watchers)', extra, 0)
    .atMost('events out of order (watchers)', reordered, 0)
    .atMost('watchers ended', ended, 0)
    .atMost("slowest watcher's first new event after etcd's return", Math.max(...recovery), o['stall-ms'], 'ms')
    .atMost('replicas ready while etcd was away', outages.reduce((sum, outage) => sum + outage.readyzDuring.filter((status) => status === 200).length, 0), 0)
    .atMost("slowest return to ready after etcd's return", Math.max(...outages.map((outage) => (Number.isNaN(outage.readyMs) ? Number.POSITIVE_INFINITY : outage.readyMs))), o['ready-ms'], 'ms')
    .atMost('replicas not exiting 0 on SIGTERM', exits.filter((exit) => exit.code !== 0).length, 0);
  console.log(`\n${goals.report('apiserver on etcd')}`);
  return goals.exitCode;
}

/** Whether an unknown write, now resolved, turned out to have happened (the key now holds its result). */
function wasApplied(write: Write, key: KeyModel): boolean {
  return write.kind === 'delete' ? !key.known.exists : key.known.exists && key.known.n === write.n;
}

process.exitCode = await main();
