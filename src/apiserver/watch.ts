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
 * wait in a bounded outbox for the socket to drain, and one that overflows it (or a storage watch
 * that fell behind, TooSlow) closes the connection; client-go then lists and watches again.
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import { StorageError, type Watch, type WatchEvent } from './storage/index.js';
import type { Registry } from './registry.js';
import { parseResourceVersion, watchExpiredStatus, type ListOptions } from './list-options.js';
import { collectionPrefix, qualifiedResource } from './keys.js';
import { badRequest } from './status.js';
import type { JsonObject } from './json.js';

export interface WatchServing {
  watches: WatchSet;
  minTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  logger?: Logger;
  /** Bytes of events a client may leave unread before its watch is ended (default 4 MiB). */
  maxQueuedBytes?: number;
  /**
   * Turns every event's object into what is sent (a one-row Table for `kubectl get -w`, whose
   * first event alone carries the column definitions); identity when absent.
   */
  encodeObject?: (object: JsonObject) => unknown;
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

  const encode = serving.encodeObject ?? ((o: JsonObject) => o);
  const maxQueued = serving.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  let open = true;
  let tooSlow = false;
  // Lines encoded but not yet taken by the socket: all a slow client can make the server hold for it.
  const outbox: string[] = [];
  let queued = 0;
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
          queued -= line.length;
          if (!res.write(line)) await drained();
        }
      } finally {
        writing = false;
      }
    })();
  };
  /** Queues an event; past the bound the watcher is too slow and is ended, as kube's cacher ends one. */
  const send = (type: string, object: JsonObject, shared?: string): void => {
    if (!open) return;
    const line = shared !== undefined && !serving.encodeObject ? sharedLine(storage, shared, type, object) : `${JSON.stringify({ type, object: encode(object) })}\n`;
    outbox.push(line);
    queued += line.length;
    flush();
    if (queued > maxQueued) {
      tooSlow = true;
      end();
    }
  };
  const bookmark = (revision: number, annotations?: Record<string, string>) =>
    send('BOOKMARK', { kind: resource.kind, apiVersion: resource.groupVersion, metadata: { resourceVersion: String(revision), ...(annotations ? { annotations } : {}) } });

  let watch: Watch | undefined;
  const end = () => {
    open = false;
    watch?.stop();
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
      outbox.push(`${JSON.stringify({ type: 'ADDED', object: encode(object) })}\n`);
      queued += outbox[outbox.length - 1]!.length;
      flush();
      if (queued > maxQueued) await writer;
    }
    // The end of the initial events is a bookmark, sent to clients that take bookmarks (client-go's WatchList does).
    if (query.sendInitialEvents && query.allowWatchBookmarks) bookmark(from, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' });
    if (!open) return;
    watch = storage.watch(prefix, { fromRevision: from });
    const running = watch;
    if (query.allowWatchBookmarks) bookmarks = setInterval(() => bookmark(running.progressRevision()), serving.bookmarkIntervalMs);
    for await (const event of running) {
      if (!open) break;
      const out = filtered(event, matches);
      if (out) send(out.type, out.object, `${event.key}@${event.revision}`);
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
      serving.logger?.info({ resource: qualifiedResource(resource) }, 'watch ended: the client fell too far behind');
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

/**
 * The plain JSON line of a change, written once however many watchers send it: a change is one
 * (key, revision) of one store, and its line for an event type is the same for every watcher. A few hundred
 * recent lines cover a burst fanned out to every watcher.
 */
const SHARED_LINES = 512;
const sharedLinesByStore = new WeakMap<object, Map<string, string>>();
function sharedLine(store: object, change: string, type: string, object: JsonObject): string {
  let sharedLines = sharedLinesByStore.get(store);
  if (!sharedLines) sharedLinesByStore.set(store, (sharedLines = new Map()));
  const id = `${type} ${change}`;
  let line = sharedLines.get(id);
  if (line === undefined) {
    line = `${JSON.stringify({ type, object })}\n`;
    if (sharedLines.size >= SHARED_LINES) sharedLines.delete(sharedLines.keys().next().value!);
    sharedLines.set(id, line);
  }
  return line;
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
  if (before) {
    // Its last matching state, at this change's revision, so a client resuming from it skips nothing.
    const last = structuredClone(event.prevObject!);
    (last.metadata as JsonObject).resourceVersion = String(event.revision);
    return { type: 'DELETED', object: last };
  }
  return undefined;
}
