/**
 * Durability of the embedded store against a crash: a child process writes continuously and
 * reports each acknowledged write; the test kills it with SIGKILL at a random moment, reopens the
 * directory and checks that every acknowledged write is there at its revision, that the objects
 * and the revision log agree (no half of a write), and that revisions are ordered. Then it tears
 * the tail of LevelDB's write-ahead log, as a power loss before the last sync would, and checks
 * that the store opens on a whole prefix of the writes.
 *
 * SIGKILL loses the process, not the operating system's page cache: a power loss is covered by
 * the writes being synced (sync: true, fdatasync) before they are acknowledged, which this test
 * cannot cut; the torn-tail check covers what such a loss leaves of an unsynced write.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDurableStorage } from '../../../src/apiserver/storage/durable.js';
import type { EmbeddedStore } from '../../../src/apiserver/storage/embedded-store.js';
import type { StoredObject, WatchEvent } from '../../../src/apiserver/storage/storage.js';
import { transpileForChild, type ChildModule } from './child-module.js';

const prefix = '/durability.example/things/ns/'; // as durability-writer.ts writes
const rounds = 4;

interface Ack {
  key: string;
  revision: number;
  n: number;
}

let writer: ChildModule;
let directory: string;

beforeAll(async () => {
  writer = await transpileForChild(fileURLToPath(new URL('./durability-writer.ts', import.meta.url)));
  directory = await mkdtemp(join(tmpdir(), 'fleetgate-durability-'));
});

afterAll(async () => {
  await writer?.dispose();
  if (directory) await rm(directory, { recursive: true, force: true });
});

/** Runs the writer until it has reported `minimum` writes and a random while more, then kills it with SIGKILL. */
async function writeThenKill(round: number, minimum: number, random: () => number): Promise<Ack[]> {
  const child = spawn(process.execPath, [writer.file, directory, String(round), String(Math.floor(random() * 2 ** 32))], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks: Ack[] = [];
  let partial = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`the writer reported ${acks.length} writes in 30 s: ${errors}`)), 30_000);
    child.on('exit', (code) => reject(new Error(`the writer exited (${code}) by itself: ${errors}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) acks.push(JSON.parse(line) as Ack);
      if (acks.length >= minimum) {
        clearTimeout(guard);
        setTimeout(resolve, Math.floor(random() * 250));
      }
    });
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return acks;
}

/** Every logged change, oldest first (the whole log is kept: the test writes far fewer than the retention). */
async function logOf(store: EmbeddedStore): Promise<WatchEvent[]> {
  const current = await store.currentRevision();
  const events: WatchEvent[] = [];
  if (current === store.cache.history.compactedRevision) return events;
  const watch = store.watch(prefix, { fromRevision: store.cache.history.compactedRevision });
  for await (const event of watch) {
    events.push(event);
    if (event.revision === current) break;
  }
  return events;
}

/**
 * The objects and the log agree: replaying the log from an empty store gives exactly the objects,
 * revisions run 2, 3, 4… with no gap, and each object's resourceVersion is its newest logged change.
 */
async function expectWholeWrites(store: EmbeddedStore): Promise<WatchEvent[]> {
  expect(store.cache.history.compactedRevision).toBe(0);
  const log = await logOf(store);
  expect(log.map((event) => event.revision)).toEqual(Array.from({ length: log.length }, (_, i) => i + 2));
  const replayed = new Map<string, StoredObject>();
  for (const event of log) {
    if (event.type === 'DELETED') replayed.delete(event.key);
    else {
      expect(event.type === 'ADDED').toBe(!replayed.has(event.key));
      replayed.set(event.key, event.object);
    }
  }
  const list = await store.list(prefix);
  expect(list.revision).toBe(log.length + 1);
  expect(list.items).toEqual([...replayed.keys()].sort().map((key) => replayed.get(key)));
  return log;
}

/** Every acknowledged write is in the log at its revision, holding what was acknowledged. */
function expectAcknowledged(log: WatchEvent[], acks: Ack[]): void {
  const byRevision = new Map(log.map((event) => [event.revision, event]));
  for (const ack of acks) {
    const event = byRevision.get(ack.revision);
    expect(event, `acknowledged write at revision ${ack.revision} to ${ack.key}`).toBeDefined();
    expect(event!.key).toBe(ack.key);
    expect((event!.object.spec as { n: number }).n).toBe(ack.n);
  }
  const perKey = new Map<string, number[]>();
  for (const ack of acks) perKey.set(ack.key, [...(perKey.get(ack.key) ?? []), ack.revision]);
  for (const revisions of perKey.values()) expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
}

const summary = (event: WatchEvent) => ({ type: event.type, key: event.key, revision: event.revision, spec: event.object.spec });

/** A seeded generator, printed on failure, so a failing run can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

describe('the durable store after SIGKILL', () => {
  const seed = Number(process.env.FLEETGATE_DURABILITY_SEED ?? Date.now() % 1_000_000);

  it(`keeps every acknowledged write whole, at its revision, across ${rounds} kills (seed ${seed})`, { timeout: 180_000 }, async () => {
    const next = random(seed);
    const acks: Ack[] = [];
    for (let round = 0; round < rounds; round++) {
      acks.push(...(await writeThenKill(round, 40 + Math.floor(next() * 200), next)));
      const store = await openDurableStorage({ directory });
      try {
        const log = await expectWholeWrites(store);
        expectAcknowledged(log, acks);
        expect(await store.currentRevision()).toBeGreaterThanOrEqual(Math.max(...acks.map((ack) => ack.revision)));
      } finally {
        await store.close();
      }
    }
  });

  it(`opens on a whole prefix of the writes when the write-ahead log's tail is torn (seed ${seed})`, { timeout: 120_000 }, async () => {
    const next = random(seed + 1);
    await writeThenKill(rounds, 100, next);
    // Opening replays LevelDB's log into a table and starts a new log: tear copies of the directory as the kill left it.
    const crashed = await mkdtemp(join(tmpdir(), 'fleetgate-crashed-'));
    await cp(directory, crashed, { recursive: true });
    const whole = await openDurableStorage({ directory });
    const full = (await expectWholeWrites(whole)).map(summary);
    await whole.close();
    for (let tear = 0; tear < 3; tear++) {
      const copy = await mkdtemp(join(tmpdir(), 'fleetgate-torn-'));
      try {
        await cp(crashed, copy, { recursive: true });
        const logs = (await readdir(copy)).filter((name) => name.endsWith('.log') && name !== 'LOG').sort();
        const newest = join(copy, logs[logs.length - 1]!);
        const { size } = await stat(newest);
        await truncate(newest, Math.floor(size * (0.2 + next() * 0.79)));
        const store = await openDurableStorage({ directory: copy });
        try {
          const torn = (await expectWholeWrites(store)).map(summary);
          expect(torn.length).toBeLessThan(full.length);
          expect(torn).toEqual(full.slice(0, torn.length));
        } finally {
          await store.close();
        }
      } finally {
        await rm(copy, { recursive: true, force: true });
      }
    }
    await rm(crashed, { recursive: true, force: true });
  });
});
