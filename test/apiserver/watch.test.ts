/**
 * Watch streams over a real socket (plain HTTP on 127.0.0.1, port 0): resume from a
 * resourceVersion, initial events, the initial-events-end bookmark, filtered watches, 410 as an
 * ERROR event, timeouts, bookmarks, Table events, a slow watcher, and shutdown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiServerApp, type ApiServerAppOptions } from '../../src/apiserver/app.js';
import { createMemoryStorage, type MemoryStorageOptions } from '../../src/apiserver/storage/index.js';
import type { Storage } from '../../src/apiserver/storage/index.js';
import { cluster } from '../fixtures/cluster.js';
import { eventually } from './kubectl-server.js';
import { pino } from 'pino';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const copy = <T>(o: T): any => structuredClone(o);
const named = (name: string, labels?: Record<string, string>) => ({ ...copy(cluster), metadata: { name, ...(labels ? { labels } : {}) } });

interface Running {
  base: string;
  server: Server;
  app: ReturnType<typeof createApiServerApp>;
  storage: Storage;
}
let running: Running | undefined;

async function start(options: Partial<ApiServerAppOptions> = {}, storageOptions: MemoryStorageOptions = {}): Promise<Running> {
  const storage = createMemoryStorage(storageOptions);
  const app = createApiServerApp({ storage, ...options });
  const server = createServer(app.app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  running = { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, app, storage };
  return running;
}

afterEach(async () => {
  if (!running) return;
  running.app.endWatches();
  running.server.closeAllConnections();
  await new Promise((r) => running!.server.close(r));
  await running.storage.close();
  running = undefined;
});

async function call(r: Running, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<any> {
  const res = await fetch(r.base + path, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': contentType } } : {}) });
  return { status: res.status, body: await res.json() };
}

interface Stream {
  events: any[];
  status: Promise<number>;
  ended: Promise<void>;
  /** Stops reading: the socket's buffers fill and the server's writes wait. */
  pause(): void;
  resume(): void;
  close(): void;
}

function watch(r: Running, path: string, headers: Record<string, string> = {}): Stream {
  const events: any[] = [];
  let setStatus!: (n: number) => void;
  let setEnded!: () => void;
  const status = new Promise<number>((resolve) => (setStatus = resolve));
  const ended = new Promise<void>((resolve) => (setEnded = resolve));
  let buffer = '';
  const req = request(r.base + path, { headers }, (res) => {
    setStatus(res.statusCode!);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
    });
    res.on('end', setEnded);
    res.on('close', setEnded);
    stream.pause = () => res.pause();
    stream.resume = () => res.resume();
  });
  req.on('error', () => setEnded());
  // A paused response emits no 'close'; its request does when the connection goes.
  req.on('close', () => setEnded());
  req.end();
  const stream: Stream = { events, status, ended, pause: () => undefined, resume: () => undefined, close: () => req.destroy() };
  return stream;
}

