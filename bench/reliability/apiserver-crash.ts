/**
 * Harness 4a, crash consistency of `fleetgate apiserver` on its durable store:
 * `npm run reliability:apiserver-crash [-- --rounds 20 --writers 16 --seed N]`.
 *
 * Writers (cluster-writes.ts: each owns its keys, every field of a write carries its counter)
 * create, update and delete Clusters through the API as fast as the server answers; at a random
 * moment the server is killed with SIGKILL, then started again on the same data directory. After
 * each restart, before anything else is written:
 * - every key is where its acknowledged writes left it (exactly, resourceVersion included), or,
 *   for the write in flight at the kill, where that write would have left it: nothing acknowledged
 *   is lost, nothing unacknowledged shows but whole;
 * - every object is wholly one write's (its fields agree), and no object is there that no write made;
 * - the revision log agrees: a watch from the round's first resourceVersion replays every
 *   acknowledged write of the round at its resourceVersion, in increasing order, nothing else but
 *   the writes in flight at the kill, and replaying it onto the round's first state gives the state listed.
 * Across the run, an acknowledged write's resourceVersion is above that of every write acknowledged
 * before it was sent (restarts included). At the end the server must exit 0 on SIGTERM.
 * Exits 1 when a goal is missed.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freshSeed, numberFlags, sleep } from './args.js';
import { ApiClient, apiserverFolder, readyz, startApiserver, targetOf, type Apiserver } from './apiserver-process.js';
import { CLUSTERS, KeyModel, realTimeOrderViolations, seeded, writeOf, type Write } from './cluster-writes.js';
import { Goals } from './goals.js';
import { WatchStream, type StreamEnd } from './watch-stream.js';

const { numbers: o, strings } = numberFlags(
  { rounds: 20, writers: 16, keys: 8, 'min-ms': 300, 'max-ms': 3000, 'delete-every': 8, seed: Number.NaN, 'server-cpu': Number.NaN },
  { storage: 'string' },
);
// `--storage memory` is the harness's own check: a server that keeps nothing must miss the goals.
const storage = (strings.storage as string | undefined) ?? 'durable';
if (storage !== 'durable' && storage !== 'memory') throw new Error(`--storage must be durable or memory, got "${storage}"`);
const seed = Number.isNaN(o.seed) ? freshSeed() : o.seed;
const random = seeded(seed);
const serverCpu = Number.isNaN(o['server-cpu']) ? undefined : o['server-cpu'];

interface Round {
  writes: Write[];
  killAfterMs: number;
  restartMs: number;
  acked: number;
  unknownApplied: number;
  unknownNotApplied: number;
  objects: number;
  logEvents: number;
}

const problems = { lost: [] as string[], torn: [] as string[], phantom: [] as string[], log: [] as string[], answers: [] as string[] };
const note = (list: string[], problem: string) => {
  list.push(problem);
  if (list.length <= 5) console.log(`  PROBLEM: ${problem}`);
};

async function main(): Promise<number> {
  const cwd = apiserverFolder();
  const storageArgs = storage === 'memory' ? ['--storage', 'memory'] : ['--data-dir', join(cwd, 'data')];
  console.log(`apiserver crash consistency (${storage} store): ${o.rounds} rounds, ${o.writers} writers × ${o.keys} Clusters each, SIGKILL ${o['min-ms']}–${o['max-ms']} ms into each round; seed ${seed}`);
  let server: Apiserver = await startApiserver({ cwd, storageArgs, cpu: serverCpu });
  const keys = Array.from({ length: o.writers }, (_, writer) => Array.from({ length: o.keys }, (_, k) => new KeyModel(`crash-w${writer}-k${k}`, writer)));
  const allKeys = keys.flat();
  const rounds: Round[] = [];
  const allWrites: Write[] = [];
  let failedStarts = 0;

  for (let index = 0; index < o.rounds; index++) {
    const client = new ApiClient(targetOf(server), o.writers);
    const start = await client.call('GET', CLUSTERS);
    if (start.status !== 200) throw new Error(`list before round ${index + 1}: ${start.status} ${start.error ?? start.body}`);
    const startRv = Number(start.json.metadata.resourceVersion);
    const startState = new Map<string, { n: number; rv: number }>(start.json.items.map((item: any) => [item.metadata.name, { n: Number(item.metadata.labels.n), rv: Number(item.metadata.resourceVersion) }]));

    let killed = false;
    const writes: Write[] = [];
    const writer = async (own: KeyModel[]) => {
      while (!killed) {
        const key = own[Math.floor(random() * own.length)]!;
        if (key.unknown) {
          const { problem } = await key.resolve(client);
          if (problem) note(problems.lost, problem);
          continue;
        }
        const write = await key.write(client, o['delete-every'], random);
        writes.push(write);
        if (!killed && write.outcome !== 'acked') note(problems.answers, `${write.kind} ${write.name} #${write.n} answered ${write.status ?? write.error} while the server ran`);
      }
    };
    const running = Promise.all(keys.map(writer));
    const killAfterMs = o['min-ms'] + random() * (o['max-ms'] - o['min-ms']);
    await sleep(killAfterMs);
    killed = true;
    await server.stop('SIGKILL');
    await running;
    client.close();

    const restartedAt = performance.now();
    try {
      server = await startApiserver({ cwd, storageArgs, cpu: serverCpu });
    } catch (error) {
      failedStarts++;
      console.log(`  PROBLEM: the server did not start again after round ${index + 1}: ${(error as Error).message}`);
      break;
    }
    const restartMs = performance.now() - restartedAt;
    const round = await check(server, writes, startRv, startState, allKeys);
    rounds.push({ ...round, writes, killAfterMs, restartMs });
    allWrites.push(...writes);
    const last = rounds.at(-1)!;
    console.log(
      `round ${String(index + 1).padStart(2)}: SIGKILL after ${killAfterMs.toFixed(0).padStart(4)} ms, ${String(last.acked).padStart(5)} writes acknowledged, ` +
        `${last.unknownApplied + last.unknownNotApplied} in flight (${last.unknownApplied} applied, ${last.unknownNotApplied} not); ` +
        `restart ${restartMs.toFixed(0)} ms (readyz ${await readyz(server)}); ${last.objects} objects, ${last.logEvents} log entries replayed`,
    );
  }

  const order = realTimeOrderViolations(allWrites);
  for (const example of order.examples) console.log(`  PROBLEM: resourceVersion order: ${example}`);
  const exit = await server.stop('SIGTERM');
  rmSync(cwd, { recursive: true, force: true });

  const acked = rounds.reduce((sum, round) => sum + round.acked, 0);
  const inFlight = rounds.reduce((sum, round) => sum + round.unknownApplied + round.unknownNotApplied, 0);
  const restarts = rounds.map((round) => round.restartMs).sort((a, b) => a - b);
  console.log(
    `\n${rounds.length} rounds: ${acked} writes acknowledged (${allWrites.filter((w) => w.kind === 'create' && w.outcome === 'acked').length} creates, ${allWrites.filter((w) => w.kind === 'update' && w.outcome === 'acked').length} updates, ${allWrites.filter((w) => w.kind === 'delete' && w.outcome === 'acked').length} deletes), ` +
      `${inFlight} in flight at a kill (${rounds.reduce((s, r) => s + r.unknownApplied, 0)} found applied, ${rounds.reduce((s, r) => s + r.unknownNotApplied, 0)} not); ` +
      `restart median ${restarts[Math.floor(restarts.length / 2)]?.toFixed(0)} ms, max ${restarts.at(-1)?.toFixed(0)} ms; exit ${exit.code} after SIGTERM in ${exit.ms.toFixed(0)} ms`,
  );
  const goals = new Goals()
    .atLeast('rounds completed (SIGKILL, restart, checks)', rounds.length, o.rounds)
    .atMost('restarts that failed', failedStarts, 0)
    .atMost('acknowledged writes lost or changed', problems.lost.length, 0)
    .atMost('objects not wholly one write (torn)', problems.torn.length, 0)
    .atMost('objects or log entries no write made', problems.phantom.length, 0)
    .atMost('log disagreements (missing, out of order, not replaying to the state)', problems.log.length, 0)
    .atMost('resourceVersion order violations (real time)', order.count, 0)
    .atMost('writes not acknowledged while the server ran', problems.answers.length, 0)
    .atMost('exit code after SIGTERM', exit.code ?? Number.NaN, 0);
  console.log(`\n${goals.report('apiserver crash consistency')}`);
  return goals.exitCode;
}

/** The checks after a restart (see the module comment); settles every key to what was found. */
async function check(server: Apiserver, writes: Write[], startRv: number, startState: Map<string, { n: number; rv: number }>, allKeys: KeyModel[]): Promise<Omit<Round, 'writes' | 'killAfterMs' | 'restartMs'>> {
  const client = new ApiClient(targetOf(server), 4);
  try {
    const list = await client.call('GET', CLUSTERS);
    if (list.status !== 200) throw new Error(`list after restart: ${list.status} ${list.error ?? list.body}`);
    const listRv = Number(list.json.metadata.resourceVersion);
    const items = new Map<string, any>(list.json.items.map((item: any) => [item.metadata.name, item]));
    const inFlight = allKeys.filter((key) => key.unknown).map((key) => key.unknown!);
    let unknownApplied = 0;
    for (const key of allKeys) {
      const observed = items.get(key.name);
      if (observed) {
        const whole = writeOf(observed);
        if ('torn' in whole) note(problems.torn, `${key.name}: ${whole.torn}`);
      }
      const problem = key.check(observed);
      if (problem) note(problems.lost, problem);
      if (key.unknown) {
        const applied = key.unknown.kind === 'delete' ? observed === undefined && key.known.exists : observed !== undefined && Number(observed.metadata.labels.n) === key.unknown.n;
        if (applied) unknownApplied++;
      }
      key.settle(observed);
      items.delete(key.name);
    }
    for (const name of items.keys()) note(problems.phantom, `${name} is stored, and no writer wrote it`);

    // The revision log: a watch from the round's first resourceVersion replays the round.
    let logEvents = 0;
    if (listRv > startRv) {
      const stream = new WatchStream(client.target, `${CLUSTERS}?watch=true&resourceVersion=${startRv}&timeoutSeconds=60`);
      let status: number | 'none' = 'none';
      let end: StreamEnd | undefined;
      void stream.opened.then((s) => (status = s));
      void stream.ended.then((e) => (end = e));
      const deadline = performance.now() + 30_000;
      while (stream.lastRv < listRv && performance.now() < deadline) {
        if (stream.events.some((event) => event.type === 'ERROR')) break;
        await sleep(20);
      }
      stream.close();
      const events = stream.events;
      logEvents = events.length;
      if (events.some((event) => event.type === 'ERROR')) note(problems.log, `the watch from ${startRv} ended with an ERROR event`);
      else if (stream.lastRv < listRv) {
        const how = `status ${status}, ${stream.bytesRead} bytes read, ${end ? `ended by the ${end.by}${end.cut ? ', cut' : ''}${end.error ? ` (${end.error})` : ''}` : 'still open'}`;
        note(problems.log, `the watch from ${startRv} reached ${stream.lastRv}, not the list's ${listRv}, within 30 s (${how})`);
      }
      checkLog(events, writes, inFlight, startState, list.json.items, listRv);
    }
    const unknowns = inFlight.length;
    return { acked: writes.filter((write) => write.outcome === 'acked').length, unknownApplied, unknownNotApplied: unknowns - unknownApplied, objects: list.json.items.length, logEvents };
  } finally {
    client.close();
  }
}

