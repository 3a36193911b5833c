/**
 * The durable embedded store (the default): the memory engine over a LevelDB directory. Opening
 * loads every object and the kept revision log into memory, so reads, lists and watches never
 * touch the disk and watches can resume from revisions written before a restart; every write
 * goes to disk in a synced group-commit batch before it is acknowledged (see embedded-store.ts,
 * group-commit.ts and level-journal.ts for the layout).
 */
import { mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import { EmbeddedStore } from './embedded-store.js';
import type { ChangeEvent, RetentionPolicy } from './event-history.js';
import type { Entry } from './key-index.js';
import {
  LevelJournal,
  decodeChange,
  decodeEntry,
  formatName,
  logRange,
  metaKeys,
  objectRange,
} from './level-journal.js';
import type { Key } from './storage.js';
import { WatchCache } from './watch-cache.js';

export interface DurableStorageOptions {
  /** The directory of the LevelDB database; created if missing. One process at a time may hold it. */
  directory: string;
  retention?: Partial<RetentionPolicy>;
  watchBufferSize?: number;
}

/** Why a data directory cannot be opened (held by another process, not this store's, damaged). */
export class DataDirectoryError extends Error {
  override readonly name = 'DataDirectoryError';
}

export async function openDurableStorage(options: DurableStorageOptions): Promise<EmbeddedStore> {
  const { directory } = options;
  await mkdir(directory, { recursive: true });
  const db = new ClassicLevel<string, string>(directory, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  try {
    await db.open();
  } catch (error) {
    throw openError(directory, error);
  }
  try {
    const { revision, compacted } = await readMeta(db, directory);
    const history = await readLog(db, compacted);
    const newest = history[history.length - 1]?.revision ?? 0;
    const cache = new WatchCache({
      revision: Math.max(revision, newest),
      compactedRevision: compacted,
      retention: options.retention,
      watchBufferSize: options.watchBufferSize,
    });
    for (const event of history) cache.seedHistory(event);
    await readObjects(db, cache, history);
    return new EmbeddedStore(cache, new LevelJournal(db, compacted));
  } catch (error) {
    await db.close();
    throw error;
  }
}

function openError(directory: string, error: unknown): Error {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'LEVEL_LOCKED') {
    return new DataDirectoryError(
      `the data directory ${directory} is in use by another fleetgate apiserver (its LevelDB lock ${directory}/LOCK is held); ` +
        'stop that process or choose another data directory',
      { cause: error },
    );
  }
  const reason = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new DataDirectoryError(`cannot open the data directory ${directory}: ${reason}`, { cause: error });
}

async function readMeta(db: ClassicLevel<string, string>, directory: string): Promise<{ revision: number; compacted: number }> {
  const [format, revision, compacted] = await db.getMany([metaKeys.format, metaKeys.revision, metaKeys.compacted]);
  if (format === undefined) {
    for await (const _ of db.keys({ limit: 1 })) {
      throw new DataDirectoryError(`the data directory ${directory} holds a LevelDB database that is not a fleetgate store`);
    }
    await db.put(metaKeys.format, formatName, { sync: true });
  } else if (format !== formatName) {
    throw new DataDirectoryError(`the data directory ${directory} holds a store of format ${format}; this fleetgate reads ${formatName}`);
  }
  // A new store starts at revision 1 (as etcd does: clients read resourceVersion "0" as "any").
  return { revision: Number(revision ?? 1), compacted: Number(compacted ?? 0) };
}

async function readLog(db: ClassicLevel<string, string>, compacted: number): Promise<ChangeEvent[]> {
  const events: ChangeEvent[] = [];
  // A change's previous text is the text of the key's change before it: keep one copy in memory.
  const lastText = new Map<Key, string>();
  for await (const [key, value] of db.iterator(logRange)) {
    const revision = Number(key.slice(2));
    if (revision <= compacted) continue; // awaiting its deletion
    const event = decodeChange(revision, value);
    const last = lastText.get(event.key);
    if (last !== undefined && event.prevValue === last) event.prevValue = last;
    if (event.value === undefined) lastText.delete(event.key);
    else lastText.set(event.key, event.value);
    events.push(event);
  }
  return events;
}

async function readObjects(db: ClassicLevel<string, string>, cache: WatchCache, history: readonly ChangeEvent[]): Promise<void> {
  // The newest logged change to a key holds the same text as its object: keep one copy in memory.
  const newestText = new Map<Key, ChangeEvent>();
  for (const event of history) newestText.set(event.key, event);
  for await (const [storedKey, text] of db.iterator(objectRange)) {
    const key = storedKey.slice(2);
    const entry: Entry = decodeEntry(text);
    const logged = newestText.get(key);
    // Written in the same batch from the same text: the revision says they are equal.
    if (logged?.revision === entry.revision && logged.value?.length === entry.value.length) entry.value = logged.value;
    cache.seed(key, entry);
  }
}
