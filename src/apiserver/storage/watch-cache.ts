/**
 * The committed state of a key space and its recent history: the current objects in key order,
 * the kept changes (EventHistory) and the running watches. Whatever produces the changes feeds
 * them in with apply(), in revision order: the embedded store after each write is durable, an
 * etcd backend from its etcd watch (as kube-apiserver's cacher is fed by one etcd watch per
 * resource). It serves get, lists at the current or any kept revision, and watches from any kept
 * revision.
 *
 * A list at an older revision starts from the current state and undoes, key by key, the kept
 * changes made after that revision: the first change to a key after the revision carries the
 * key's state at the revision (its previous text and revision, or absence).
 */
import { CacheWatch, type WatchSource } from './cache-watch.js';
import { EventHistory, defaultRetention, type ChangeEvent, type RetentionPolicy } from './event-history.js';
import { KeyIndex, prefixEnd, type Entry } from './key-index.js';
import { sharedWatchEvent } from './shared-event.js';
import { decodeObject } from './stored-value.js';
import { StorageError, type Key, type ListOptions, type ListResult, type StoredObject, type WatchEvent } from './storage.js';

export interface WatchCacheOptions {
  /** The revision of the initial state. */
  revision: number;
  /** Every change after this revision is replayable: the initial history, if any, starts right after it. */
  compactedRevision?: number;
  retention?: Partial<RetentionPolicy>;
  /** How many live events a watch buffers for a slow consumer before it is ended with TooSlow. */
  watchBufferSize?: number;
}

export const defaultWatchBufferSize = 4096;

export class WatchCache implements WatchSource {
  readonly history: EventHistory;
  private readonly objects = new KeyIndex();
  private readonly watches = new Map<Key, Set<CacheWatch>>();
  // The decoded event of a kept change, weakly: shared by every watch that replays it while any
  // consumer still holds it, without the history holding a decoded copy of every change it keeps.
  private readonly decoded = new WeakMap<ChangeEvent, WeakRef<WatchEvent>>();
  private current: number;
  private readonly watchBufferSize: number;

  constructor(options: WatchCacheOptions) {
    this.current = options.revision;
    this.history = new EventHistory(options.compactedRevision ?? options.revision, { ...defaultRetention, ...options.retention });
    this.watchBufferSize = options.watchBufferSize ?? defaultWatchBufferSize;
  }

  get revision(): number {
    return this.current;
  }

  get size(): number {
    return this.objects.size;
  }

  /** Fills the initial state (before any apply): an object as of the initial revision. */
  seed(key: Key, entry: Entry): void {
    if (entry.revision > this.current) throw new RangeError(`${key} has revision ${entry.revision}, after the cache's ${this.current}`);
    this.objects.set(key, entry);
  }

  /** Fills the initial history (before any apply): a change at or before the initial revision, in order. */
  seedHistory(event: ChangeEvent): void {
    if (event.revision > this.current) throw new RangeError(`event revision ${event.revision} is after the cache's ${this.current}`);
    this.history.append(event);
  }

  get(key: Key): Entry | undefined {
    return this.objects.get(key);
  }

  /** Applies committed changes in revision order, then hands each, decoded once, to the watches under its key. */
  apply(events: readonly ChangeEvent[]): void {
    for (const event of events) {
      if (event.revision <= this.current) {
        throw new RangeError(`change ${event.revision} to ${event.key} is not after revision ${this.current}`);
      }
      if (event.type === 'DELETED') this.objects.delete(event.key);
      else this.objects.set(event.key, { value: event.value!, revision: event.revision });
      this.current = event.revision;
      this.history.append(event);
      let shared: WatchEvent | undefined;
      for (const [prefix, watches] of this.watches) {
        if (!event.key.startsWith(prefix)) continue;
        shared ??= this.eventOf(event);
        for (const watch of watches) watch.push(shared);
      }
    }
  }

  eventOf(change: ChangeEvent): WatchEvent {
    let event = this.decoded.get(change)?.deref();
    if (!event) {
      event = sharedWatchEvent(change);
      this.decoded.set(change, new WeakRef(event));
    }
    return event;
  }

  /** Moves the revision on without a change here (etcd: a change to keys outside this cache). */
  advance(revision: number): void {
    if (revision > this.current) this.current = revision;
  }

