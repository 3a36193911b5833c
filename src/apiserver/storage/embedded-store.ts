/**
 * The embedded store's Storage: one global revision counter, writes as compare-and-swap on a
 * key's revision, and a WatchCache holding the committed state, its history and the watches.
 *
 * Without a journal (`--storage memory`) a write is applied at once. With one, a write is
 * acknowledged, and becomes visible to readers and watchers, only after the batch holding it is
 * durable (GroupCommit). Meanwhile it is pending: readers do not see it, but writers do, because
 * the next write to the key must compare against it and see its revision, or two concurrent
 * updates from the same revision would both succeed and one would be lost. A write computed from
 * a pending one can only land in the same batch or a later one, and a failed batch fails every
 * batch after it, so no acknowledged write ever rests on a lost one.
 */
import type { ChangeEvent } from './event-history.js';
import { GroupCommit, type Journal } from './group-commit.js';
import type { Entry } from './key-index.js';
import {
  NO_CHANGE,
  StorageError,
  type DeleteOptions,
  type Key,
  type ListOptions,
  type ListResult,
  type Preconditions,
  type Storage,
  type StoredObject,
  type UpdateFunction,
  type UpdateOptions,
  type UpdateResult,
  type Watch,
  type WatchOptions,
  type WriteOptions,
} from './storage.js';
import { decodeObject, decodeUnversioned, encodeObject, unchanged } from './stored-value.js';
import { WatchCache } from './watch-cache.js';

/** A write not yet durable: the key's new text, or undefined for a deletion. */
interface Pending {
  value: string | undefined;
  revision: number;
}

export class EmbeddedStore implements Storage {
  private readonly pending = new Map<Key, Pending>();
  private readonly group: GroupCommit | undefined;
  private allocated: number;
  private closed = false;
  private failure: StorageError | undefined;

  constructor(
    readonly cache: WatchCache,
    private readonly journal?: Journal,
  ) {
    this.allocated = cache.revision;
    this.group = journal && new GroupCommit(journal, () => cache.history.compactedRevision, (events) => this.committed(events), (error) => this.lost(error));
  }

  async currentRevision(): Promise<number> {
    this.checkOpen('');
    return this.cache.revision;
  }

  async create(key: Key, object: StoredObject, options: WriteOptions = {}): Promise<StoredObject> {
    this.checkWritable(key);
    const value = encodeObject(object);
    const existing = this.latest(key);
    if (existing) throw new StorageError('KeyExists', key, `${key} already exists`, existing.revision);
    if (options.dryRun) return decodeUnversioned(value);
    const revision = ++this.allocated;
    await this.commit({ type: 'ADDED', key, revision, value });
    return decodeObject(value, revision);
  }

  async get(key: Key): Promise<StoredObject | undefined> {
    this.checkOpen(key);
    const entry = this.cache.get(key);
    return entry && decodeObject(entry.value, entry.revision);
  }

  async guaranteedUpdate(key: Key, update: UpdateFunction, options: UpdateOptions = {}): Promise<UpdateResult> {
    for (;;) {
      this.checkWritable(key);
      const state = this.existing(key);
      const current = decodeObject(state.value, state.revision);
      checkPreconditions(key, current, state.revision, options.preconditions);
      const result = await update(current);
      if (result === NO_CHANGE) return { object: decodeObject(state.value, state.revision), changed: false };
      const value = encodeObject(result);
      if (unchanged(value, state.value)) return { object: decodeObject(state.value, state.revision), changed: false };
      if (options.dryRun) return { object: decodeObject(value, state.revision), changed: true };
      if (this.latest(key)?.revision !== state.revision) continue; // written meanwhile: try again on the new state
      this.checkWritable(key);
      const revision = ++this.allocated;
      await this.commit({ type: 'MODIFIED', key, revision, value, prevValue: state.value, prevRevision: state.revision });
      return { object: decodeObject(value, revision), changed: true };
    }
  }

