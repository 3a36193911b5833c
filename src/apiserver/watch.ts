/**
 * Watch streams as kube-apiserver serves them (apiserver `handlers/watch.go`, the cacher): HTTP 200,
 * chunked, one `{"type":…,"object":…}` per line. Initial ADDED events (for a watch from no
 * resourceVersion or "0", or `sendInitialEvents=true` ending in the initial-events-end BOOKMARK),
 * then every change after the start revision; a filtered watch sees an object that starts
 * matching as ADDED and one that stops as DELETED. A resourceVersion too old for the history is a
 * single ERROR event (410 Expired) in a 200 stream. The stream ends at `timeoutSeconds` (with none,
 * at a random time between 1× and 2× the minimum request timeout, as kube-apiserver: kubectl
 * get -w does not reconnect, so there is no short default), when the client goes, when the server
 * shuts down, or when storage ends a watcher that fell too far behind (its client re-watches).
 * A client that does not read fast enough is ended rather than buffered for without bound: events
 * wait in a bounded outbox for the socket to drain, and a live change that overflows it (or a
 * storage watch that fell behind, TooSlow) closes the connection; client-go then lists and watches
 * again. What was already there when the watch began (the initial events, the history replayed
 * from an older resourceVersion) is instead paced by the socket, as kube's cacheWatcher blocks on
 * its initial events: however fast a client reads, a replay larger than the bound could never fit in it.
 * Storage hands every watcher of a change the same frozen object, and each line is encoded once per
 * (event, form) for all of them (watch-encoding.ts).
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import { StorageError, deepFreeze, type Watch, type WatchEvent } from './storage/index.js';
import type { Registry } from './registry.js';
import { parseResourceVersion, watchExpiredStatus, type ListOptions } from './list-options.js';
import { collectionPrefix, qualifiedResource } from './keys.js';
import { badRequest } from './status.js';
import type { JsonObject } from './json.js';
import { eventLine, jsonWatchEncoding, type WatchEncoding } from './watch-encoding.js';

export interface WatchServing {
  watches: WatchSet;
  minTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  logger?: Logger;
  /** Bytes of events a client may leave unread before its watch is ended (default 4 MiB). */
  maxQueuedBytes?: number;
  /**
   * The form of every event's object (a one-row Table for `kubectl get -w`, whose first event
   * alone carries the column definitions); the object as it is when absent.
   */
  encoding?: WatchEncoding;
}

/** The running watches, so shutdown can end them cleanly. */
export class WatchSet {
  private readonly running = new Set<() => void>();
  private closed = false;
  /** Runs `end` at once once the set is closed: a watch that starts during shutdown ends as it starts. */
  add(end: () => void): void {
    if (this.closed) end();
    else this.running.add(end);
  }
  delete(end: () => void): void {
    this.running.delete(end);
  }
  get size(): number {
    return this.running.size;
  }
  /** Ends every watch, and every watch that starts from now on. */
  endAll(): void {
    this.closed = true;
    for (const end of [...this.running]) end();
  }
}

export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/**
 * Serves a watch. `query` comes from parseListOptions (checked, and with kube 1.32's WatchList
 * defaults: a watch from no resourceVersion or "0" asks for the initial events); `predicate` is its
 * selectors, absent when they select everything.
 */
