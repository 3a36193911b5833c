/**
 * The durable write path with a journal the test controls: when writes become visible, how they
 * are grouped into batches, how compare-and-swap sees writes not yet durable, and what a failed
 * batch leaves behind.
 */
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../../src/apiserver/storage/embedded-store.js';
import type { ChangeEvent } from '../../../src/apiserver/storage/event-history.js';
import type { Journal } from '../../../src/apiserver/storage/group-commit.js';
import { StorageError, type StoredObject } from '../../../src/apiserver/storage/storage.js';
import { WatchCache } from '../../../src/apiserver/storage/watch-cache.js';

interface Batch {
  events: readonly ChangeEvent[];
  compactedRevision: number;
  succeed(): void;
  fail(error: Error): void;
}

/** A journal whose batches stay in flight until the test lets each succeed or fail. */
class HeldJournal implements Journal {
  readonly batches: Batch[] = [];
  closed = false;
  write(events: readonly ChangeEvent[], compactedRevision: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.batches.push({ events: [...events], compactedRevision, succeed: resolve, fail: reject });
    });
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Lets the current event-loop turn end and the batch it scheduled start (two turns: the test's own immediate may run first). */
const turn = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
};
const thing = (name: string, n = 0): StoredObject => ({ kind: 'Thing', metadata: { name }, spec: { n } });
const n = (object: StoredObject | undefined) => (object?.spec as { n: number } | undefined)?.n;

function open() {
  const journal = new HeldJournal();
  const store = new EmbeddedStore(new WatchCache({ revision: 1, compactedRevision: 0 }), journal);
  return { journal, store };
}

/** Settles `promise` into a value to inspect, without an unhandled rejection meanwhile. */
function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