function checkLog(events: WatchStream['events'], writes: Write[], inFlight: Write[], startState: Map<string, { n: number; rv: number }>, listed: any[], listRv: number): void {
  const typeOf = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
  const byRv = new Map(events.map((event) => [event.rv, event]));
  for (let i = 1; i < events.length; i++) {
    if (!(events[i]!.rv > events[i - 1]!.rv)) note(problems.log, `log entries out of order: ${events[i - 1]!.rv} then ${events[i]!.rv}`);
  }
  for (const event of events) if (event.rv > listRv) note(problems.log, `log entry ${event.rv} after the list's ${listRv}`);
  // What each write leaves in the log: its type, its key and the counter of the state it carries.
  const carried = (write: Write) => `${typeOf[write.kind]} ${write.name} #${write.kind === 'delete' ? write.prevN : write.n}`;
  const logged = new Map(events.map((event) => [`${event.type} ${event.name} #${event.n}`, event]));
  const explained = new Set<number>();
  for (const write of writes) {
    if (write.outcome !== 'acked') continue;
    // A delete is answered without a resourceVersion: its log entry is found by what it removed.
    const event = write.kind === 'delete' ? logged.get(carried(write)) : byRv.get(write.rv!);
    if (!event) {
      note(problems.lost, `acknowledged ${write.kind} of ${write.name} #${write.n}${write.rv ? ` at ${write.rv}` : ''} is not in the log`);
      continue;
    }
    if (write.kind === 'delete') write.rv = event.rv;
    else if (`${event.type} ${event.name} #${event.n}` !== carried(write)) {
      note(problems.lost, `the log holds ${event.type} ${event.name} #${event.n} at ${write.rv}, where ${carried(write)} was acknowledged`);
    }
    explained.add(event.rv);
  }
  const unexplainedInFlight = [...inFlight];
  for (const event of events) {
    if (explained.has(event.rv)) continue;
    const match = unexplainedInFlight.findIndex((write) => carried(write) === `${event.type} ${event.name} #${event.n}`);
    if (match < 0) note(problems.phantom, `log entry ${event.type} ${event.name} #${event.n} at ${event.rv}: no write made it`);
    else unexplainedInFlight.splice(match, 1);
  }
  // Replaying the round's log onto its first state gives the state listed.
  const state = new Map(startState);
  for (const event of events) {
    if (event.type === 'DELETED') state.delete(event.name);
    else state.set(event.name, { n: event.n!, rv: event.rv });
  }
  const listedState = new Map(listed.map((item) => [item.metadata.name as string, { n: Number(item.metadata.labels.n), rv: Number(item.metadata.resourceVersion) }]));
  const names = new Set([...state.keys(), ...listedState.keys()]);
  for (const name of names) {
    const replayed = state.get(name);
    const stored = listedState.get(name);
    if (replayed?.n !== stored?.n || replayed?.rv !== stored?.rv) {
      note(problems.log, `${name}: the log replays to ${replayed ? `#${replayed.n} at ${replayed.rv}` : 'absent'}, the store holds ${stored ? `#${stored.n} at ${stored.rv}` : 'nothing'}`);
    }
  }
}

process.exitCode = await main();