export async function serveWatch(
  ctx: Koa.Context,
  registry: Registry,
  namespace: string | undefined,
  query: ListOptions,
  predicate: ((object: JsonObject) => boolean) | undefined,
  serving: WatchServing,
): Promise<void> {
  const resource = registry.resource;
  const storage = registry.storageBackend;
  const prefix = collectionPrefix(resource, namespace);
  const matches = predicate ?? (() => true);
  const parsed = parseResourceVersion(query.resourceVersion);
  if (typeof parsed === 'string') throw badRequest(`invalid resource version: ${parsed}`);
  const requested = parsed === 0 ? undefined : parsed;
  // The current state first, as synthetic ADDED events: asked for, or (for older clients) implied by no resourceVersion.
  const initialEvents = query.sendInitialEvents ?? requested === undefined;

  let initial: JsonObject[] = [];
  let from: number;
  if (initialEvents) {
    // From "0", any state will do: a backend's watch cache may answer (kube's cacher does).
    const listed = await storage.list(prefix, { ...(predicate ? { predicate } : {}), ...(query.resourceVersion === '0' ? { minRevision: 0 } : {}) }).catch(registry.storageError(''));
    initial = listed.items;
    from = requested !== undefined && query.sendInitialEvents ? Math.max(requested, listed.revision) : listed.revision;
  } else from = requested ?? (await storage.currentRevision());

  const res = ctx.res;
  ctx.respond = false;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  const encoding = serving.encoding ?? jsonWatchEncoding;
  const maxQueued = serving.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  let open = true;
  let tooSlow = false;
  // Lines encoded but not yet taken by the socket: all a slow client can make the server hold for it.
  const outbox: (string | Buffer)[] = [];
  let queued = 0;
  // The bound is in bytes: shared lines are Buffers already, the others (initial events, bookmarks) strings.
  const sizeOf = (line: string | Buffer): number => (typeof line === 'string' ? Buffer.byteLength(line) : line.length);
  // `writing` gates a second writer; `writer` is awaited (a writer that never waited has already ended).
  let writing = false;
  let writer: Promise<void> = Promise.resolve();
  let stopWaiting: (() => void) | undefined;
  const drained = () =>
    new Promise<void>((done) => {
      const finish = () => {
        res.off('drain', finish);
        res.off('close', finish);
        stopWaiting = undefined;
        done();
      };
      res.on('drain', finish);
      res.on('close', finish);
      stopWaiting = finish;
    });
  const flush = (): void => {
    if (writing) return;
    writing = true;
    writer = (async () => {
      try {
        while (outbox.length && !res.destroyed) {
          const line = outbox.shift()!;
          queued -= sizeOf(line);
          if (!res.write(line)) await drained();
        }
      } finally {
        writing = false;
      }
    })();
  };
  /** Queues an event; past the bound the watcher is too slow and is ended, as kube's cacher ends one. */
  const send = (type: string, object: JsonObject): void => {
    if (!open) return;
    const line = eventLine(type, object, encoding.next());
    outbox.push(line);
    queued += sizeOf(line);
    flush();
    if (queued > maxQueued) {
      tooSlow = true;
      end();
    }
  };
  const bookmarkOf = (revision: number, annotations?: Record<string, string>): JsonObject => ({
    kind: resource.kind,
    apiVersion: resource.groupVersion,
    metadata: { resourceVersion: String(revision), ...(annotations ? { annotations } : {}) },
  });

  let watch: Watch | undefined;
  let stopped!: () => void;
  // Resolves when the watch ends (timeout, client gone, shutdown): a wait for the socket ends with it.
  const ending = new Promise<void>((done) => (stopped = done));
  const end = () => {
    open = false;
    stopped();
    watch?.stop();
  };
  /** Queues a line that waits for the socket, not counted against the bound: none but the replay of what was there. */
  const paced = async (line: string | Buffer): Promise<void> => {
    outbox.push(line);
    queued += sizeOf(line);
    flush();
    if (queued > maxQueued) await Promise.race([writer, ending]);
  };
  serving.watches.add(end);
  const seconds = query.timeoutSeconds !== undefined && query.timeoutSeconds > 0 ? query.timeoutSeconds : serving.minTimeoutSeconds * (1 + Math.random());
  const timer = setTimeout(end, seconds * 1000);
  res.once('close', end);
  let bookmarks: NodeJS.Timeout | undefined;
  try {
    // The initial burst may be larger than the bound: it waits for the socket instead.
    for (const object of initial) {
      if (!open) break;
      await paced(eventLine('ADDED', object, encoding.next()));
    }
    // The end of the initial events is a bookmark, sent to clients that take bookmarks (client-go's WatchList does).
    if (query.sendInitialEvents && query.allowWatchBookmarks && open) await paced(eventLine('BOOKMARK', bookmarkOf(from, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' }), encoding.next()));
    if (!open) return;
    // Changes up to here are history the watch replays; the ones after are live. Unknown (storage
    // unreachable): all live, the watch then fails as it starts anyway.
    const replayUntil = initialEvents ? from : await storage.currentRevision().catch(() => from);
    if (!open) return;
    watch = storage.watch(prefix, { fromRevision: from });
    const running = watch;
    // A bookmark is a hint: none is queued behind events the client has not taken (kube drops one to a full watcher too).
    if (query.allowWatchBookmarks) bookmarks = setInterval(() => outbox.length === 0 && send('BOOKMARK', bookmarkOf(running.progressRevision())), serving.bookmarkIntervalMs);
    for await (const event of running) {
      if (!open) break;
      const out = filtered(event, matches);
      if (!out) continue;
      if (event.revision <= replayUntil) await paced(eventLine(out.type, out.object, encoding.next()));
      else send(out.type, out.object);
    }
  } catch (err) {
    if (err instanceof StorageError && err.code === 'Expired') {
      send('ERROR', watchExpiredStatus(from, err.revision ?? from + 1) as unknown as JsonObject);
    } else if (err instanceof StorageError && err.code === 'TooSlow') {
      tooSlow = true;
    } else {
      serving.logger?.warn({ err: (err as Error).message, resource: qualifiedResource(resource) }, 'watch ended by an error');
      send('ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the watch ended: storage is unavailable', reason: 'ServiceUnavailable', code: 503 });
    }
  } finally {
    clearTimeout(timer);
    clearInterval(bookmarks);
    serving.watches.delete(end);
    res.off('close', end);
    watch?.stop();
    await finish();
  }

  /** Ends the response: cleanly once what is queued is written, or by closing the connection for a client too slow to take it. */
  async function finish(): Promise<void> {
    if (tooSlow) {
      // What the server held for the client when it gave up on it: the bound's evidence for operators.
      serving.logger?.info({ resource: qualifiedResource(resource), unsentBytes: queued }, 'watch ended: the client fell too far behind');
      outbox.length = 0;
      stopWaiting?.();
      res.destroy();
      return;
    }
    if (writing) {
      const grace = new Promise<void>((done) => setTimeout(done, FLUSH_GRACE_MS).unref());
      await Promise.race([writer, grace]);
    }
    if (outbox.length) res.destroy();
    else if (!res.writableEnded) res.end();
  }
}

/** How much a watcher's client may leave unread before the watch is ended (kube's cacher ends a blocked watcher too). */
const DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** How long the end of a watch waits for its last events to be taken before closing the connection. */
const FLUSH_GRACE_MS = 5_000;

/** An event as a watch with a selector sees it (apiserver `storage/etcd3/watcher.go` transform). */
function filtered(event: WatchEvent, matches: (o: JsonObject) => boolean): { type: string; object: JsonObject } | undefined {
  const now = matches(event.object);
  if (event.type === 'ADDED') return now ? { type: 'ADDED', object: event.object } : undefined;
  if (event.type === 'DELETED') return now ? { type: 'DELETED', object: event.object } : undefined;
  const before = event.prevObject !== undefined && matches(event.prevObject);
  if (now && before) return { type: 'MODIFIED', object: event.object };
  if (now) return { type: 'ADDED', object: event.object };
  if (before) return { type: 'DELETED', object: lastMatching(event) };
  return undefined;
}

/**
 * The state a filtered watch last matched, at the change's revision (so a client resuming from it
 * skips nothing): made once per event and frozen, so every watcher it stopped matching for shares
 * it and its encoding.
 */
const lastMatchingStates = new WeakMap<WatchEvent, JsonObject>();
function lastMatching(event: WatchEvent): JsonObject {
  let last = lastMatchingStates.get(event);
  if (!last) {
    last = structuredClone(event.prevObject!);
    (last.metadata as JsonObject).resourceVersion = String(event.revision);
    lastMatchingStates.set(event, deepFreeze(last));
  }
  return last;
}
