/**
 * The storage contract's conformance suite: every backend (memory, the embedded LevelDB store,
 * etcd) runs it unchanged through describeStorageConformance(name, factory). It registers vitest
 * tests for every method and error code, the order of watch events, lists at older revisions and
 * paging across writes, dry runs, no-op writes, slow watchers and, where the factory can force it,
 * compaction.
 *
 * Tests use keys under /conformance.example/things/ (namespaced) and /conformance.example/tops/
 * (cluster-scoped). They never assume a write bumps the revision by exactly one (etcd's revision is
 * global), only that revisions increase and that an object's resourceVersion is its write's revision.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seeded } from '../../seeded.js';
import {
  NO_CHANGE,
  StorageError,
  type Key,
  type Storage,
  type StorageErrorCode,
  type StoredObject,
  type Watch,
  type WatchEvent,
} from '../../../src/apiserver/storage/storage.js';

export interface StorageUnderTest {
  storage: Storage;
  /** Lets go of the history at or before `revision` now, as etcd's compaction does. Absent: those tests skip. */
  compact?(revision: number): Promise<void> | void;
  /** Releases what the factory made (a temporary directory, a server); called after storage.close(). */
  cleanup?(): Promise<void>;
}

export interface FactoryOptions {
  /** How many live events a watch may buffer before its slow consumer is ended with TooSlow. */
  watchBufferSize: number;
}

export type StorageFactory = (options: FactoryOptions) => Promise<StorageUnderTest>;

const things = '/conformance.example/things/';
const ns1 = `${things}ns1/`;
const ns10 = `${things}ns10/`;
const tops = '/conformance.example/tops/';

/** An object as the API server would store it. */
const thing = (name: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): StoredObject => ({
  apiVersion: 'conformance.example/v1',
  kind: 'Thing',
  metadata: { name, namespace: 'ns1', uid: `uid-${name}` },
  spec,
  ...extra,
});

const rv = (object: StoredObject | undefined): string | undefined =>
  (object?.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
const revisionOf = (object: StoredObject): number => Number(rv(object));
const specOf = (object: StoredObject | undefined): unknown => object?.spec;
const metadataOf = (object: StoredObject): Record<string, unknown> => object.metadata as Record<string, unknown>;

/** The storage error `promise` rejects with, after checking its code. */
async function storageError(promise: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected StorageError ${code}`).toBeInstanceOf(StorageError);
  expect((error as StorageError).code).toBe(code);
  return error as StorageError;
}

/** The next `count` events of `watch`, failing (not hanging) when they do not come within `ms`. */
async function take(watch: Watch, count: number, ms = 5_000): Promise<WatchEvent[]> {
  const iterator = watch[Symbol.asyncIterator]();
  const events: WatchEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`only ${events.length} of ${count} watch events came within ${ms} ms`)), ms);
  });
  try {
    while (events.length < count) {
      const result = await Promise.race([iterator.next(), timeout]);
      if (result.done) throw new Error(`the watch ended after ${events.length} of ${count} events`);
      events.push(result.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return events;
}

/** How the watch ends: done, or the error it ends with; fails after `ms`. Consumes any events first. */
async function ending(watch: Watch, ms = 5_000): Promise<{ events: WatchEvent[]; error?: unknown }> {
  const iterator = watch[Symbol.asyncIterator]();
  const events: WatchEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the watch did not end within ${ms} ms (${events.length} events)`)), ms);
  });
  try {
    for (;;) {
      const result = await Promise.race([iterator.next(), timeout]);
      if (result.done) return { events };
      events.push(result.value);
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('the watch did not end')) throw error;
    return { events, error };
  } finally {
    clearTimeout(timer);
  }
}

const summary = (event: WatchEvent) => ({ type: event.type, key: event.key, revision: event.revision, spec: specOf(event.object) });