  /** Lets go of the history at or before `revision`: lists and watches from there are Expired. */
  compact(revision: number): void {
    this.history.compact(Math.min(revision, this.current));
  }

  list(prefix: Key, options: ListOptions = {}): ListResult {
    const revision = options.revision ?? this.current;
    this.checkRevision(prefix, revision);
    const from = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const end = prefixEnd(prefix);
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;

    const past = this.stateBefore(revision, from, end);
    const items: StoredObject[] = [];
    for (const [key, entry] of this.entriesAt(past, from, end)) {
      if (items.length >= limit) {
        return { items, revision, continueKey: key, remainingItemCount: this.countAt(past, key, end) };
      }
      const object = decodeObject(entry.value, entry.revision);
      if (!options.predicate || options.predicate(object)) items.push(object);
    }
    return { items, revision };
  }

  watch(prefix: Key, fromRevision: number): CacheWatch {
    const watch = new CacheWatch(this, prefix, fromRevision, this.watchBufferSize);
    const compacted = this.history.compactedRevision;
    if (fromRevision < compacted) {
      watch.fail(new StorageError('Expired', prefix, `too old resource version: ${fromRevision} (${compacted})`, compacted));
      return watch;
    }
    let watches = this.watches.get(prefix);
    if (!watches) this.watches.set(prefix, (watches = new Set()));
    watches.add(watch);
    return watch;
  }

  detach(watch: CacheWatch): void {
    const watches = this.watches.get(watch.prefix);
    if (!watches?.delete(watch)) return;
    if (watches.size === 0) this.watches.delete(watch.prefix);
  }

  /** How many watches are running (for metrics and tests). */
  get watchCount(): number {
    let count = 0;
    for (const watches of this.watches.values()) count += watches.size;
    return count;
  }

  /** Ends every watch: with `error` (Unavailable when the backend is lost), or cleanly. */
  endWatches(error?: StorageError): void {
    for (const watches of [...this.watches.values()]) {
      for (const watch of [...watches]) {
        if (error) watch.fail(error);
        else watch.stop();
      }
    }
  }

  private checkRevision(key: Key, revision: number): void {
    if (revision > this.current) {
      throw new StorageError('TooLarge', key, `Too large resource version: ${revision}, current: ${this.current}`, this.current);
    }
    const compacted = this.history.compactedRevision;
    if (revision < compacted) {
      throw new StorageError('Expired', key, `too old resource version: ${revision} (${compacted})`, compacted);
    }
  }

  /**
   * For the keys in [from, end) changed after `revision`: their state at `revision` (null when
   * absent then), from the first kept change to each after it.
   */
  private stateBefore(revision: number, from: Key, end: Key | undefined): Map<Key, Entry | null> {
    const past = new Map<Key, Entry | null>();
    const history = this.history;
    for (let position = history.positionAfter(revision); position < history.end; position++) {
      const event = history.at(position)!;
      const key = event.key;
      if (key < from || (end !== undefined && key >= end) || past.has(key)) continue;
      past.set(key, event.prevValue === undefined ? null : { value: event.prevValue, revision: event.prevRevision! });
    }
    return past;
  }

  /** The state at the list's revision in key order: current entries not changed since, merged with the undone ones. */
  private *entriesAt(past: Map<Key, Entry | null>, from: Key, end: Key | undefined): Generator<[Key, Entry]> {
    const undone = [...past].filter((pair): pair is [Key, Entry] => pair[1] !== null).sort(([a], [b]) => (a < b ? -1 : 1));
    let next = 0;
    for (const pair of this.objects.range(from, end)) {
      if (past.has(pair[0])) continue;
      while (next < undone.length && undone[next]![0] < pair[0]) yield undone[next++]!;
      yield pair;
    }
    while (next < undone.length) yield undone[next++]!;
  }

  /** How many keys in [from, end) existed at the list's revision. */
  private countAt(past: Map<Key, Entry | null>, from: Key, end: Key | undefined): number {
    let count = this.objects.count(from, end);
    for (const [key, entry] of past) {
      if (key < from) continue;
      if (this.objects.get(key)) count--;
      if (entry) count++;
    }
    return count;
  }
}
