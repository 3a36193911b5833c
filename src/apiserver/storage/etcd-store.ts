/**
 * The etcd backend (`--etcd-servers`), mapped onto etcd as kube-apiserver maps it (apiserver
 * `storage/etcd3/store.go`; ../shared notes §5.1):
 *
 * - resourceVersion is etcd's revision: an object's is its key's mod_revision, a list's the
 *   revision it was read at;
 * - create is `Txn If(create_revision == 0) Then(Put) Else(Get)`; update and delete read, then
 *   `Txn If(mod_revision == read) Then(Put|Delete) Else(Get)`, trying again with the fresh value;
 * - get and lists are quorum reads of etcd; a list pages at one revision, and a read at a
 *   compacted revision is Expired (etcd does not say which revision it compacted to: found here);
 * - watches, and lists that accept any state from a revision on (resourceVersion "0", or N with
 *   NotOlderThan), are served by one watch cache per kind, each fed by one etcd watch
 *   (etcd-watch-feed.ts);
 * - the history is compacted as kube-apiserver compacts it (etcd-compactor.ts).
 *
 * When etcd cannot be reached every call fails within its deadline with Unavailable (the API
 * server's 503) and ready() turns false; a health check every second turns it true again, and the
 * watch feeds reopen their etcd watches from their caches' revisions.
 */