export function describeStorageConformance(name: string, factory: StorageFactory): void {
  describe(`storage conformance: ${name}`, () => {
    let sut: StorageUnderTest;
    let storage: Storage;
    const extra: StorageUnderTest[] = [];

    /** Another instance (a different watch buffer), closed after the test. */
    const open = async (options: FactoryOptions): Promise<StorageUnderTest> => {
      const opened = await factory(options);
      extra.push(opened);
      return opened;
    };

    beforeEach(async () => {
      sut = await factory({ watchBufferSize: 1_000 });
      storage = sut.storage;
    });

    afterEach(async () => {
      for (const opened of [sut, ...extra.splice(0)]) {
        await opened.storage.close();
        await opened.cleanup?.();
      }
    });

    describe('create', () => {
      it('stores the object and stamps it with the revision of the write', async () => {
        const before = await storage.currentRevision();
        expect(before).toBeGreaterThan(0);
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        expect(revisionOf(created)).toBeGreaterThan(before);
        expect(await storage.currentRevision()).toBe(revisionOf(created));
        expect(created).toEqual({ ...thing('a', { n: 1 }), metadata: { ...metadataOf(thing('a')), resourceVersion: rv(created) } });
        expect(await storage.get(`${ns1}a`)).toEqual(created);
      });

      it('answers KeyExists for a key that exists, and leaves it as it was', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const error = await storageError(storage.create(`${ns1}a`, thing('a', { n: 2 })), 'KeyExists');
        expect(error.key).toBe(`${ns1}a`);
        expect(await storage.get(`${ns1}a`)).toEqual(created);
        expect(await storage.currentRevision()).toBe(revisionOf(created));
      });

      it('stores the revision it assigns, never a resourceVersion the object came with', async () => {
        const object = thing('a');
        metadataOf(object).resourceVersion = '999999';
        const created = await storage.create(`${ns1}a`, object);
        expect(rv(created)).not.toBe('999999');
        expect(rv(await storage.get(`${ns1}a`))).toBe(rv(created));
        expect(rv(object)).toBe('999999'); // the caller's object is not touched
      });

      it('keeps no reference to the object it was given nor to the one it answers', async () => {
        const object = thing('a', { list: [1, 2] });
        const created = await storage.create(`${ns1}a`, object);
        (object.spec as { list: number[] }).list.push(3);
        (created.spec as { list: number[] }).list.push(4);
        metadataOf(created).name = 'changed';
        expect(await storage.get(`${ns1}a`)).toEqual({ ...thing('a', { list: [1, 2] }), metadata: { ...metadataOf(thing('a')), resourceVersion: rv(created) } });
      });

      it('in a dry run answers the object without a resourceVersion and stores nothing', async () => {
        const before = await storage.currentRevision();
        const watch = storage.watch(ns1, { fromRevision: before });
        const answered = await storage.create(`${ns1}a`, thing('a', { n: 1 }), { dryRun: true });
        expect(answered).toEqual(thing('a', { n: 1 }));
        expect(rv(answered)).toBeUndefined();
        expect(await storage.get(`${ns1}a`)).toBeUndefined();
        expect(await storage.currentRevision()).toBe(before);
        const real = await storage.create(`${ns1}b`, thing('b'));
        expect((await take(watch, 1)).map(summary)).toEqual([{ type: 'ADDED', key: `${ns1}b`, revision: revisionOf(real), spec: {} }]);
        watch.stop();
      });

      it('in a dry run still answers KeyExists', async () => {
        await storage.create(`${ns1}a`, thing('a'));
        await storageError(storage.create(`${ns1}a`, thing('a'), { dryRun: true }), 'KeyExists');
      });
    });

    describe('get', () => {
      it('answers undefined for a missing key', async () => {
        expect(await storage.get(`${ns1}missing`)).toBeUndefined();
      });

      it('answers a fresh copy each time', async () => {
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const first = (await storage.get(`${ns1}a`))!;
        first.spec = { n: 2 };
        expect(specOf(await storage.get(`${ns1}a`))).toEqual({ n: 1 });
      });

      it('reads a cluster-scoped key beside namespaced ones', async () => {
        await storage.create(`${tops}x`, { kind: 'Top', metadata: { name: 'x' } });
        expect((await storage.get(`${tops}x`))?.kind).toBe('Top');
      });
    });

    describe('guaranteedUpdate', () => {
      it('calls the function with the current object and writes its answer at a new revision', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        let seen: StoredObject | undefined;
        const result = await storage.guaranteedUpdate(`${ns1}a`, (current) => {
          seen = structuredClone(current);
          return { ...current, spec: { n: 2 } };
        });
        expect(seen).toEqual(created);
        expect(result.changed).toBe(true);
        expect(specOf(result.object)).toEqual({ n: 2 });
        expect(revisionOf(result.object)).toBeGreaterThan(revisionOf(created));
        expect(await storage.currentRevision()).toBe(revisionOf(result.object));
        expect(await storage.get(`${ns1}a`)).toEqual(result.object);
      });

      it('answers KeyNotFound for a missing key without calling the function', async () => {
        let called = false;
        await storageError(
          storage.guaranteedUpdate(`${ns1}missing`, (current) => ((called = true), current)),
          'KeyNotFound',
        );
        expect(called).toBe(false);
      });

      it('answers Conflict when the uid precondition does not hold, and accepts the right uid', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const error = await storageError(
          storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 2 } }), { preconditions: { uid: 'other' } }),
          'Conflict',
        );
        expect(error.revision).toBe(revisionOf(created));
        expect(specOf(await storage.get(`${ns1}a`))).toEqual({ n: 1 });
        const ok = await storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 2 } }), { preconditions: { uid: 'uid-a' } });
        expect(ok.changed).toBe(true);
      });

      it('answers Conflict when the resourceVersion precondition is stale, and accepts the current one', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const updated = await storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 2 } }));
        const error = await storageError(
          storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 3 } }), { preconditions: { resourceVersion: rv(created) } }),
          'Conflict',
        );
        expect(error.revision).toBe(revisionOf(updated.object));
        const ok = await storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 3 } }), {
          preconditions: { resourceVersion: rv(updated.object) },
        });
        expect(specOf(ok.object)).toEqual({ n: 3 });
      });

      it('writes nothing when the function answers NO_CHANGE: same resourceVersion, no revision, no event', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const watch = storage.watch(ns1, { fromRevision: revisionOf(created) });
        const result = await storage.guaranteedUpdate(`${ns1}a`, () => NO_CHANGE);
        expect(result).toEqual({ object: created, changed: false });
        expect(await storage.currentRevision()).toBe(revisionOf(created));
        const next = await storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 2 } }));
        expect((await take(watch, 1)).map(summary)).toEqual([{ type: 'MODIFIED', key: `${ns1}a`, revision: revisionOf(next.object), spec: { n: 2 } }]);
        watch.stop();
      });

      it('writes nothing when the answer is equal JSON (keys reordered, resourceVersion kept or dropped)', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { x: 1, y: [1, { z: 2 }] }));
        const reordered = await storage.guaranteedUpdate(`${ns1}a`, (current) => {
          const { spec, metadata, ...rest } = current;
          return { spec: { y: [1, { z: 2 }], x: 1 }, ...rest, metadata: { ...(metadata as object), resourceVersion: undefined } };
        });
        expect(reordered).toEqual({ object: created, changed: false });
        const same = await storage.guaranteedUpdate(`${ns1}a`, (current) => current);
        expect(same).toEqual({ object: created, changed: false });
        expect(await storage.currentRevision()).toBe(revisionOf(created));
        const changed = await storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { x: 1, y: [{ z: 2 }, 1] } }));
        expect(changed.changed).toBe(true);
      });

      it('lets an error thrown by the function through and writes nothing', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const refusal = new Error('refused by admission');
        await expect(
          storage.guaranteedUpdate(`${ns1}a`, async () => {
            throw refusal;
          }),
        ).rejects.toBe(refusal);
        expect(await storage.get(`${ns1}a`)).toEqual(created);
      });

      it('in a dry run answers the new object with the current resourceVersion and stores nothing', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const watch = storage.watch(ns1, { fromRevision: revisionOf(created) });
        const result = await storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 2 } }), { dryRun: true });
        expect(result.changed).toBe(true);
        expect(specOf(result.object)).toEqual({ n: 2 });
        expect(rv(result.object)).toBe(rv(created));
        expect(await storage.get(`${ns1}a`)).toEqual(created);
        expect(await storage.currentRevision()).toBe(revisionOf(created));
        const real = await storage.create(`${ns1}b`, thing('b'));
        expect((await take(watch, 1)).map(summary)).toEqual([{ type: 'ADDED', key: `${ns1}b`, revision: revisionOf(real), spec: {} }]);
        watch.stop();
      });

      it('in a dry run still checks preconditions and answers KeyNotFound', async () => {
        await storage.create(`${ns1}a`, thing('a'));
        await storageError(
          storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { n: 2 } }), { dryRun: true, preconditions: { uid: 'other' } }),
          'Conflict',
        );
        await storageError(storage.guaranteedUpdate(`${ns1}missing`, (c) => c, { dryRun: true }), 'KeyNotFound');
      });

      it('calls the function again with the fresh object when the key was written while it ran', async () => {
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const seen: unknown[] = [];
        let interfered = false;
        const result = await storage.guaranteedUpdate(`${ns1}a`, async (current) => {
          seen.push(specOf(current));
          if (!interfered) {
            interfered = true;
            await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { n: 10 } }));
          }
          return { ...current, spec: { n: (current.spec as { n: number }).n + 1 } };
        });
        expect(seen).toEqual([{ n: 1 }, { n: 10 }]);
        expect(specOf(result.object)).toEqual({ n: 11 });
        expect(specOf(await storage.get(`${ns1}a`))).toEqual({ n: 11 });
      });

      it('re-checks preconditions on the fresh object: a resourceVersion precondition fails once the key moved', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        let calls = 0;
        const error = await storageError(
          storage.guaranteedUpdate(
            `${ns1}a`,
            async (current) => {
              if (calls++ === 0) await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { n: 10 } }));
              return { ...current, spec: { n: 2 } };
            },
            { preconditions: { resourceVersion: rv(created) } },
          ),
          'Conflict',
        );
        expect(error.key).toBe(`${ns1}a`);
        expect(specOf(await storage.get(`${ns1}a`))).toEqual({ n: 10 });
      });

      it('answers KeyNotFound when the key was deleted while the function ran', async () => {
        await storage.create(`${ns1}a`, thing('a'));
        await storageError(
          storage.guaranteedUpdate(`${ns1}a`, async (current) => {
            await storage.delete(`${ns1}a`);
            return { ...current, spec: { n: 2 } };
          }),
          'KeyNotFound',
        );
        expect(await storage.get(`${ns1}a`)).toBeUndefined();
      });

      it('loses no update among many concurrent ones, each at its own revision', async () => {
        await storage.create(`${ns1}counter`, thing('counter', { n: 0 }));
        const results = await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            storage.guaranteedUpdate(`${ns1}counter`, async (current) => {
              await new Promise((resolve) => setTimeout(resolve, i % 3));
              return { ...current, spec: { n: (current.spec as { n: number }).n + 1 } };
            }),
          ),
        );
        expect(specOf(await storage.get(`${ns1}counter`))).toEqual({ n: 25 });
        const written = results.map((result) => (result.object.spec as { n: number }).n).sort((a, b) => a - b);
        expect(written).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
        expect(new Set(results.map((result) => rv(result.object))).size).toBe(25);
      });

      it('answers objects that share nothing with the store', async () => {
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const result = await storage.guaranteedUpdate(`${ns1}a`, (current) => ({ ...current, spec: { n: 2 } }));
        (result.object.spec as { n: number }).n = 99;
        expect(specOf(await storage.get(`${ns1}a`))).toEqual({ n: 2 });
        const object = { ...thing('a'), spec: { list: [1] } };
        await storage.guaranteedUpdate(`${ns1}a`, () => object);
        object.spec.list.push(2);
        expect(specOf(await storage.get(`${ns1}a`))).toEqual({ list: [1] });
      });
    });

    describe('delete', () => {
      it('removes the key and answers its last state stamped with the deletion revision', async () => {
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const deleted = await storage.delete(`${ns1}a`);
        expect(revisionOf(deleted)).toBeGreaterThan(revisionOf(created));
        expect({ ...deleted, metadata: { ...metadataOf(deleted), resourceVersion: rv(created) } }).toEqual(created);
        expect(await storage.currentRevision()).toBe(revisionOf(deleted));
        expect(await storage.get(`${ns1}a`)).toBeUndefined();
      });

      it('answers KeyNotFound for a missing key', async () => {
        await storageError(storage.delete(`${ns1}missing`), 'KeyNotFound');
        await storage.create(`${ns1}a`, thing('a'));
        await storage.delete(`${ns1}a`);
        await storageError(storage.delete(`${ns1}a`), 'KeyNotFound');
      });

      it('answers Conflict when a precondition does not hold, and keeps the object', async () => {
        const created = await storage.create(`${ns1}a`, thing('a'));
        await storageError(storage.delete(`${ns1}a`, { preconditions: { uid: 'other' } }), 'Conflict');
        await storageError(storage.delete(`${ns1}a`, { preconditions: { resourceVersion: '1' } }), 'Conflict');
        expect(await storage.get(`${ns1}a`)).toEqual(created);
        const deleted = await storage.delete(`${ns1}a`, { preconditions: { uid: 'uid-a', resourceVersion: rv(created) } });
        expect(metadataOf(deleted).name).toBe('a');
      });

      it('lets validateDeletion refuse, and keeps the object', async () => {
        const created = await storage.create(`${ns1}a`, thing('a'));
        let seen: StoredObject | undefined;
        const refusal = new Error('has finalizers');
        await expect(
          storage.delete(`${ns1}a`, {
            validateDeletion: (current) => {
              seen = current;
              throw refusal;
            },
          }),
        ).rejects.toBe(refusal);
        expect(seen).toEqual(created);
        expect(await storage.get(`${ns1}a`)).toEqual(created);
      });

      it('validates again against the fresh object when the key was written during validateDeletion', async () => {
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const seen: unknown[] = [];
        const deleted = await storage.delete(`${ns1}a`, {
          validateDeletion: async (current) => {
            seen.push(specOf(current));
            if (seen.length === 1) await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { n: 2 } }));
          },
        });
        expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
        expect(specOf(deleted)).toEqual({ n: 2 });
      });

      it('in a dry run answers the object at its current resourceVersion and keeps it', async () => {
        const created = await storage.create(`${ns1}a`, thing('a'));
        const watch = storage.watch(ns1, { fromRevision: revisionOf(created) });
        expect(await storage.delete(`${ns1}a`, { dryRun: true })).toEqual(created);
        expect(await storage.get(`${ns1}a`)).toEqual(created);
        expect(await storage.currentRevision()).toBe(revisionOf(created));
        await storageError(storage.delete(`${ns1}a`, { dryRun: true, preconditions: { uid: 'other' } }), 'Conflict');
        await storageError(storage.delete(`${ns1}missing`, { dryRun: true }), 'KeyNotFound');
        const real = await storage.delete(`${ns1}a`);
        expect((await take(watch, 1)).map(summary)).toEqual([{ type: 'DELETED', key: `${ns1}a`, revision: revisionOf(real), spec: {} }]);
        watch.stop();
      });

      it('lets a deleted key be created again', async () => {
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        await storage.delete(`${ns1}a`);
        const again = await storage.create(`${ns1}a`, thing('a', { n: 2 }));
        expect(await storage.get(`${ns1}a`)).toEqual(again);
      });
    });

    describe('list', () => {
      const names = ['b', 'a', 'e', 'c', 'd'];
      const createAll = async () => {
        for (const name of names) await storage.create(`${ns1}${name}`, thing(name, { name }));
      };

      it('lists the keys under a prefix in key order at the current revision, and no other prefix', async () => {
        await createAll();
        await storage.create(`${ns10}z`, thing('z'));
        await storage.create(`${tops}t`, { kind: 'Top', metadata: { name: 't' } });
        const list = await storage.list(ns1);
        expect(list.items.map((item) => metadataOf(item).name)).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(list.revision).toBe(await storage.currentRevision());
        expect(list.continueKey).toBeUndefined();
        expect((await storage.list(things)).items).toHaveLength(6);
        expect((await storage.list(`${things}ns2/`)).items).toEqual([]);
        for (const item of list.items) expect(item).toEqual(await storage.get(`${ns1}${String(metadataOf(item).name)}`));
      });

      it('pages with limit and continueKey, counting what remains', async () => {
        await createAll();
        const first = await storage.list(ns1, { limit: 2 });
        expect(first.items.map((item) => metadataOf(item).name)).toEqual(['a', 'b']);
        expect(first.continueKey).toBe(`${ns1}c`);
        if (first.remainingItemCount !== undefined) expect(first.remainingItemCount).toBe(3);
        const second = await storage.list(ns1, { limit: 2, startKey: first.continueKey, revision: first.revision });
        expect(second.items.map((item) => metadataOf(item).name)).toEqual(['c', 'd']);
        expect(second.continueKey).toBe(`${ns1}e`);
        if (second.remainingItemCount !== undefined) expect(second.remainingItemCount).toBe(1);
        const last = await storage.list(ns1, { limit: 2, startKey: second.continueKey, revision: first.revision });
        expect(last.items.map((item) => metadataOf(item).name)).toEqual(['e']);
        expect(last.continueKey).toBeUndefined();
        const exact = await storage.list(ns1, { limit: 5 });
        expect(exact.items).toHaveLength(5);
        expect(exact.continueKey).toBeUndefined();
        expect((await storage.list(ns1, { limit: 0 })).items).toHaveLength(5);
        expect((await storage.list(ns1, { startKey: `${ns1}z` })).items).toEqual([]);
      });

      it('applies the predicate before the limit', async () => {
        await createAll();
        const even = (object: StoredObject) => ['b', 'd', 'e'].includes(String(metadataOf(object).name));
        const first = await storage.list(ns1, { limit: 2, predicate: even });
        expect(first.items.map((item) => metadataOf(item).name)).toEqual(['b', 'd']);
        expect(first.continueKey).toBe(`${ns1}e`);
        const rest = await storage.list(ns1, { limit: 2, predicate: even, startKey: first.continueKey, revision: first.revision });
        expect(rest.items.map((item) => metadataOf(item).name)).toEqual(['e']);
        expect(rest.continueKey).toBeUndefined();
        expect((await storage.list(ns1, { predicate: () => false })).items).toEqual([]);
      });

      it('lists exactly at an older revision across creates, updates and deletes', async () => {
        await storage.create(`${ns1}a`, thing('a', { v: 1 }));
        await storage.create(`${ns1}b`, thing('b', { v: 1 }));
        const at = await storage.currentRevision();
        const before = await storage.list(ns1);
        await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { v: 2 } }));
        await storage.delete(`${ns1}b`);
        await storage.create(`${ns1}c`, thing('c', { v: 1 }));
        await storage.create(`${ns1}b`, thing('b', { v: 3 }));
        await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { v: 3 } }));
        const then = await storage.list(ns1, { revision: at });
        expect(then.revision).toBe(at);
        expect(then.items).toEqual(before.items);
        const now = await storage.list(ns1);
        expect(now.items.map((item) => [metadataOf(item).name, specOf(item)])).toEqual([
          ['a', { v: 3 }],
          ['b', { v: 3 }],
          ['c', { v: 1 }],
        ]);
      });

      it('answers every kept revision exactly, whole and in pages, after a random sequence of writes', async () => {
        const next = seeded(23);
        const keys = Array.from({ length: 12 }, (_, i) => `${ns1}k${String(i).padStart(2, '0')}`);
        const state = new Map<Key, StoredObject>();
        const snapshots: { revision: number; items: StoredObject[] }[] = [];
        const snapshot = async () =>
          snapshots.push({ revision: await storage.currentRevision(), items: [...state.keys()].sort().map((key) => state.get(key)!) });
        await snapshot();
        for (let step = 0; step < 150; step++) {
          const key = keys[Math.floor(next() * keys.length)]!;
          const name = key.slice(ns1.length);
          if (!state.has(key)) state.set(key, await storage.create(key, thing(name, { step })));
          else if (next() < 0.3) {
            await storage.delete(key);
            state.delete(key);
          } else state.set(key, (await storage.guaranteedUpdate(key, (c) => ({ ...c, spec: { step } }))).object);
          await snapshot();
        }
        for (const { revision, items } of snapshots) {
          const whole = await storage.list(ns1, { revision });
          expect(whole.items, `at revision ${revision}`).toEqual(items);
          const paged: StoredObject[] = [];
          let startKey: Key | undefined;
          do {
            const page = await storage.list(ns1, { revision, limit: 3, startKey });
            expect(page.revision).toBe(revision);
            paged.push(...page.items);
            if (page.remainingItemCount !== undefined) expect(page.remainingItemCount).toBe(items.length - paged.length);
            startKey = page.continueKey;
          } while (startKey !== undefined);
          expect(paged, `paged at revision ${revision}`).toEqual(items);
        }
      });

      it('keeps the pages of one list consistent while writes go on between them', async () => {
        for (const name of ['b', 'd', 'f', 'h', 'j']) await storage.create(`${ns1}${name}`, thing(name, { v: 1 }));
        const whole = await storage.list(ns1);
        const first = await storage.list(ns1, { limit: 2 });
        await Promise.all([
          storage.create(`${ns1}a`, thing('a')),
          storage.create(`${ns1}e`, thing('e')),
          storage.delete(`${ns1}f`),
          storage.guaranteedUpdate(`${ns1}h`, (c) => ({ ...c, spec: { v: 2 } })),
          storage.create(`${ns1}k`, thing('k')),
        ]);
        const pages = [...first.items];
        let startKey = first.continueKey;
        while (startKey !== undefined) {
          const page = await storage.list(ns1, { limit: 2, startKey, revision: first.revision });
          pages.push(...page.items);
          startKey = page.continueKey;
        }
        expect(pages).toEqual(whole.items);
        expect((await storage.list(ns1)).items.map((item) => metadataOf(item).name)).toEqual(['a', 'b', 'd', 'e', 'h', 'j', 'k']);
      });

      it('answers TooLarge for a revision after the newest, with the newest', async () => {
        await storage.create(`${ns1}a`, thing('a'));
        const current = await storage.currentRevision();
        const error = await storageError(storage.list(ns1, { revision: current + 1000 }), 'TooLarge');
        expect(error.revision).toBe(current);
      });

      it('answers objects that share nothing with the store', async () => {
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const list = await storage.list(ns1);
        (list.items[0]!.spec as { n: number }).n = 2;
        expect(specOf((await storage.list(ns1)).items[0])).toEqual({ n: 1 });
        expect(specOf(await storage.get(`${ns1}a`))).toEqual({ n: 1 });
      });
    });

    describe('watch', () => {
      it('delivers ADDED, MODIFIED and DELETED in revision order, with the previous object and the deletion revision', async () => {
        const from = await storage.currentRevision();
        const watch = storage.watch(ns1, { fromRevision: from });
        const created = await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const updated = await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { n: 2 } }));
        const deleted = await storage.delete(`${ns1}a`);
        const [added, modified, removed] = await take(watch, 3);
        expect(added).toMatchObject({ type: 'ADDED', key: `${ns1}a`, revision: revisionOf(created), object: created });
        expect(added!.prevObject).toBeUndefined();
        expect(modified).toMatchObject({ type: 'MODIFIED', key: `${ns1}a`, revision: revisionOf(updated.object), object: updated.object, prevObject: created });
        expect(removed).toMatchObject({ type: 'DELETED', key: `${ns1}a`, revision: revisionOf(deleted), object: deleted, prevObject: updated.object });
        expect(rv(removed!.object)).toBe(String(removed!.revision));
        watch.stop();
      });

      it('replays the changes after an older revision, then goes on live', async () => {
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const from = await storage.currentRevision();
        const b = await storage.create(`${ns1}b`, thing('b'));
        const a2 = await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { n: 2 } }));
        const watch = storage.watch(ns1, { fromRevision: from });
        const c = await storage.create(`${ns1}c`, thing('c'));
        expect((await take(watch, 3)).map(summary)).toEqual([
          { type: 'ADDED', key: `${ns1}b`, revision: revisionOf(b), spec: {} },
          { type: 'MODIFIED', key: `${ns1}a`, revision: revisionOf(a2.object), spec: { n: 2 } },
          { type: 'ADDED', key: `${ns1}c`, revision: revisionOf(c), spec: {} },
        ]);
        watch.stop();
      });

      it('delivers only the changes under its prefix', async () => {
        const watch = storage.watch(ns1, { fromRevision: await storage.currentRevision() });
        await storage.create(`${ns10}x`, thing('x'));
        await storage.create(`${tops}y`, { kind: 'Top', metadata: { name: 'y' } });
        const mine = await storage.create(`${ns1}z`, thing('z'));
        expect((await take(watch, 1)).map(summary)).toEqual([{ type: 'ADDED', key: `${ns1}z`, revision: revisionOf(mine), spec: {} }]);
        watch.stop();
      });

      it('starting at a revision not reached yet, delivers only the changes after it', async () => {
        const from = (await storage.currentRevision()) + 2;
        const watch = storage.watch(ns1, { fromRevision: from });
        const writes: StoredObject[] = [];
        for (const name of ['x', 'y', 'z', 'w']) writes.push(await storage.create(`${ns1}${name}`, thing(name)));
        const expected = writes.filter((object) => revisionOf(object) > from).map((object) => revisionOf(object));
        expect(expected.length).toBeGreaterThan(0);
        expect((await take(watch, expected.length)).map((event) => event.revision)).toEqual(expected);
        watch.stop();
      });

      it('gives every watcher the same frozen events, in the same order: none can change what another receives', async () => {
        const from = await storage.currentRevision();
        const watches = Array.from({ length: 5 }, () => storage.watch(ns1, { fromRevision: from }));
        for (const name of ['a', 'b', 'c']) await storage.create(`${ns1}${name}`, thing(name, { list: [1] }));
        await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { list: [3] } }));
        const seen = await Promise.all(watches.map((watch) => take(watch, 4)));
        // One decoded event per change, handed to every watcher (kube's cacher shares it the same way).
        for (const events of seen.slice(1)) events.forEach((event, i) => expect(event).toBe(seen[0]![i]));
        const [added, , , modified] = seen[0]!;
        expect(() => (added!.object.spec as { list: number[] }).list.push(2)).toThrow(TypeError);
        expect(() => (metadataOf(added!.object).name = 'changed')).toThrow(TypeError);
        expect(() => ((added as { object: StoredObject }).object = {})).toThrow(TypeError);
        expect(() => ((modified!.prevObject!.spec as { list: number[] }).list[0] = 9)).toThrow(TypeError);
        expect(modified!.prevObject).toBe(seen[4]![3]!.prevObject);
        for (const events of seen) {
          expect(events.map(summary)).toEqual(seen[0]!.map(summary));
          expect(specOf(events[0]!.object)).toEqual({ list: [1] });
          expect(specOf(events[3]!.prevObject)).toEqual({ list: [1] });
        }
        // A watcher that needs to change an event copies it; the store and the others are untouched.
        const mine = structuredClone(added!.object);
        (mine.spec as { list: number[] }).list.push(2);
        expect(specOf(seen[1]![0]!.object)).toEqual({ list: [1] });
        const stored = await storage.get(`${ns1}b`);
        (stored!.spec as { list: number[] }).list.push(2);
        expect(specOf(await storage.get(`${ns1}b`))).toEqual({ list: [1] });
        for (const watch of watches) watch.stop();
      });

      it('shares the events a watch replays from history with the live watchers still holding them', async () => {
        const from = await storage.currentRevision();
        const live = storage.watch(ns1, { fromRevision: from });
        await storage.create(`${ns1}a`, thing('a'));
        await storage.create(`${ns1}b`, thing('b'));
        const held = await take(live, 2);
        const replaying = storage.watch(ns1, { fromRevision: from });
        const replayed = await take(replaying, 2);
        expect(replayed[0]).toBe(held[0]);
        expect(replayed[1]).toBe(held[1]);
        expect(Object.isFrozen(replayed[0]!.object)).toBe(true);
        live.stop();
        replaying.stop();
      });

      it('ends when stopped, and when its consumer breaks out of the loop', async () => {
        const from = await storage.currentRevision();
        const stopped = storage.watch(ns1, { fromRevision: from });
        const pending = stopped[Symbol.asyncIterator]().next();
        stopped.stop();
        expect(await pending).toEqual({ value: undefined, done: true });

        const broken = storage.watch(ns1, { fromRevision: from });
        await storage.create(`${ns1}a`, thing('a'));
        for await (const event of broken) {
          expect(event.type).toBe('ADDED');
          break;
        }
        expect(await broken[Symbol.asyncIterator]().next()).toEqual({ value: undefined, done: true });
      });

      it('reports as progress only what it has delivered', async () => {
        const from = await storage.currentRevision();
        const watch = storage.watch(ns1, { fromRevision: from });
        expect(watch.progressRevision()).toBe(from);
        const a = await storage.create(`${ns1}a`, thing('a'));
        const b = await storage.create(`${ns1}b`, thing('b'));
        expect(watch.progressRevision()).toBeLessThan(revisionOf(a));
        await take(watch, 1);
        expect(watch.progressRevision()).toBeGreaterThanOrEqual(revisionOf(a));
        expect(watch.progressRevision()).toBeLessThan(revisionOf(b));
        await take(watch, 1);
        await storage.create(`${ns10}elsewhere`, thing('elsewhere'));
        await waitFor(() => watch.progressRevision() === revisionOf(b) || watch.progressRevision() > revisionOf(b));
        expect(watch.progressRevision()).toBeGreaterThanOrEqual(revisionOf(b));
        watch.stop();
      });

      it('ends a watcher that does not keep up with TooSlow, without holding writers back', async () => {
        const small = await open({ watchBufferSize: 8 });
        const from = await small.storage.currentRevision();
        const slow = small.storage.watch(ns1, { fromRevision: from });
        const fast = small.storage.watch(ns1, { fromRevision: from });
        const fastEvents: WatchEvent[] = [];
        const reading = (async () => {
          for await (const event of fast) {
            fastEvents.push(event);
            if (fastEvents.length === 60) break;
          }
        })();
        for (let i = 0; i < 60; i++) await small.storage.create(`${ns1}k${String(i).padStart(2, '0')}`, thing(`k${i}`));
        await reading;
        expect(fastEvents.map((event) => event.key)).toEqual(Array.from({ length: 60 }, (_, i) => `${ns1}k${String(i).padStart(2, '0')}`));
        const { events, error } = await ending(slow);
        expect(error).toBeInstanceOf(StorageError);
        expect((error as StorageError).code).toBe('TooSlow');
        expect(events.length).toBeLessThan(60);
        expect(events.map((event) => event.key)).toEqual(fastEvents.slice(0, events.length).map((event) => event.key));
      });

      it('ends every watch on close', async () => {
        const watch = storage.watch(ns1, { fromRevision: await storage.currentRevision() });
        const ended = ending(watch);
        await storage.close();
        const { events, error } = await ended;
        expect(events).toEqual([]);
        if (error !== undefined) expect(error).toBeInstanceOf(StorageError);
      });
    });

    describe('compaction', () => {
      it('answers Expired, with the oldest revision kept, for lists and watches from before it', async (context) => {
        if (!sut.compact) return context.skip('this factory cannot force a compaction');
        await storage.create(`${ns1}a`, thing('a', { n: 1 }));
        const old = await storage.currentRevision();
        await storage.guaranteedUpdate(`${ns1}a`, (c) => ({ ...c, spec: { n: 2 } }));
        const kept = await storage.currentRevision();
        const live = storage.watch(ns1, { fromRevision: kept });
        await storage.create(`${ns1}b`, thing('b'));
        await sut.compact(kept);

        const listError = await storageError(storage.list(ns1, { revision: old }), 'Expired');
        expect(listError.revision).toBe(kept);
        const watchError = await ending(storage.watch(ns1, { fromRevision: old }));
        expect(watchError.error).toBeInstanceOf(StorageError);
        expect((watchError.error as StorageError).code).toBe('Expired');
        expect((watchError.error as StorageError).revision).toBe(kept);

        expect((await storage.list(ns1, { revision: kept })).items.map(specOf)).toEqual([{ n: 2 }]);
        const fromKept = storage.watch(ns1, { fromRevision: kept });
        expect((await take(fromKept, 1)).map((event) => event.key)).toEqual([`${ns1}b`]);
        expect((await take(live, 1)).map((event) => event.key)).toEqual([`${ns1}b`]);
        fromKept.stop();
        live.stop();
      });
    });

    describe('lifecycle', () => {
      it('is ready while open; after close it is not, and every call answers Unavailable', async () => {
        expect(storage.ready()).toBe(true);
        await storage.create(`${ns1}a`, thing('a'));
        await storage.close();
        expect(storage.ready()).toBe(false);
        await storageError(storage.get(`${ns1}a`), 'Unavailable');
        await storageError(storage.create(`${ns1}b`, thing('b')), 'Unavailable');
        await storageError(storage.guaranteedUpdate(`${ns1}a`, (c) => c), 'Unavailable');
        await storageError(storage.delete(`${ns1}a`), 'Unavailable');
        await storageError(storage.list(ns1), 'Unavailable');
        await storageError(storage.currentRevision(), 'Unavailable');
        const { error } = await ending(storage.watch(ns1, { fromRevision: 1 }));
        expect((error as StorageError).code).toBe('Unavailable');
      });
    });
  });
}

async function waitFor(condition: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
