/**
 * 1,000 API watchers of a kind cost etcd one watcher on one stream: counted by etcd itself
 * (etcd_debugging_mvcc_watcher_total and etcd_debugging_mvcc_watch_stream_total on its metrics
 * endpoint) before and after they connect, and every one of them still gets every change.
 * The API server's Koa app is served over plain HTTP here, so the test pays for 1,000
 * connections and not 1,000 TLS handshakes.
 */
import { createServer, request, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiServerApp, type ApiServerApp } from '../../../src/apiserver/app.js';
import { openEtcdStorage, type EtcdStorage } from '../../../src/apiserver/storage/etcd-store.js';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';
import { CLUSTERS, cluster, eventually, readEvents } from './apiserver-process.js';

const WATCHERS = 1_000;

describeWithEtcd('watch fan-out on the etcd backend', () => {
  let etcd: EtcdServer;
  let storage: EtcdStorage;
  let api: ApiServerApp;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    etcd = await startEtcd();
    storage = await openEtcdStorage({ servers: [etcd.url], compactionIntervalMs: 0, kinds: ['/cluster.karmada.io/clusters/'] });
    api = createApiServerApp({ storage });
    server = createServer(api.app.callback());
    server.maxConnections = WATCHERS * 2;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  }, 60_000);

  afterAll(async () => {
    api?.endWatches();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await storage?.close();
    await etcd?.close();
  });

  const post = (body: unknown) =>
    new Promise<number>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: CLUSTERS, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(text);
    });

  it(`serves ${WATCHERS} watchers from one etcd watch, and each gets every change`, async () => {
    await eventually(() => storage.etcdWatchCount() === 1, 'the clusters watch cache');
    const watchers = () => etcd.metric('etcd_debugging_mvcc_watcher_total');
    const streams = () => etcd.metric('etcd_debugging_mvcc_watch_stream_total');
    expect(await watchers()).toBe(1);
    expect(await streams()).toBe(1);

    const received: string[][] = Array.from({ length: WATCHERS }, () => []);
    const sockets: { destroy(): void }[] = [];
    await Promise.all(
      received.map(
        (events) =>
          new Promise<void>((resolve, reject) => {
            // A watch from resourceVersion "0": its initial list comes from the cache too.
            const req = request({ host: '127.0.0.1', port, path: `${CLUSTERS}?watch=true&resourceVersion=0&allowWatchBookmarks=false`, agent: false }, (res) => {
              readEvents(res, (event) => events.push(`${event.type} ${event.object.metadata.name}`));
              resolve();
            });
            req.on('error', reject);
            sockets.push(req);
            req.end();
          }),
      ),
    );
    await eventually(() => storage.watchCount() === WATCHERS, `${WATCHERS} watches on the cache`, 30_000);
    expect(await watchers()).toBe(1);
    expect(await streams()).toBe(1);

    expect(await post(cluster('fanout-1'))).toBe(201);
    expect(await post(cluster('fanout-2'))).toBe(201);
    await eventually(() => received.every((events) => events.length === 2), 'every watcher to get both changes', 30_000);
    for (const events of received) expect(events).toEqual(['ADDED fanout-1', 'ADDED fanout-2']);
    expect(await watchers()).toBe(1);

    for (const socket of sockets) socket.destroy();
    await eventually(() => storage.watchCount() === 0, 'the watches to end with their connections', 30_000);
    expect(await watchers()).toBe(1);
  }, 120_000);
});
