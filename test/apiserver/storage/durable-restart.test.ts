/** What the durable store keeps across a restart, and whom it lets open its directory. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirectoryError, openDurableStorage } from '../../../src/apiserver/storage/durable.js';
import { LevelJournal, logKey, logRange } from '../../../src/apiserver/storage/level-journal.js';
import type { StoredObject, WatchEvent } from '../../../src/apiserver/storage/storage.js';

const directories: string[] = [];
async function newDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'fleetgate-restart-'));
  directories.push(directory);
  return directory;
}
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

const thing = (name: string, n: number): StoredObject => ({ kind: 'Thing', metadata: { name, uid: `uid-${name}` }, spec: { n } });
const rv = (object: StoredObject) => Number((object.metadata as { resourceVersion: string }).resourceVersion);

async function take(iterator: AsyncIterator<WatchEvent>, count: number): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  while (events.length < count) {
    const result = await iterator.next();
    if (result.done) break;
    events.push(result.value);
  }
  return events;
}

describe('the durable store across a restart', () => {
  it('keeps the objects, the revision and the history, so lists and watches reach back before it', async () => {
    const directory = await newDirectory();
    const first = await openDurableStorage({ directory });
    const a = await first.create('/g/p/a', thing('a', 1));
    const b = await first.create('/g/p/b', thing('b', 1));
    const before = await first.list('/g/p/');
    const a2 = (await first.guaranteedUpdate('/g/p/a', (c) => ({ ...c, spec: { n: 2 } }))).object;
    const bGone = await first.delete('/g/p/b');
    const c = await first.create('/g/p/c', thing('c', 1));
    const revision = await first.currentRevision();
    await first.close();

    const second = await openDurableStorage({ directory });
    expect(await second.currentRevision()).toBe(revision);
    expect((await second.list('/g/p/')).items).toEqual([a2, c]);
    expect(await second.list('/g/p/', { revision: before.revision })).toEqual(before);
    const events = await take(second.watch('/g/p/', { fromRevision: rv(a) })[Symbol.asyncIterator](), 4);
    expect(events.map((event) => [event.type, event.key, event.revision])).toEqual([
      ['ADDED', '/g/p/b', rv(b)],
      ['MODIFIED', '/g/p/a', rv(a2)],
      ['DELETED', '/g/p/b', rv(bGone)],
      ['ADDED', '/g/p/c', rv(c)],
    ]);
    expect(events[1]!.prevObject).toEqual(a);
    expect(events[2]!.object).toEqual(bGone);
    expect(events[2]!.prevObject).toEqual(b);

    const d = await second.create('/g/p/d', thing('d', 1));
    expect(rv(d)).toBe(revision + 1);
    await second.close();
  });

  it('keeps a compaction: what was let go stays Expired after a restart', async () => {
    const directory = await newDirectory();
    const first = await openDurableStorage({ directory });
    for (let i = 0; i < 5; i++) await first.create(`/g/p/k${i}`, thing(`k${i}`, i));
    const old = await first.currentRevision();
    await first.create('/g/p/late', thing('late', 0));
    await first.compact(old);
    await first.close();

    const second = await openDurableStorage({ directory });
    expect(second.cache.history.compactedRevision).toBe(old);
    expect(second.cache.history.size).toBe(1);
    await expect(second.list('/g/p/', { revision: old - 1 })).rejects.toMatchObject({ code: 'Expired', revision: old });
    expect((await second.list('/g/p/', { revision: old })).items).toHaveLength(5);
    await second.close();
    const db = new ClassicLevel<string, string>(directory);
    const logged = await db.keys({ gte: 'r:', lt: 'r;' }).all();
    await db.close();
    expect(logged).toHaveLength(1);
  });

  it('deletes from disk the history its retention lets go, in the next batch', async () => {
    const directory = await newDirectory();
    const store = await openDurableStorage({ directory, retention: { minEvents: 3, maxEvents: 4 } });
    for (let i = 0; i < 20; i++) await store.create(`/g/p/k${i}`, thing(`k${i}`, i));
    await store.close();
    const db = new ClassicLevel<string, string>(directory);
    const logged = await db.keys({ gte: 'r:', lt: 'r;' }).all();
    expect(await db.get('m:compacted')).toBe(String(Number(logged[0]!.slice(2)) - 1));
    await db.close();
    expect(logged.length).toBeLessThanOrEqual(5);
    const reopened = await openDurableStorage({ directory, retention: { minEvents: 3, maxEvents: 4 } });
    expect((await reopened.list('/g/p/')).items).toHaveLength(20);
    await reopened.close();
  });
});

describe('the log compaction on disk', () => {
  it('rides a write batch 10,000 deletions at a time, and a compaction alone all at once', async () => {
    const directory = await newDirectory();
    const db = new ClassicLevel<string, string>(directory);
    for (let revision = 1; revision <= 25_000; revision += 5_000) {
      await db.batch(Array.from({ length: 5_000 }, (_, i) => ({ type: 'put' as const, key: logKey(revision + i), value: 'x' })));
    }
    const journal = new LevelJournal(db, 0);
    const write = { type: 'ADDED' as const, key: '/g/p/a', revision: 25_001, value: '{}' };
    await journal.write([write], 24_000);
    expect(await db.get('m:compacted')).toBe('10000');
    expect(await db.keys({ ...logRange, limit: 1 }).all()).toEqual([logKey(10_001)]);
    await journal.write([], 24_000);
    expect(await db.get('m:compacted')).toBe('24000');
    expect(await db.keys(logRange).all()).toHaveLength(1_000 + 1); // 24,001 to 25,000, and the write's own
    await journal.close();
  });
});

describe('the data directory', () => {
  it('is refused, naming it, while this process holds it', async () => {
    const directory = await newDirectory();
    const store = await openDurableStorage({ directory });
    const error = await openDurableStorage({ directory }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataDirectoryError);
    expect((error as Error).message).toBe(
      `the data directory ${directory} is in use by another fleetgate apiserver (its LevelDB lock ${directory}/LOCK is held); stop that process or choose another data directory`,
    );
    await store.close();
    const again = await openDurableStorage({ directory });
    await again.close();
  });

  it('is refused while another process holds it, and opens once that process is gone', async () => {
    const directory = await newDirectory();
    const classicLevel = fileURLToPath(import.meta.resolve('classic-level'));
    // A reference and a timer keep the database open and the process alive until it is killed.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const { ClassicLevel } = require(${JSON.stringify(classicLevel)}); globalThis.db = new ClassicLevel(process.argv[1]); ` +
          `globalThis.db.open().then(() => console.log('held')); setInterval(() => {}, 1000);`,
        directory,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
        holder.on('exit', (code) => reject(new Error(`the holder exited (${code}) before holding the lock`)));
      });
      await expect(openDurableStorage({ directory })).rejects.toThrow(`the data directory ${directory} is in use by another fleetgate apiserver`);
    } finally {
      holder.kill('SIGKILL');
      await exited;
    }
    const store = await openDurableStorage({ directory });
    await store.close();
  });

  it('is refused when it holds a LevelDB database that is not a fleetgate store', async () => {
    const directory = await newDirectory();
    const db = new ClassicLevel<string, string>(directory);
    await db.put('something', 'else');
    await db.close();
    await expect(openDurableStorage({ directory })).rejects.toThrow(`the data directory ${directory} holds a LevelDB database that is not a fleetgate store`);
  });

  it('is created when missing, parents included', async () => {
    const directory = join(await newDirectory(), 'a', 'b');
    const store = await openDurableStorage({ directory });
    expect(await store.currentRevision()).toBe(1);
    await store.close();
  });
});