  async delete(key: Key, options: DeleteOptions = {}): Promise<StoredObject> {
    for (;;) {
      this.checkWritable(key);
      const state = this.existing(key);
      const current = decodeObject(state.value, state.revision);
      checkPreconditions(key, current, state.revision, options.preconditions);
      if (options.validateDeletion) {
        await options.validateDeletion(current);
        if (this.latest(key)?.revision !== state.revision) continue;
      }
      if (options.dryRun) return decodeObject(state.value, state.revision);
      this.checkWritable(key);
      const revision = ++this.allocated;
      await this.commit({ type: 'DELETED', key, revision, prevValue: state.value, prevRevision: state.revision });
      return decodeObject(state.value, revision);
    }
  }

  async list(prefix: Key, options?: ListOptions): Promise<ListResult> {
    this.checkOpen(prefix);
    return this.cache.list(prefix, options);
  }

  watch(prefix: Key, options: WatchOptions): Watch {
    const watch = this.cache.watch(prefix, options.fromRevision);
    if (this.closed) watch.fail(new StorageError('Unavailable', prefix, 'storage is closed'));
    return watch;
  }

  ready(): boolean {
    return !this.closed && !this.failure;
  }

  /** Synced batches and the writes they held (none without a journal). */
  commitStats(): { batches: number; writes: number } {
    return { ...(this.group?.stats ?? { batches: 0, writes: 0 }) };
  }

  /** Lets go of the history at or before `revision` now (a test hook: the retention policy does it by itself). */
  async compact(revision: number): Promise<void> {
    this.cache.compact(revision);
    await this.group?.compact();
  }

  /** Waits for the pending writes, ends every watch cleanly and releases the journal. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.group?.idle();
    this.cache.endWatches();
    await this.journal?.close();
  }

  /** The key's newest state a writer must compare with: pending if there is one, else committed. */
  private latest(key: Key): Entry | undefined {
    const pending = this.pending.get(key);
    if (!pending) return this.cache.get(key);
    return pending.value === undefined ? undefined : { value: pending.value, revision: pending.revision };
  }

  private existing(key: Key): Entry {
    const entry = this.latest(key);
    if (!entry) throw new StorageError('KeyNotFound', key, `${key} not found`);
    return entry;
  }

  private async commit(event: ChangeEvent): Promise<void> {
    if (!this.group) {
      this.cache.apply([event]);
      return;
    }
    this.pending.set(event.key, { value: event.value, revision: event.revision });
    try {
      await this.group.submit(event);
    } catch {
      throw this.failure ?? new StorageError('Unavailable', event.key, 'the write failed: storage is unavailable');
    }
  }

  private committed(events: readonly ChangeEvent[]): void {
    this.cache.apply(events);
    for (const event of events) {
      if (this.pending.get(event.key)?.revision === event.revision) this.pending.delete(event.key);
    }
  }

  private lost(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.failure = new StorageError(
      'Unavailable',
      '',
      `a write to storage failed (${reason}); nothing after the last acknowledged write was kept, and no more writes are taken until a restart`,
    );
    this.pending.clear();
  }

  private checkOpen(key: Key): void {
    if (this.closed) throw new StorageError('Unavailable', key, 'storage is closed');
  }

  private checkWritable(key: Key): void {
    this.checkOpen(key);
    if (this.failure) throw new StorageError('Unavailable', key, this.failure.message);
  }
}

export function checkPreconditions(key: Key, current: StoredObject, revision: number, preconditions: Preconditions | undefined): void {
  if (!preconditions) return;
  const uid = (current.metadata as { uid?: unknown } | undefined)?.uid;
  if (preconditions.uid !== undefined && preconditions.uid !== uid) {
    throw new StorageError(
      'Conflict',
      key,
      `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${uid ?? ''}`,
      revision,
    );
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== String(revision)) {
    throw new StorageError(
      'Conflict',
      key,
      `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${revision}`,
      revision,
    );
  }
}
