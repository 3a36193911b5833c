/** The watch history's retention, sized like kube's watch cache: at least 75 s and the newest minEvents, at most maxEvents. */
import { describe, expect, it } from 'vitest';
import { EventHistory, type ChangeEvent } from '../../../src/apiserver/storage/event-history.js';
import { createMemoryStorage } from '../../../src/apiserver/storage/memory.js';
import { StorageError } from '../../../src/apiserver/storage/storage.js';

const change = (revision: number): ChangeEvent => ({ type: 'ADDED', key: `/g/p/k${revision}`, revision, value: '{}' });

function historyWith(policy: { freshMs: number; minEvents: number; maxEvents: number }) {
  let time = 0;
  const history = new EventHistory(0, { ...policy, now: () => time });
  return { history, advance: (ms: number) => (time += ms) };
}

describe('event history retention', () => {
  it('keeps events younger than freshMs beyond minEvents, up to maxEvents', () => {
    const { history, advance } = historyWith({ freshMs: 75_000, minEvents: 10, maxEvents: 100 });
    for (let revision = 1; revision <= 50; revision++) {
      history.append(change(revision));
      advance(1_000);
    }
    expect(history.size).toBe(50);
    expect(history.compactedRevision).toBe(0);
  });

  it('lets events older than freshMs go, but never the newest minEvents', () => {
    const { history, advance } = historyWith({ freshMs: 75_000, minEvents: 10, maxEvents: 100 });
    for (let revision = 1; revision <= 50; revision++) history.append(change(revision));
    advance(76_000);
    history.append(change(51));
    expect(history.size).toBe(10);
    expect(history.compactedRevision).toBe(41);
    expect(history.at(history.start)?.revision).toBe(42);
    advance(1_000_000);
    history.append(change(52));
    expect(history.size).toBe(10);
  });

  it('never holds more than maxEvents, however fresh', () => {
    const { history } = historyWith({ freshMs: 75_000, minEvents: 10, maxEvents: 100 });
    for (let revision = 1; revision <= 5_000; revision++) history.append(change(revision));
    expect(history.size).toBe(100);
    expect(history.compactedRevision).toBe(4_900);
    expect(history.positionAfter(4_950) - history.start).toBe(50);
  });

  it('refuses a revision that is not after the newest, and a policy whose minimum exceeds its maximum', () => {
    const { history } = historyWith({ freshMs: 1, minEvents: 1, maxEvents: 10 });
    history.append(change(5));
    expect(() => history.append(change(5))).toThrow(RangeError);
    expect(() => new EventHistory(0, { freshMs: 1, minEvents: 11, maxEvents: 10, now: () => 0 })).toThrow(RangeError);
  });

  it("defaults to kube's watch cache bounds: 75 s, 1,000 events kept, 102,400 at most", async () => {
    const storage = createMemoryStorage();
    for (let i = 0; i < 1_500; i++) await storage.create(`/g/p/k${i}`, { metadata: { name: `k${i}` } });
    expect(storage.cache.history.size).toBe(1_500); // all younger than 75 s
    await storage.close();
  });
});

describe('the memory store once its history is let go', () => {
  it('answers Expired for lists and watches from before the kept history, and serves from the kept part', async () => {
    let time = 0;
    const storage = createMemoryStorage({ retention: { freshMs: 1_000, minEvents: 3, maxEvents: 100, now: () => time } });
    const revisions: number[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await storage.create(`/g/p/k${i}`, { metadata: { name: `k${i}` } });
      revisions.push(Number((created.metadata as { resourceVersion: string }).resourceVersion));
    }
    time += 2_000;
    await storage.create('/g/p/last', { metadata: { name: 'last' } });
    const oldest = storage.cache.history.compactedRevision;
    expect(oldest).toBe(revisions[7]);

    const error = await storage.list('/g/p/', { revision: revisions[2] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('Expired');
    expect((error as StorageError).revision).toBe(oldest);
    expect((error as StorageError).message).toBe(`too old resource version: ${revisions[2]} (${oldest})`);
    expect((await storage.list('/g/p/', { revision: oldest })).items).toHaveLength(8);

    const watch = storage.watch('/g/p/', { fromRevision: revisions[2]! });
    await expect(watch[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'Expired', revision: oldest });
    await storage.close();
  });

  it('ends with TooSlow a watch whose replay position was let go before it was read', async () => {
    let time = 0;
    const storage = createMemoryStorage({ retention: { freshMs: 1_000, minEvents: 3, maxEvents: 5, now: () => time } });
    const from = await storage.currentRevision();
    await storage.create('/g/p/a', { metadata: { name: 'a' } });
    const watch = storage.watch('/g/p/', { fromRevision: from }); // replays a, then buffers live events
    for (let i = 0; i < 10; i++) await storage.create(`/g/p/k${i}`, { metadata: { name: `k${i}` } });
    const iterator = watch[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'TooSlow' });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(storage.cache.watchCount).toBe(0);
    await storage.close();
  });
});
