/**
 * The storage contract of `fleetgate apiserver`, shaped like k8s.io/apiserver's storage.Interface:
 * create, get, guaranteed update, delete, list at a revision and watch from a revision. The API
 * server's registry writes only through it; backends are the embedded store (in memory, persisted
 * to a LevelDB directory unless `--storage memory`) and etcd.
 *
 * Objects are plain JSON. A backend stamps `metadata.resourceVersion` (the decimal revision of the
 * object's last write) on every object it returns and never stores it; it reads nothing else of
 * the object. Everything Kubernetes-specific (uid, generation, finalizers, admission) lives above.
 */

/** A stored object: JSON, with `metadata.resourceVersion` stamped by the backend on the way out. */
export type StoredObject = Record<string, unknown>;

/**
 * Keys are `/<group>/<plural>/<name>` for cluster-scoped kinds and
 * `/<group>/<plural>/<namespace>/<name>` for namespaced ones (etcd prepends its `--etcd-prefix`).
 * A list or watch prefix ends with `/`, so `/g/p/ns1/` never matches `/g/p/ns10/x`.
 */
export type Key = string;

export type StorageErrorCode =
  /** create: the key exists. */
  | 'KeyExists'
  /** update, delete: the key does not exist. */
  | 'KeyNotFound'
  /** A precondition (uid or resourceVersion) does not hold. */
  | 'Conflict'
  /** The revision asked for was compacted away: 410 Expired, and a client relists. */
  | 'Expired'
  /** The revision asked for is newer than the newest committed one: 504 "Too large resource version". */
  | 'TooLarge'
  /** The backend cannot be reached or failed to write: 503, nothing was acknowledged. */
  | 'Unavailable'
  /** The watcher fell too far behind and was ended; its client relists. */
  | 'TooSlow';

export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    readonly code: StorageErrorCode,
    readonly key: Key,
    message: string,
    /**
     * For Expired: the oldest revision still kept. For Conflict: the current revision of the key.
     * For TooLarge: the newest committed revision.
     */
    readonly revision?: number,
  ) {
    super(message);
  }
}

export interface Preconditions {
  uid?: string;
  /** The decimal revision the object must still have. */
  resourceVersion?: string;
}

export interface WriteOptions {
  /** Run every check the real write would, then answer without writing, bumping a revision or emitting an event. */
  dryRun?: boolean;
}

/**
 * What a guaranteed update's function returns: the new object, or NO_CHANGE to leave the stored one
 * as it is (no write, no new revision, no event). A function may also throw: the error propagates.
 */
export const NO_CHANGE: unique symbol = Symbol('no change');
export type UpdateFunction = (current: StoredObject) => StoredObject | typeof NO_CHANGE | Promise<StoredObject | typeof NO_CHANGE>;

export interface UpdateOptions extends WriteOptions {
  preconditions?: Preconditions;
}

export interface UpdateResult {
  object: StoredObject;
  /** False when the function returned NO_CHANGE or an object equal to the stored one. */
  changed: boolean;
}

export interface DeleteOptions extends WriteOptions {
  preconditions?: Preconditions;
  /** Called with the current object inside the delete's compare-and-swap loop; throw to refuse. */
  validateDeletion?: (current: StoredObject) => void | Promise<void>;
}

export interface ListOptions {
  /**
   * Read exactly at this revision (a continue token's, or resourceVersionMatch=Exact): Expired
   * when compacted, TooLarge when newer than the newest committed one. Absent: the newest committed revision.
   */
  revision?: number;
  /**
   * Any state at or after this revision will do (resourceVersion "0", or "N" with NotOlderThan):
   * a backend with a watch cache may answer from it instead of reading the newest revision.
   * Ignored with `revision`.
   */
  minRevision?: number;
  /** Start at this key, inclusive (a continue token's next key). */
  startKey?: Key;
  /** At most this many items (after the predicate); 0 or absent for all. */
  limit?: number;
  /** Keep only the objects it accepts (label and field selectors); `limit` counts kept items. */
  predicate?: (object: StoredObject) => boolean;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision the list was read at: the list's resourceVersion. */
  revision: number;
  /** Set when the list stopped at `limit` with more to come: the key to start the next page at. */
  continueKey?: Key;
  /** When continueKey is set and the backend knows: how many objects remain (before the predicate). */
  remainingItemCount?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * One change as a watch delivers it. Every watch that receives a change receives the same event
 * object, deeply frozen (kube's cacher shares one decoded object per event the same way): one
 * decode per change however many watchers, and a serialization can be cached per object identity.
 * A consumer that needs to change the object copies it; none can change what another receives.
 * (Objects from create, get, guaranteedUpdate, delete and list stay fresh, unfrozen copies.)
 */
export interface WatchEvent {
  type: WatchEventType;
  key: Key;
  /** The object after the change; for DELETED its last state, stamped with the deletion's revision. */
  object: StoredObject;
  /** The object before the change (MODIFIED, DELETED); filtered watches need it. */
  prevObject?: StoredObject;
  revision: number;
}

export interface WatchOptions {
  /** Deliver the events after this revision (a watch from resourceVersion N starts at N+1). */
  fromRevision: number;
}

/**
 * A running watch: events in revision order, never one twice, never one skipped. It ends when
 * stop() is called or the backend ends it: with StorageError Expired (fromRevision compacted),
 * TooSlow (the consumer fell more than the backend's buffer behind) or Unavailable.
 */
export interface Watch extends AsyncIterable<WatchEvent> {
  stop(): void;
  /**
   * The revision up to which this watch has delivered every change under its prefix: a BOOKMARK's
   * resourceVersion. Not currentRevision(), which may be ahead of events still buffered for the watch.
   */
  progressRevision(): number;
}

export interface Storage {
  /** The newest committed revision: a list or watch without a resourceVersion starts here. */
  currentRevision(): Promise<number>;
  /** Creates `key`; KeyExists when it is there. A dry run answers without a resourceVersion. */
  create(key: Key, object: StoredObject, options?: WriteOptions): Promise<StoredObject>;
  /** The object at `key`, or undefined. */
  get(key: Key): Promise<StoredObject | undefined>;
  /**
   * Reads `key`, checks the preconditions, calls `update` and writes its answer only if the key was
   * not written meanwhile (compare-and-swap on the revision), retrying with the fresh object until it
   * is. KeyNotFound when the key is missing; Conflict when a precondition fails. A dry run answers with
   * the current resourceVersion.
   */
  guaranteedUpdate(key: Key, update: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult>;
  /** Removes `key` and answers its last state stamped with the deletion's revision. KeyNotFound, Conflict. */
  delete(key: Key, options?: DeleteOptions): Promise<StoredObject>;
  /** The objects under `prefix` in key order, all read at one revision. */
  list(prefix: Key, options?: ListOptions): Promise<ListResult>;
  /** The changes under `prefix` after `fromRevision`. */
  watch(prefix: Key, options: WatchOptions): Watch;
  /** Whether the backend can serve now (readyz). */
  ready(): boolean;
  /** Ends every watch and releases the backend (the data directory's lock, the etcd connection). */
  close(): Promise<void>;
}