const summary = (events: any[]) => events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`.trim());

describe('watch', () => {
  it('from a resourceVersion: every change after it, in order; DELETED carries the deletion revision', async () => {
    const r = await start();
    await call(r, 'POST', CLUSTERS, named('a'));
    const list = await call(r, 'GET', CLUSTERS);
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    expect(await w.status).toBe(200);
    await call(r, 'POST', CLUSTERS, named('b'));
    await call(r, 'PATCH', `${CLUSTERS}/a`, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
    await call(r, 'DELETE', `${CLUSTERS}/b`);
    await eventually(() => w.events.length >= 3, 'three events');
    expect(summary(w.events)).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b']);
    const [added, modified, deleted] = w.events;
    expect(Number(modified.object.metadata.resourceVersion)).toBeGreaterThan(Number(added.object.metadata.resourceVersion));
    expect(Number(deleted.object.metadata.resourceVersion)).toBeGreaterThan(Number(modified.object.metadata.resourceVersion));
    w.close();
  });

  it('resumes where a client left off: a second watch from the last seen resourceVersion misses nothing', async () => {
    const r = await start();
    const first = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`);
    await call(r, 'POST', CLUSTERS, named('a'));
    await eventually(() => first.events.length === 1, 'the first event');
    first.close();
    const seen = first.events[0].object.metadata.resourceVersion;
    await call(r, 'POST', CLUSTERS, named('b'));
    await call(r, 'POST', CLUSTERS, named('c'));
    const second = watch(r, `${CLUSTERS}?watch=true&resourceVersion=${seen}`);
    await eventually(() => second.events.length >= 2, 'the missed events');
    expect(summary(second.events)).toEqual(['ADDED b', 'ADDED c']);
    second.close();
  });

  it('without a resourceVersion: synthetic ADDED for what exists, then the changes', async () => {
    const r = await start();
    await call(r, 'POST', CLUSTERS, named('a'));
    const w = watch(r, `${CLUSTERS}?watch=true`);
    await eventually(() => w.events.length === 1, 'the initial event');
    await call(r, 'POST', CLUSTERS, named('b'));
    await eventually(() => w.events.length === 2, 'the change');
    expect(summary(w.events)).toEqual(['ADDED a', 'ADDED b']);
    w.close();
  });

  it('sendInitialEvents ends the initial burst with the initial-events-end bookmark', async () => {
    const r = await start();
    await call(r, 'POST', CLUSTERS, named('a'));
    await call(r, 'POST', CLUSTERS, named('b'));
    const w = watch(r, `${CLUSTERS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    await eventually(() => w.events.length === 3, 'the initial events and the bookmark');
    expect(summary(w.events)).toEqual(['ADDED a', 'ADDED b', 'BOOKMARK']);
    expect(w.events[2].object).toMatchObject({
      kind: 'Cluster',
      apiVersion: 'cluster.karmada.io/v1alpha1',
      metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
    expect(Number(w.events[2].object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(w.events[1].object.metadata.resourceVersion));
    w.close();
  });

  it('a filtered watch sees an object that starts matching as ADDED and one that stops as DELETED', async () => {
    const r = await start();
    await call(r, 'POST', CLUSTERS, named('a', { tier: 'gold' }));
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1&labelSelector=tier%3Dgold`);
    await call(r, 'POST', CLUSTERS, named('b', { tier: 'silver' }));
    await call(r, 'PATCH', `${CLUSTERS}/b`, { metadata: { labels: { tier: 'gold' } } }, 'application/merge-patch+json');
    await call(r, 'PATCH', `${CLUSTERS}/a`, { metadata: { labels: { tier: 'bronze' } } }, 'application/merge-patch+json');
    await eventually(() => w.events.length >= 3, 'three events');
    expect(summary(w.events)).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
    // The DELETED one carries its last matching state, at the change's revision.
    expect(w.events[2].object.metadata.labels).toEqual({ tier: 'gold' });
    w.close();
  });

  it('a resourceVersion older than the history is a single ERROR event 410 Expired in a 200 stream', async () => {
    const r = await start({}, { retention: { minEvents: 1, maxEvents: 2, freshMs: 0 } });
    for (const n of ['a', 'b', 'c', 'd', 'e']) await call(r, 'POST', CLUSTERS, named(n));
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=2`);
    expect(await w.status).toBe(200);
    await w.ended;
    expect(w.events).toHaveLength(1);
    expect(w.events[0].type).toBe('ERROR');
    expect(w.events[0].object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    expect(w.events[0].object.message).toMatch(/^too old resource version: 2 \(\d+\)$/);
  });

  it('a list at a compacted resourceVersion (Exact) or continue token is 410 Expired', async () => {
    const r = await start({}, { retention: { minEvents: 1, maxEvents: 2, freshMs: 0 } });
    for (const n of ['a', 'b', 'c']) await call(r, 'POST', CLUSTERS, named(n));
    const first = await call(r, 'GET', `${CLUSTERS}?limit=1`);
    for (const n of ['d', 'e', 'f', 'g']) await call(r, 'POST', CLUSTERS, named(n));
    const exact = await call(r, 'GET', `${CLUSTERS}?resourceVersion=2&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.body.reason).toBe('Expired');
    const next = await call(r, 'GET', `${CLUSTERS}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(next.status).toBe(410);
  });

  it('ends at timeoutSeconds', async () => {
    const r = await start();
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1&timeoutSeconds=1`);
    const began = Date.now();
    await w.ended;
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
  });

  it('with no timeoutSeconds, runs past any short default (kubectl get -w does not reconnect)', async () => {
    const r = await start({ minRequestTimeoutSeconds: 1800 });
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`);
    let ended = false;
    void w.ended.then(() => (ended = true));
    await new Promise((res) => setTimeout(res, 1500));
    expect(ended).toBe(false);
    w.close();
  });

  it('sends BOOKMARKs with allowWatchBookmarks, never ahead of the events delivered', async () => {
    const r = await start({ bookmarkIntervalMs: 100 });
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1&allowWatchBookmarks=true`);
    await call(r, 'POST', CLUSTERS, named('a'));
    await eventually(() => w.events.some((e) => e.type === 'BOOKMARK' && Number(e.object.metadata.resourceVersion) >= 2), 'a bookmark past the event');
    const added = w.events.findIndex((e) => e.type === 'ADDED');
    for (const [i, e] of w.events.entries()) {
      if (e.type === 'BOOKMARK' && i < added) expect(Number(e.object.metadata.resourceVersion)).toBeLessThan(Number(w.events[added].object.metadata.resourceVersion));
    }
    const plain = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`);
    await new Promise((res) => setTimeout(res, 300));
    expect(plain.events.filter((e) => e.type === 'BOOKMARK')).toEqual([]);
    w.close();
    plain.close();
  });

  it('as a Table for kubectl get -w: one row per event, column definitions only in the first', async () => {
    const r = await start();
    await call(r, 'POST', CLUSTERS, named('a'));
    const w = watch(r, `${CLUSTERS}?watch=true`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    await call(r, 'POST', CLUSTERS, named('b'));
    await eventually(() => w.events.length === 2, 'two events');
    expect(w.events[0].object.kind).toBe('Table');
    expect(w.events[0].object.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Version', 'Mode', 'Ready', 'Age', 'Zones', 'Region', 'Provider', 'API-Endpoint', 'Proxy-URL']);
    expect(w.events[1].object.columnDefinitions).toBeNull();
    expect(w.events[1].object.rows[0].cells[0]).toBe('b');
    w.close();
  });

  it('watchers of one change in different forms each get theirs, though each form is encoded once for all', async () => {
    const r = await start();
    const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    const METADATA = { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json' };
    const plain = [watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`), watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`)];
    const tables = [watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`, TABLE)];
    const metadata = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`, METADATA);
    const gold = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1&labelSelector=tier%3Dgold`);
    await eventually(() => r.app.watchCount() === 5, 'five watches');
    await call(r, 'POST', CLUSTERS, named('a', { tier: 'gold' }));
    await eventually(() => tables[0]!.events.length === 1, 'the first Table event');
    // A Table watcher that joins after the first change still gets the column definitions first.
    tables.push(watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`, TABLE));
    await eventually(() => r.app.watchCount() === 6, 'six watches');
    await call(r, 'PATCH', `${CLUSTERS}/a`, { metadata: { labels: { tier: 'bronze' } } }, 'application/merge-patch+json');
    const all = [...plain, ...tables, metadata, gold];
    await eventually(() => all.every((w) => w.events.length === 2), 'both changes everywhere');
    for (const w of plain) expect(w.events).toEqual(plain[0]!.events);
    expect(plain[0]!.events.map((e) => [e.type, e.object.kind, e.object.metadata.labels])).toEqual([
      ['ADDED', 'Cluster', { tier: 'gold' }],
      ['MODIFIED', 'Cluster', { tier: 'bronze' }],
    ]);
    for (const w of tables) {
      expect(w.events.map((e) => [e.type, e.object.kind, e.object.columnDefinitions === null])).toEqual([
        ['ADDED', 'Table', false],
        ['MODIFIED', 'Table', true],
      ]);
      expect(w.events.map((e) => e.object.rows[0].object.kind)).toEqual(['PartialObjectMetadata', 'PartialObjectMetadata']);
    }
    expect(tables[0]!.events[1]).toEqual(tables[1]!.events[1]);
    expect(metadata.events.map((e) => [e.type, e.object.kind, e.object.metadata.labels, e.object.spec])).toEqual([
      ['ADDED', 'PartialObjectMetadata', { tier: 'gold' }, undefined],
      ['MODIFIED', 'PartialObjectMetadata', { tier: 'bronze' }, undefined],
    ]);
    // The filtered watcher's DELETED is the last matching state at the change's revision, not the shared object.
    expect(summary(gold.events)).toEqual(['ADDED a', 'DELETED a']);
    expect(gold.events[1].object.metadata.labels).toEqual({ tier: 'gold' });
    expect(gold.events[1].object.metadata.resourceVersion).toBe(plain[0]!.events[1].object.metadata.resourceVersion);
    for (const w of all) w.close();
  });

  it('a watcher that stops reading never stalls writers: it is ended, and its memory with it', async () => {
    const lines: any[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const r = await start({ maxQueuedWatchBytes: 2 * 1024 * 1024, logger }, { watchBufferSize: 50 });
    const slow = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`);
    expect(await slow.status).toBe(200);
    slow.pause();
    const big = named('x');
    big.metadata.annotations = { pad: 'p'.repeat(100_000) };
    const began = Date.now();
    for (let i = 0; i < 120; i++) {
      const res = await call(r, 'POST', CLUSTERS, { ...big, metadata: { ...big.metadata, name: `x${i}` } });
      expect(res.status).toBe(201);
    }
    // Every write was answered while the watcher read nothing.
    expect(Date.now() - began).toBeLessThan(60_000);
    // The server ended it; the client sees the end once it reads what was sent before.
    await eventually(() => r.app.watchCount() === 0, 'the slow watch to be ended');
    slow.resume();
    await slow.ended;
    // The log says what was held for it when it was ended: over the bound, by at most one event.
    const ended = lines.find((line) => line.msg === 'watch ended: the client fell too far behind');
    expect(ended).toMatchObject({ resource: 'clusters.cluster.karmada.io' });
    expect(ended.unsentBytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(ended.unsentBytes).toBeLessThan(2 * 1024 * 1024 + 110_000);
  }, 90_000);

  // Found by reliability:apiserver-crash: a watch from the round's first resourceVersion, over more
  // history than the bound, was ended at once with nothing sent, though its client read at full speed.
  it('a watch replaying more history than the bound gets all of it, paced by its socket, then live changes', async () => {
    const r = await start({ maxQueuedWatchBytes: 64 * 1024 });
    const first = await call(r, 'POST', CLUSTERS, named('h'));
    const pad = 'p'.repeat(2_000);
    for (let i = 0; i < 100; i++) {
      const res = await call(r, 'PATCH', `${CLUSTERS}/h`, { metadata: { annotations: { pad: `${i}${pad}` } } }, 'application/merge-patch+json');
      expect(res.status).toBe(200);
    }
    // 100 MODIFIED events of over 2 kB: three times the bound, all there before the watch began.
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=${first.body.metadata.resourceVersion}`);
    expect(await w.status).toBe(200);
    await eventually(() => w.events.length === 100, 'the whole history replayed', 10_000);
    expect(w.events.map((e) => e.object.metadata.annotations.pad.slice(0, 2))).toEqual(Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(2, 'p')));
    await call(r, 'PATCH', `${CLUSTERS}/h`, { metadata: { annotations: { pad: 'live' } } }, 'application/merge-patch+json');
    await eventually(() => w.events.length === 101, 'the live change after it');
    expect(r.app.watchCount()).toBe(1);
    w.close();
  });

  it('a replaying watch whose client stops reading is held no longer than its timeout', async () => {
    const r = await start({ maxQueuedWatchBytes: 64 * 1024 });
    const first = await call(r, 'POST', CLUSTERS, named('h'));
    for (let i = 0; i < 200; i++) await call(r, 'PATCH', `${CLUSTERS}/h`, { metadata: { annotations: { pad: `${i}${'p'.repeat(20_000)}` } } }, 'application/merge-patch+json');
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=${first.body.metadata.resourceVersion}&timeoutSeconds=1`);
    expect(await w.status).toBe(200);
    w.pause();
    await eventually(() => r.app.watchCount() === 0, 'the stalled replay to end at its timeout');
    w.close();
  }, 30_000);

  it('shutdown ends every watch cleanly, and one that starts during shutdown at once', async () => {
    const r = await start();
    const w = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`);
    expect(await w.status).toBe(200);
    r.app.endWatches();
    await w.ended;
    const late = watch(r, `${CLUSTERS}?watch=true&resourceVersion=1`);
    await late.ended;
  });
});
