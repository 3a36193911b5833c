/**
 * One kind's watch cache, fed by one etcd watch: kube-apiserver's cacher. The cache starts from a
 * list of the kind at one revision, then a watch from the next revision (with previous values)
 * turns every etcd change under the kind's prefix into a ChangeEvent for WatchCache.apply, so a
 * thousand API watchers of the kind cost etcd one watcher.
 *
 * The watch is etcd's raw gRPC stream (etcd3's WatchClient), not etcd3's Watcher: that one
 * resumes after a reconnection from the revision in the last response *header*, which is ahead
 * of the events still to come while a watch catches up (etcd sends the creation response with
 * the current revision first), so a disconnection then would skip changes; and it drops the
 * compact_revision etcd cancels a watch with. Here a lost stream is reopened from the cache's own
 * revision, and a compacted one makes the cache list again and end its watches with Expired
 * (410: their clients list again), as kube's cacher ends its watchers when it relists.
 */
import type { Duplex } from 'node:stream';
import type { Etcd3, IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import type { Logger } from 'pino';
import { DeferredWatch } from './deferred-watch.js';
import type { EtcdKeyspace } from './etcd-keyspace.js';
import type { ChangeEvent, RetentionPolicy } from './event-history.js';
import type { Entry } from './key-index.js';
import { StorageError, type Key, type ListOptions, type ListResult, type Watch } from './storage.js';
import { WatchCache } from './watch-cache.js';

/** A kind's objects at one revision. */
export interface Snapshot {
  revision: number;
  entries: [Key, Entry][];
}

export interface FeedContext {
  client: Etcd3;
  keyspace: EtcdKeyspace;
  retention?: Partial<RetentionPolicy>;
  watchBufferSize?: number;
  logger?: Logger;
  /** Reads every object under `prefix` at `revision` (the newest when absent); StorageError on failure. */
  readAll(prefix: Key, revision?: number): Promise<Snapshot>;
  /** How the last exchange with etcd went (readiness). */
  reachable(ok: boolean, error?: unknown): void;
  /** etcd said it compacted its history up to `revision`. */
  compacted(revision: number): void;
  /** Changes received and not yet applied at which the etcd stream is paused (default 10,000). */
  queueLimit?: number;
}

/** Changes queued at which the etcd stream stops being read (it is read again at a tenth of it). */
export const DEFAULT_FEED_QUEUE_LIMIT = 10_000;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2_000;

/** etcd3 types the stream by what it uses; it is gRPC's duplex stream, a Node stream that can pause. */
type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse> & Pick<Duplex, 'pause' | 'resume'>;

export class EtcdWatchFeed {
  private cache: WatchCache | undefined;
  private starting: Promise<WatchCache> | undefined;
  private stream: WatchStream | undefined;
  private established = false;
  /** Changes (and progress revisions) received and not applied yet, from `queueHead` on. */
  private queue: (ChangeEvent | number)[] = [];
  private queueHead = 0;
  private draining = false;
  /** The newest revision received: a reopened watch starts after it. */
  private received = 0;
  /** Each queued key's state after its queued changes, for a change etcd sent without the previous value. */
  private readonly queuedState = new Map<Key, Entry | undefined>();
  private retryMs = RETRY_FIRST_MS;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Set while the stream is down, so the loss is logged once and its recovery once. */
  private outage: string | undefined;

  private readonly queueLimit: number;

  constructor(
    /** The kind's prefix, `/<group>/<plural>/`. */
    readonly prefix: Key,
    private readonly context: FeedContext,
  ) {
    this.queueLimit = context.queueLimit ?? DEFAULT_FEED_QUEUE_LIMIT;
  }

  /** How many watches the cache serves. */
  get watchCount(): number {
    return this.cache?.watchCount ?? 0;
  }

  /** The cache's revision, or undefined before it has started. */
  get revision(): number | undefined {
    return this.cache?.revision;
  }

  /** Whether etcd has created the watch and it is open (the cache is being kept current). */
  get connected(): boolean {
    return this.established;
  }

  /** The running cache; started from `revision` (when etcd still has it) or the newest one if there is none yet. */
  ensure(revision?: number): Promise<WatchCache> {
    if (this.cache) return Promise.resolve(this.cache);
    if (this.closed) return Promise.reject(new StorageError('Unavailable', this.prefix, 'storage is closed'));
    this.starting ??= this.start(revision).finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** Starts the cache now, and keeps trying while etcd cannot be reached. */
  startInBackground(): void {
    if (this.cache || this.closed) return;
    this.ensure().then(
      () => (this.retryMs = RETRY_FIRST_MS),
      () => this.retry(() => this.startInBackground()),
    );
  }

  watch(prefix: Key, fromRevision: number): Watch {
    if (this.cache) return this.cache.watch(prefix, fromRevision);
    return new DeferredWatch(fromRevision, this.ensure(fromRevision).then((cache) => cache.watch(prefix, fromRevision)));
  }

  /**
   * A list from the cache once it has reached `minRevision` (waiting at most `waitMs`), or
   * undefined when it has not: the caller reads etcd instead.
   */
  async list(prefix: Key, options: ListOptions, minRevision: number, waitMs: number): Promise<ListResult | undefined> {
    const cache = await this.ensure();
    const deadline = Date.now() + waitMs;
    while (cache.revision < minRevision) {
      if (this.cache !== cache || Date.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (this.cache !== cache) return undefined;
    const { startKey, limit, predicate } = options;
    return cache.list(prefix, { ...(startKey !== undefined ? { startKey } : {}), ...(limit ? { limit } : {}), ...(predicate ? { predicate } : {}) });
  }

  /** Lets go of the cache's history at or before `revision` (a compaction this process made). */
  compact(revision: number): void {
    this.cache?.compact(revision);
  }

  /** Stops the etcd watch and ends every watch cleanly. */
  stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.closeStream();
    this.cache?.endWatches();
  }

  private async start(revision: number | undefined): Promise<WatchCache> {
    const snapshot = await this.snapshotFor(revision);
    if (this.closed) throw new StorageError('Unavailable', this.prefix, 'storage is closed');
    if (this.cache) return this.cache;
    const cache = new WatchCache({
      revision: snapshot.revision,
      compactedRevision: snapshot.revision,
      ...(this.context.retention ? { retention: this.context.retention } : {}),
      ...(this.context.watchBufferSize ? { watchBufferSize: this.context.watchBufferSize } : {}),
    });
    for (const [key, entry] of snapshot.entries) cache.seed(key, entry);
    this.cache = cache;
    this.received = snapshot.revision;
    this.connect(cache);
    return cache;
  }

  /**
   * The kind at `revision`, so the cache can serve a watch from there. Compacted: at the newest
   * (a watch from before the cache is then Expired). Not reached yet: at the newest if that is
   * still at or before it, else at it, now that etcd has passed it.
   */
  private async snapshotFor(revision: number | undefined): Promise<Snapshot> {
    if (revision === undefined) return this.context.readAll(this.prefix);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.context.readAll(this.prefix, revision);
      } catch (error) {
        if (!(error instanceof StorageError) || (error.code !== 'Expired' && error.code !== 'TooLarge')) throw error;
        const newest = await this.context.readAll(this.prefix);
        if (error.code === 'Expired' || newest.revision <= revision || attempt === 3) return newest;
      }
    }
  }

  private connect(cache: WatchCache): void {
    if (this.closed || this.cache !== cache) return;
    const { client, keyspace } = this.context;
    client.watchClient.watch().then(
      (opened) => {
        const stream = opened as WatchStream;
        if (this.closed || this.cache !== cache) {
          stream.on('error', () => undefined); // the cancellation's own error
          stream.cancel();
          return;
        }
        this.stream = stream;
        stream.on('data', (response) => this.receive(cache, stream, response));
        stream.on('error', (error) => this.lost(cache, stream, error));
        stream.on('end', () => this.lost(cache, stream, new Error('etcd closed the watch stream')));
        stream.write({
          create_request: {
            key: keyspace.key(this.prefix),
            range_end: keyspace.rangeEnd(this.prefix),
            start_revision: this.received + 1,
            prev_kv: true,
            progress_notify: true,
          },
        });
      },
      (error: unknown) => this.lost(cache, undefined, error),
    );
  }

  private receive(cache: WatchCache, stream: WatchStream, response: IWatchResponse): void {
    if (stream !== this.stream || cache !== this.cache) return;
    if (response.canceled) {
      const compactRevision = Number(response.compact_revision);
      if (compactRevision > 0) {
        this.context.compacted(compactRevision);
        this.relist(cache, `etcd compacted its history to revision ${compactRevision}, past the cache's ${cache.revision}`, compactRevision);
      } else {
        this.lost(cache, stream, new Error(`etcd canceled the watch: ${response.cancel_reason || 'no reason given'}`));
      }
      return;
    }
    if (response.created) {
      this.established = true;
      this.retryMs = RETRY_FIRST_MS;
      this.context.reachable(true);
      if (this.outage !== undefined) this.context.logger?.info({ prefix: this.prefix, revision: cache.revision }, 'etcd watch resumed from the cache revision');
      this.outage = undefined;
      return;
    }
    if (response.events.length === 0) {
      // A progress notification: every change up to this revision has been sent.
      const revision = Number(response.header.revision);
      if (revision > this.received) {
        this.received = revision;
        this.queue.push(revision);
      }
    } else {
      try {
        this.queue.push(...this.changes(response.events));
      } catch (error) {
        this.relist(cache, (error as Error).message, cache.revision);
        return;
      }
    }
    // Backpressure: past a bound, stop reading the stream (gRPC's flow control then holds etcd
    // back, and etcd catches the watch up later) instead of queueing without limit.
    if (this.queue.length - this.queueHead > this.queueLimit) stream.pause();
    void this.drain();
  }

  /** Applies the queued changes one per turn of the event loop (see the module comment). */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      // A relist clears the queue, and a new cache queues only its own changes: apply to whichever cache is current.
      while (this.queueHead < this.queue.length && this.cache) {
        const item = this.queue[this.queueHead++]!;
        if (typeof item === 'number') this.cache.advance(item);
        else this.cache.apply([item]);
        const pending = this.queue.length - this.queueHead;
        if (pending <= this.queueLimit / 10) this.stream?.resume();
        if (this.queueHead >= 1024 && this.queueHead * 2 >= this.queue.length) {
          this.queue = this.queue.slice(this.queueHead); // let the applied changes go
          this.queueHead = 0;
        }
        if (pending > 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.draining = false;
    }
    if (this.queueHead >= this.queue.length) this.clearQueue();
  }

  private clearQueue(): void {
    this.queue = [];
    this.queueHead = 0;
    this.queuedState.clear();
  }

  /** etcd's events as the cache's changes: a put of a new key is ADDED (create_revision == mod_revision), another put MODIFIED. */
  private changes(events: readonly IEvent[]): ChangeEvent[] {
    const { keyspace } = this.context;
    const cache = this.cache!;
    const out: ChangeEvent[] = [];
    // The state before each change when etcd sent no previous value: after a queued change, or the cache's.
    const latest = this.queuedState;
    let last = this.received;
    for (const event of events) {
      const key = keyspace.storageKey(event.kv.key);
      const revision = Number(event.kv.mod_revision);
      if (revision === last && out.length > 0) {
        throw new Error(`two changes under ${this.prefix} share revision ${revision} (a multi-key etcd transaction, which the API server never makes)`);
      }
      if (revision <= last) continue; // delivered before a reconnection
      last = revision;
      const before = event.prev_kv
        ? { value: event.prev_kv.value.toString('utf8'), revision: Number(event.prev_kv.mod_revision) }
        : latest.has(key)
          ? latest.get(key)
          : cache.get(key);
      this.received = revision;
      if (event.type === 'Delete') {
        latest.set(key, undefined);
        if (!before) continue; // a key the cache never held
        out.push({ type: 'DELETED', key, revision, prevValue: before.value, prevRevision: before.revision });
        continue;
      }
      const value = event.kv.value.toString('utf8');
      latest.set(key, { value, revision });
      if (event.kv.create_revision === event.kv.mod_revision || !before) out.push({ type: 'ADDED', key, revision, value });
      else out.push({ type: 'MODIFIED', key, revision, value, prevValue: before.value, prevRevision: before.revision });
    }
    return out;
  }

  private lost(cache: WatchCache, stream: WatchStream | undefined, error: unknown): void {
    if (stream !== undefined && stream !== this.stream) return;
    this.closeStream();
    if (this.closed || this.cache !== cache) return;
    const reason = error instanceof Error ? error.message : String(error);
    if (this.outage === undefined) {
      this.context.logger?.warn({ prefix: this.prefix, revision: cache.revision, err: reason }, 'etcd watch lost; reopening it from the cache revision');
    }
    this.outage = reason;
    this.context.reachable(false, error);
    this.retry(() => this.connect(cache));
  }

  /** The cache cannot follow etcd any more: its watches end with Expired (their clients list again), and a new cache starts. */
  private relist(cache: WatchCache, reason: string, revision: number): void {
    if (this.cache !== cache) return;
    this.context.logger?.warn({ prefix: this.prefix, revision: cache.revision }, `${reason}: the watch cache lists again and its watches end with 410 Expired`);
    this.closeStream();
    this.cache = undefined;
    this.clearQueue();
    cache.endWatches(new StorageError('Expired', this.prefix, `too old resource version: ${cache.revision} (${revision})`, revision));
    this.startInBackground();
  }

  private retry(action: () => void): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(action, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private closeStream(): void {
    const stream = this.stream;
    this.stream = undefined;
    this.established = false;
    if (!stream) return;
    try {
      stream.cancel();
    } catch {
      // already ended
    }
  }
}