import type { Etcd3, IKeyValue, IRangeRequest, ITxnResponse } from 'etcd3';
import type { Logger } from 'pino';
import { checkPreconditions } from './embedded-store.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  connectEtcd,
  describeEtcdError,
  isCompacted,
  isDeadlineExceeded,
  isFutureRevision,
  isUnreachable,
  type EtcdConnectionOptions,
} from './etcd-client.js';
import { DEFAULT_COMPACTION_INTERVAL_MS, EtcdCompactor, compactNow, recordedCompaction } from './etcd-compactor.js';
import { DEFAULT_ETCD_PREFIX, EtcdKeyspace } from './etcd-keyspace.js';
import { EtcdWatchFeed, type Snapshot } from './etcd-watch-feed.js';
import { DeferredWatch } from './deferred-watch.js';
import type { RetentionPolicy } from './event-history.js';
import type { Entry } from './key-index.js';
import {
  NO_CHANGE,
  StorageError,
  type DeleteOptions,
  type Key,
  type ListOptions,
  type ListResult,
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

export interface EtcdStorageOptions extends EtcdConnectionOptions {
  /** `--etcd-prefix`: where the API server's keys live (default `/registry`). */
  prefix?: string;
  /** `--etcd-compaction-interval` (ms; default 5 minutes as kube-apiserver's; 0 turns compaction off). */
  compactionIntervalMs?: number;
  /** How often etcd's health is checked for readiness (ms; default 1 s). */
  healthIntervalMs?: number;
  /** The kinds' prefixes (`/<group>/<plural>/`) whose watch caches start now, as kube-apiserver starts its cachers. */
  kinds?: Key[];
  /** How long a list that accepts a cached state waits for the cache to reach its revision before reading etcd (ms; default 3 s). */
  cacheWaitMs?: number;
  retention?: Partial<RetentionPolicy>;
  watchBufferSize?: number;
  /** Changes from etcd waiting to enter a watch cache at which its etcd stream is paused (default 10,000). */
  feedQueueLimit?: number;
  logger?: Logger;
}

/** Keys read per range request of a list (a page of the list may take several). */
const LIST_BATCH = 1_000;

type TxnOutcome = { revision: number; current?: Entry };

export class EtcdStorage implements Storage {
  private readonly keyspace: EtcdKeyspace;
  private readonly feeds = new Map<Key, EtcdWatchFeed>();
  private readonly compactor: EtcdCompactor;
  private readonly healthTimer: NodeJS.Timeout;
  private readonly servers: string;
  private readonly timeoutMs: number;
  private readonly cacheWaitMs: number;
  private readonly logger: Logger | undefined;
  private closed = false;
  private healthy = false;
  private checking = false;
  /** A revision etcd is known to have compacted to (it may have compacted further since). */
  private compactedAtLeast = 0;

  constructor(
    private readonly client: Etcd3,
    private readonly options: EtcdStorageOptions,
  ) {
    this.keyspace = new EtcdKeyspace(options.prefix ?? DEFAULT_ETCD_PREFIX);
    this.servers = options.servers.join(',');
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.cacheWaitMs = options.cacheWaitMs ?? 3_000;
    this.logger = options.logger;
    this.compactor = new EtcdCompactor(client, options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS, (revision) => this.noteCompacted(revision), this.logger);
    this.compactor.start();
    this.healthTimer = setInterval(() => void this.checkHealth(), options.healthIntervalMs ?? 1_000);
    this.healthTimer.unref();
    for (const kind of options.kinds ?? []) this.feed(kind).startInBackground();
  }

  /** Asks etcd once whether it answers (readiness); true when it does. */
  async checkHealth(): Promise<boolean> {
    if (this.closed || this.checking) return this.healthy;
    this.checking = true;
    try {
      await this.client.kv.range({ key: this.keyspace.key('/'), keys_only: true, limit: 1 });
      this.reachable(true);
    } catch (error) {
      this.reachable(false, error);
    } finally {
      this.checking = false;
    }
    return this.healthy;
  }

  async currentRevision(): Promise<number> {
    this.checkOpen('');
    const response = await this.read('', () => this.client.kv.range({ key: this.keyspace.key('/'), keys_only: true, limit: 1 }));
    return Number(response.header.revision);
  }

  async create(key: Key, object: StoredObject, options: WriteOptions = {}): Promise<StoredObject> {
    this.checkOpen(key);
    const value = encodeObject(object);
    if (options.dryRun) {
      const existing = await this.readKey(key);
      if (existing) throw new StorageError('KeyExists', key, `${key} already exists`, existing.revision);
      return decodeUnversioned(value);
    }
    const etcdKey = this.keyspace.key(key);
    const outcome = await this.transact(key, () =>
      this.client.kv.txn({
        compare: [{ key: etcdKey, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: etcdKey, value: Buffer.from(value) } }],
        failure: [{ request_range: { key: etcdKey } }],
      }),
    );
    if (outcome.current) throw new StorageError('KeyExists', key, `${key} already exists`, outcome.current.revision);
    return decodeObject(value, outcome.revision);
  }

  async get(key: Key): Promise<StoredObject | undefined> {
    this.checkOpen(key);
    const entry = await this.readKey(key);
    return entry && decodeObject(entry.value, entry.revision);
  }

  async guaranteedUpdate(key: Key, update: UpdateFunction, options: UpdateOptions = {}): Promise<UpdateResult> {
    this.checkOpen(key);
    let state = await this.readKey(key);
    for (;;) {
      if (!state) throw new StorageError('KeyNotFound', key, `${key} not found`);
      const current = decodeObject(state.value, state.revision);
      checkPreconditions(key, current, state.revision, options.preconditions);
      const result = await update(current);
      if (result === NO_CHANGE) return { object: decodeObject(state.value, state.revision), changed: false };
      const value = encodeObject(result);
      if (unchanged(value, state.value)) return { object: decodeObject(state.value, state.revision), changed: false };
      if (options.dryRun) return { object: decodeObject(value, state.revision), changed: true };
      this.checkOpen(key);
      const outcome = await this.compareAndSwap(key, state.revision, { request_put: { key: this.keyspace.key(key), value: Buffer.from(value) } });
      if (outcome.current === undefined && outcome.revision > 0) return { object: decodeObject(value, outcome.revision), changed: true };
      state = outcome.current; // written meanwhile (or deleted): try again on the fresh state
    }
  }

  async delete(key: Key, options: DeleteOptions = {}): Promise<StoredObject> {
    this.checkOpen(key);
    let state = await this.readKey(key);
    for (;;) {
      if (!state) throw new StorageError('KeyNotFound', key, `${key} not found`);
      const current = decodeObject(state.value, state.revision);
      checkPreconditions(key, current, state.revision, options.preconditions);
      if (options.validateDeletion) await options.validateDeletion(current);
      if (options.dryRun) return current;
      this.checkOpen(key);
      const outcome = await this.compareAndSwap(key, state.revision, { request_delete_range: { key: this.keyspace.key(key) } });
      if (outcome.current === undefined && outcome.revision > 0) return decodeObject(state.value, outcome.revision);
      state = outcome.current;
    }
  }

  async list(prefix: Key, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen(prefix);
    if (options.minRevision !== undefined && options.revision === undefined) {
      // Any state from minRevision on will do: the watch cache's, if it has got there.
      const cached = await this.feed(prefix)
        .list(prefix, options, options.minRevision, this.cacheWaitMs)
        .catch(() => undefined);
      if (cached) return cached;
    }
    return this.listEtcd(prefix, options);
  }

  watch(prefix: Key, options: WatchOptions): Watch {
    if (this.closed) return DeferredWatch.failed(options.fromRevision, new StorageError('Unavailable', prefix, 'storage is closed'));
    return this.feed(prefix).watch(prefix, options.fromRevision);
  }

  ready(): boolean {
    return !this.closed && this.healthy;
  }

  /**
   * Compacts etcd's history to `revision` now, recording it where kube-apiserver's compactor
   * does: lists at older revisions and watches from them are Expired from then on.
   */
  async compact(revision: number): Promise<void> {
    this.checkOpen('');
    await this.read('', () => compactNow(this.client, revision));
    this.noteCompacted(revision);
    for (const feed of this.feeds.values()) feed.compact(revision);
  }

  /** How many etcd watches this store holds open: one per kind with a running cache. */
  etcdWatchCount(): number {
    let count = 0;
    for (const feed of this.feeds.values()) if (feed.connected) count++;
    return count;
  }

  /** How many watches the caches serve. */
  watchCount(): number {
    let count = 0;
    for (const feed of this.feeds.values()) count += feed.watchCount;
    return count;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.healthTimer);
    for (const feed of this.feeds.values()) feed.stop();
    await this.compactor.stop();
    this.client.close();
  }

  private feed(key: Key): EtcdWatchFeed {
    const prefix = EtcdKeyspace.feedPrefix(key);
    let feed = this.feeds.get(prefix);
    if (!feed) {
      feed = new EtcdWatchFeed(prefix, {
        client: this.client,
        keyspace: this.keyspace,
        ...(this.options.retention ? { retention: this.options.retention } : {}),
        ...(this.options.watchBufferSize ? { watchBufferSize: this.options.watchBufferSize } : {}),
        ...(this.options.feedQueueLimit ? { queueLimit: this.options.feedQueueLimit } : {}),
        ...(this.logger ? { logger: this.logger } : {}),
        readAll: (prefix, revision) => this.readAll(prefix, revision),
        reachable: (ok, error) => this.reachable(ok, error),
        compacted: (revision) => this.noteCompacted(revision),
      });
      this.feeds.set(prefix, feed);
    }
    return feed;
  }

  /** The key's text and mod_revision, or undefined. */
  private async readKey(key: Key): Promise<Entry | undefined> {
    const response = await this.read(key, () => this.client.kv.range({ key: this.keyspace.key(key) }));
    const kv = response.kvs[0];
    return kv && entryOf(kv);
  }

  /** `Txn If(mod_revision == revision) Then(op) Else(Get)`: the write's revision, or the key's fresh state (undefined: gone). */
  private compareAndSwap(key: Key, revision: number, op: { request_put: { key: Buffer; value: Buffer } } | { request_delete_range: { key: Buffer } }): Promise<TxnOutcome> {
    const etcdKey = this.keyspace.key(key);
    return this.transact(key, () =>
      this.client.kv.txn({
        compare: [{ key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: revision }],
        success: [op],
        failure: [{ request_range: { key: etcdKey } }],
      }),
    );
  }

  /** Runs a compare-and-swap transaction: the write's revision when it succeeded, else the key's state then (revision 0). */
  private async transact(key: Key, run: () => Promise<ITxnResponse>): Promise<TxnOutcome> {
    let response: ITxnResponse;
    try {
      response = await run();
      this.reachable(true);
    } catch (error) {
      throw this.unavailable(key, error, true);
    }
    if (response.succeeded) return { revision: Number(response.header.revision) };
    const kv = response.responses[0]?.response_range?.kvs[0];
    return { revision: 0, ...(kv ? { current: entryOf(kv) } : {}) };
  }

  /** A read, tried on each server in turn (reads are safe to repeat) within the deadline of each call. */
  private async read<T>(key: Key, run: () => Promise<T>): Promise<T> {
    const attempts = this.options.servers.length;
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await run();
        this.reachable(true);
        return result;
      } catch (error) {
        if (isCompacted(error) || isFutureRevision(error)) throw error;
        if (attempt >= attempts || this.closed) throw this.unavailable(key, error, false);
      }
    }
  }

  private unavailable(key: Key, error: unknown, write: boolean): StorageError {
    if (this.closed) return new StorageError('Unavailable', key, 'storage is closed');
    const cause = describeEtcdError(error);
    if (!isUnreachable(error)) {
      // etcd answered, with a refusal (a request over its --max-request-bytes, a full database): still reachable.
      return new StorageError('Unavailable', key, `etcd (${this.servers}) refused the ${write ? 'write' : 'read'}: ${cause}`);
    }
    this.reachable(false, error);
    const seconds = `${this.timeoutMs / 1000}s`;
    const message =
      write && isDeadlineExceeded(error)
        ? `etcd (${this.servers}) did not answer within ${seconds}: the write may or may not have been applied; read the object before trying again`
        : isDeadlineExceeded(error)
          ? `etcd (${this.servers}) did not answer within ${seconds}`
          : `etcd (${this.servers}) is unavailable: ${cause}`;
    return new StorageError('Unavailable', key, message);
  }

  /** Every object under `prefix` at one revision (the newest when absent): what a watch cache starts from. */
  private async readAll(prefix: Key, revision?: number): Promise<Snapshot> {
    const entries: [Key, Entry][] = [];
    let from = this.keyspace.key(prefix);
    let at = revision ?? 0;
    for (;;) {
      const response = await this.range(prefix, { key: from, range_end: this.keyspace.rangeEnd(prefix), revision: at, limit: LIST_BATCH }, revision);
      // A read at revision 0 is at the newest, which the header tells; a read at a revision, at it (the header tells the newest).
      at ||= Number(response.header.revision);
      for (const kv of response.kvs) entries.push([this.keyspace.storageKey(kv.key), entryOf(kv)]);
      if (!response.more || response.kvs.length === 0) return { revision: at, entries };
      from = Buffer.concat([response.kvs[response.kvs.length - 1]!.key, Buffer.from([0])]);
    }
  }

  /** A page of a list from etcd, every range of it at one revision. */
  private async listEtcd(prefix: Key, options: ListOptions): Promise<ListResult> {
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const predicate = options.predicate;
    const start = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const end = this.keyspace.rangeEnd(prefix);
    // Without a predicate one more key than the page says where the next page starts.
    const batch = predicate || limit === Infinity ? LIST_BATCH : Math.min(limit + 1, LIST_BATCH);
    let from = this.keyspace.key(start);
    let at = options.revision ?? 0;
    const items: StoredObject[] = [];
    for (;;) {
      const response = await this.range(prefix, { key: from, range_end: end, revision: at, limit: batch }, options.revision);
      at ||= Number(response.header.revision);
      const kvs = response.kvs;
      for (let index = 0; index < kvs.length; index++) {
        const kv = kvs[index]!;
        if (items.length >= limit) {
          // etcd's count is of every key from the first of this range on.
          return { items, revision: at, continueKey: this.keyspace.storageKey(kv.key), remainingItemCount: Number(response.count) - index };
        }
        const object = decodeObject(kv.value.toString('utf8'), Number(kv.mod_revision));
        if (!predicate || predicate(object)) items.push(object);
      }
      if (!response.more || kvs.length === 0) return { items, revision: at };
      from = Buffer.concat([kvs[kvs.length - 1]!.key, Buffer.from([0])]);
    }
  }

  /** A range read, with etcd's revision errors as the contract's: Expired (with the oldest revision kept), TooLarge. */
  private async range(prefix: Key, request: IRangeRequest, revision: number | undefined) {
    try {
      return await this.read(prefix, () => this.client.kv.range(request));
    } catch (error) {
      if (isCompacted(error)) {
        const oldest = await this.oldestRevision();
        throw new StorageError('Expired', prefix, `too old resource version: ${revision} (${oldest})`, oldest);
      }
      if (isFutureRevision(error)) {
        const current = await this.currentRevision();
        throw new StorageError('TooLarge', prefix, `Too large resource version: ${revision}, current: ${current}`, current);
      }
      throw error;
    }
  }

  /**
   * The oldest revision etcd still serves: what it compacted to. etcd says so only when it cancels
   * a watch (and etcd3 drops it there), so it is found by reading: the revision compact_rev_key
   * records if reads work there and not just before it, else by bisection between the revision
   * known compacted and the current one.
   */
  private async oldestRevision(): Promise<number> {
    const current = await this.currentRevision();
    const readable = async (revision: number): Promise<boolean> => {
      try {
        await this.read('', () => this.client.kv.range({ key: this.keyspace.key('/'), keys_only: true, limit: 1, revision }));
        return true;
      } catch (error) {
        if (isCompacted(error)) return false;
        throw error;
      }
    };
    let low = Math.max(this.compactedAtLeast, 1);
    const hint = await this.read('', () => recordedCompaction(this.client));
    if (hint !== undefined && hint > low && hint <= current && (await readable(hint)) && !(await readable(hint - 1))) low = hint;
    else {
      let high = current;
      while (low < high) {
        const middle = Math.floor((low + high) / 2);
        if (await readable(middle)) high = middle;
        else low = middle + 1;
      }
    }
    this.noteCompacted(low);
    return low;
  }

  private noteCompacted(revision: number): void {
    if (revision > this.compactedAtLeast) this.compactedAtLeast = revision;
  }

  private reachable(ok: boolean, error?: unknown): void {
    if (this.closed || ok === this.healthy) return;
    this.healthy = ok;
    if (ok) this.logger?.info({ etcd: this.servers }, 'etcd is reachable: ready');
    else this.logger?.warn({ etcd: this.servers, err: describeEtcdError(error) }, 'etcd is unreachable: not ready; requests answer 503 until it is back');
  }

  private checkOpen(key: Key): void {
    if (this.closed) throw new StorageError('Unavailable', key, 'storage is closed');
  }
}

function entryOf(kv: IKeyValue): Entry {
  return { value: kv.value.toString('utf8'), revision: Number(kv.mod_revision) };
}

/**
 * Connects to etcd and opens the backend. etcd need not be up yet: the API server starts, its
 * readiness stays false and calls answer Unavailable until etcd answers.
 */
export async function openEtcdStorage(options: EtcdStorageOptions): Promise<EtcdStorage> {
  const client = connectEtcd(options);
  const storage = new EtcdStorage(client, options);
  await storage.checkHealth();
  return storage;
}
