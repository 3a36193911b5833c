/**
 * etcd's compaction seen through the API: lists at a compacted revision and continue tokens from
 * before it are 410 Expired in kube's words; and a replica cut off from etcd while others write
 * and etcd compacts (a partition) ends its watches with an ERROR 410 when it comes back, so a
 * real client (@kubernetes/client-node's ListWatch informer) lists again and ends up with the
 * true state. Compaction is done here as an operator (`etcdctl compact`) would: without
 * kube's compact_rev_key, so the backend must find the compacted revision itself.
 */
import { CustomObjectsApi, KubeConfig, ListWatch, Watch, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { CLUSTERS, builtSkipReason, cluster, eventually, startApiserver, type ApiserverProcess } from './apiserver-process.js';

describeWithEtcd('the etcd backend after etcd compacts its history', () => {
  let etcd: EtcdServer;
  let proxy: TcpProxy;
  let etcdClient: Etcd3;
  const processes: ApiserverProcess[] = [];

  /** What `etcdctl compact <current revision>` does. */
  const compactToNow = async (): Promise<number> => {
    const revision = Number((await etcdClient.kv.range({ key: Buffer.from('/'), limit: 1 })).header.revision);
    await etcdClient.kv.compact({ revision, physical: true });
    return revision;
  };

  beforeEach(async () => {
    etcd = await startEtcd();
    proxy = await startTcpProxy(etcd.url);
    etcdClient = new Etcd3({ hosts: etcd.url });
  }, 60_000);

  afterEach(async () => {
    await Promise.all(processes.splice(0).map((process) => process.stop()));
    etcdClient?.close();
    await proxy?.close();
    await etcd?.close();
  });

  it('answers lists at a compacted revision, and continue tokens from before it, with 410 Expired', async () => {
    const a = await startApiserver(['--etcd-servers', etcd.url, '--etcd-compaction-interval', '0']);
    processes.push(a);
    for (const name of ['c1', 'c2', 'c3', 'c4', 'c5']) expect((await a.request('POST', CLUSTERS, cluster(name))).status).toBe(201);
    const first = await a.request('GET', `${CLUSTERS}?limit=2`);
    expect(first.body.metadata.remainingItemCount).toBe(3);
    const old = first.body.metadata.resourceVersion;
    expect((await a.request('GET', `${CLUSTERS}?resourceVersion=${old}&resourceVersionMatch=Exact`)).status).toBe(200);
    await a.request('PATCH', `${CLUSTERS}/c1`, { spec: { region: 'moved' } });
    const compacted = await compactToNow();

    const exact = await a.request('GET', `${CLUSTERS}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
    const next = await a.request('GET', `${CLUSTERS}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(next.status).toBe(410);
    expect(next.body.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    // The token the 410 carries continues from the newest revision, where the first page left off.
    const resumed = await a.request('GET', `${CLUSTERS}?limit=2&continue=${encodeURIComponent(next.body.metadata.continue)}`);
    expect(resumed.body.items.map((item: any) => item.metadata.name)).toEqual(['c3', 'c4']);

    expect((await a.request('GET', `${CLUSTERS}?resourceVersion=${compacted}&resourceVersionMatch=Exact`)).status).toBe(200);
    expect((await a.request('GET', CLUSTERS)).body.items).toHaveLength(5);
  }, 60_000);

  it('ends the watches of a replica that missed a compaction with 410, and a client-go style informer lists again', async () => {
    const cut = await startApiserver(['--etcd-servers', proxy.url, '--etcd-compaction-interval', '0', '--etcd-request-timeout', '2s']);
    const other = await startApiserver(['--etcd-servers', etcd.url, '--etcd-compaction-interval', '0']);
    processes.push(cut, other);
    for (const name of ['before-1', 'before-2']) await other.request('POST', CLUSTERS, cluster(name));

    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'cut', server: cut.url, caFile: cut.caFile }],
      users: [{ name: 'u', token: 'local' }],
      contexts: [{ name: 'cut', cluster: 'cut', user: 'u' }],
      currentContext: 'cut',
    });
    const api = config.makeApiClient(CustomObjectsApi);
    let lists = 0;
    const informer = new ListWatch<KubernetesObject>(
      CLUSTERS,
      new Watch(config),
      async () => {
        lists++;
        return (await api.listClusterCustomObject({ group: 'cluster.karmada.io', version: 'v1alpha1', plural: 'clusters' })) as KubernetesListObject<KubernetesObject>;
      },
      false,
    );
    const names = () => informer.list().map((object) => object.metadata!.name).sort();
    await informer.start();
    await eventually(() => names().join() === 'before-1,before-2', 'the informer to list the clusters');
    const current = await cut.request('GET', CLUSTERS);
    const raw = await cut.watch(`${CLUSTERS}?watch=true&resourceVersion=${current.body.metadata.resourceVersion}`);

    proxy.partition();
    await eventually(async () => (await cut.readyz()) === 503, 'the cut replica not ready', 15_000);
    await other.request('POST', CLUSTERS, cluster('during-1'));
    await other.request('DELETE', `${CLUSTERS}/before-1`);
    await other.request('PATCH', `${CLUSTERS}/before-2`, { spec: { region: 'during' } });
    const compacted = await compactToNow();
    await other.request('POST', CLUSTERS, cluster('during-2'));
    proxy.heal();

    // The cut replica's watch cache cannot resume past the compaction: its watches end with 410.
    await raw.until((events) => events.some((event) => event.type === 'ERROR'), 'an ERROR event on the raw watch', 30_000);
    const error = raw.events.find((event) => event.type === 'ERROR');
    expect(error.object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    expect(error.object.message).toMatch(new RegExp(`^too old resource version: \\d+ \\(${compacted}\\)$`));
    await eventually(() => raw.ended, 'the raw watch to end after its ERROR');

    // The informer lists again and holds the true state, and keeps following changes.
    await eventually(() => names().join() === 'before-2,during-1,during-2', 'the informer to list again', 30_000);
    expect(lists).toBeGreaterThanOrEqual(2);
    expect((informer.get('before-2') as any).spec.region).toBe('during');
    await other.request('POST', CLUSTERS, cluster('after-1'));
    await eventually(() => names().includes('after-1'), 'a change after the relist on the informer');
    await informer.stop();
  }, 90_000);
}, builtSkipReason);