describe('group commit', () => {
  it('acknowledges a write, and shows it to readers and watchers, only once its batch is durable', async () => {
    const { journal, store } = open();
    const watch = store.watch('/g/p/', { fromRevision: 1 });
    let acknowledged = false;
    const created = store.create('/g/p/a', thing('a')).then((object) => ((acknowledged = true), object));
    await turn();
    expect(journal.batches).toHaveLength(1);
    expect(acknowledged).toBe(false);
    expect(await store.get('/g/p/a')).toBeUndefined();
    expect((await store.list('/g/p/')).items).toEqual([]);
    expect(await store.currentRevision()).toBe(1);
    expect(watch.progressRevision()).toBe(1);

    journal.batches[0]!.succeed();
    const object = await created;
    expect(object.metadata).toMatchObject({ resourceVersion: '2' });
    expect(await store.get('/g/p/a')).toEqual(object);
    const event = await watch[Symbol.asyncIterator]().next();
    expect(event.value).toMatchObject({ type: 'ADDED', revision: 2 });
    watch.stop();
  });

  it('puts the writes of one event-loop turn in one batch, and those arriving meanwhile in the next', async () => {
    const { journal, store } = open();
    const first = Array.from({ length: 10 }, (_, i) => store.create(`/g/p/k${i}`, thing(`k${i}`)));
    await turn();
    expect(journal.batches.map((batch) => batch.events.length)).toEqual([10]);
    const second = Array.from({ length: 5 }, (_, i) => store.create(`/g/p/m${i}`, thing(`m${i}`)));
    await turn();
    await turn();
    expect(journal.batches).toHaveLength(1); // one batch at a time
    journal.batches[0]!.succeed();
    await Promise.all(first);
    await turn();
    expect(journal.batches.map((batch) => batch.events.map((event) => event.revision))).toEqual([
      [2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      [12, 13, 14, 15, 16],
    ]);
    journal.batches[1]!.succeed();
    await Promise.all(second);
    expect(await store.currentRevision()).toBe(16);
    expect(store.commitStats()).toEqual({ batches: 2, writes: 15 });
  });

  it('compares a write with the pending ones before it, in its batch or an earlier one, so no update is lost', async () => {
    const { journal, store } = open();
    const created = store.create('/g/p/a', thing('a', 0));
    await turn();
    journal.batches[0]!.succeed();
    await created;

    const seen: (number | undefined)[] = [];
    const increment = () =>
      store.guaranteedUpdate('/g/p/a', (current) => {
        seen.push(n(current));
        return { ...current, spec: { n: n(current)! + 1 } };
      });
    const first = increment();
    const second = increment(); // in the same turn: reads 0 too, loses the swap to the pending first, retries from it
    await turn();
    expect(journal.batches.map((batch) => batch.events.map((event) => event.revision))).toEqual([[2], [3, 4]]);
    const third = increment(); // while that batch is in flight: the next batch, computed from both
    await turn();
    expect(seen).toEqual([0, 0, 1, 2]);
    expect(n(await store.get('/g/p/a'))).toBe(0); // readers still see only what is durable
    await storageCode(store.guaranteedUpdate('/g/p/a', (c) => c, { preconditions: { resourceVersion: '2' } }), 'Conflict');

    journal.batches[1]!.succeed();
    expect([n((await first).object), n((await second).object)]).toEqual([1, 2]);
    await turn();
    expect(journal.batches[2]!.events.map((event) => event.revision)).toEqual([5]);
    journal.batches[2]!.succeed();
    expect(n((await third).object)).toBe(3);
    expect(n(await store.get('/g/p/a'))).toBe(3);
  });

  it('fails every write of a failed batch and of the batches queued behind it, and keeps memory as it was durable', async () => {
    const { journal, store } = open();
    const created = store.create('/g/p/a', thing('a', 0));
    await turn();
    journal.batches[0]!.succeed();
    const durable = await created;
    const watch = store.watch('/g/p/', { fromRevision: 1 });

    const inBatch = [
      settle(store.guaranteedUpdate('/g/p/a', (current) => ({ ...current, spec: { n: 1 } }))),
      settle(store.create('/g/p/b', thing('b'))),
    ];
    await turn();
    const queued = settle(store.guaranteedUpdate('/g/p/a', (current) => ({ ...current, spec: { n: n(current)! + 1 } })));
    await turn();
    expect(journal.batches).toHaveLength(2);
    journal.batches[1]!.fail(new Error('EIO: i/o error, write'));

    for (const { error } of [...(await Promise.all(inBatch)), await queued]) {
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('Unavailable');
      expect((error as StorageError).message).toContain('EIO');
    }
    expect(journal.batches).toHaveLength(2); // the queued write never reached the disk
    expect(await store.get('/g/p/a')).toEqual(durable);
    expect(await store.get('/g/p/b')).toBeUndefined();
    expect(await store.currentRevision()).toBe(2);
    expect(store.ready()).toBe(false);
    await storageCode(store.create('/g/p/c', thing('c')), 'Unavailable');
    await storageCode(store.guaranteedUpdate('/g/p/a', (c) => ({ ...c, spec: { n: 5 } })), 'Unavailable');
    await storageCode(store.delete('/g/p/a'), 'Unavailable');
    expect(journal.batches).toHaveLength(2);

    const first = await watch[Symbol.asyncIterator]().next();
    expect(first.value).toMatchObject({ type: 'ADDED', revision: 2 });
    expect(watch.progressRevision()).toBe(2);
    watch.stop();
  });

  it('waits on close for the writes in flight, then releases the journal', async () => {
    const { journal, store } = open();
    const created = store.create('/g/p/a', thing('a'));
    await turn();
    let closed = false;
    const closing = store.close().then(() => (closed = true));
    await turn();
    expect(closed).toBe(false);
    expect(journal.closed).toBe(false);
    journal.batches[0]!.succeed();
    await closing;
    expect(journal.closed).toBe(true);
    expect((await created).metadata).toMatchObject({ resourceVersion: '2' });
  });

  it('hands each batch the compaction to persist with it', async () => {
    const journal = new HeldJournal();
    const store = new EmbeddedStore(new WatchCache({ revision: 1, compactedRevision: 0, retention: { minEvents: 2, maxEvents: 3 } }), journal);
    for (let i = 0; i < 5; i++) {
      const created = store.create(`/g/p/k${i}`, thing(`k${i}`));
      await turn();
      journal.batches[i]!.succeed();
      await created;
    }
    expect(journal.batches.map((batch) => batch.compactedRevision)).toEqual([0, 0, 0, 0, 2]); // evicted by the 4th, written with the 5th
    expect(store.cache.history.compactedRevision).toBe(3);
  });
});

async function storageCode(promise: Promise<unknown>, code: string): Promise<void> {
  const { error } = await settle(promise);
  expect(error).toBeInstanceOf(StorageError);
  expect((error as StorageError).code).toBe(code);
}
