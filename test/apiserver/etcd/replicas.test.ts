/**
 * Two `fleetgate apiserver` processes over one etcd: they agree on every object and
 * resourceVersion, a write on one is seen by a watch on the other, a stale resourceVersion is a
 * conflict whichever replica wrote last, and the ResourceInterpreterCustomization conflict rule
 * sees customizations written through the other replica.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';
import { CLUSTERS, builtSkipReason, cluster, startApiserver, type ApiserverProcess } from './apiserver-process.js';

const RICS = '/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations';
const customization = (name: string, kind: string) => ({
  apiVersion: 'config.karmada.io/v1alpha1',
  kind: 'ResourceInterpreterCustomization',
  metadata: { name },
  spec: {
    target: { apiVersion: 'apps/v1', kind },
    customizations: { retention: { luaScript: 'function Retain(desiredObj, observedObj)\n  return desiredObj\nend' } },
  },
});

describeWithEtcd('two fleetgate apiservers over one etcd', () => {
  let etcd: EtcdServer;
  let a: ApiserverProcess;
  let b: ApiserverProcess;

  beforeAll(async () => {
    etcd = await startEtcd();
    [a, b] = await Promise.all([startApiserver(['--etcd-servers', etcd.url]), startApiserver(['--etcd-servers', etcd.url])]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.close();
  });

  it('agree on every object and resourceVersion, in gets and lists', async () => {
    const created = await a.request('POST', CLUSTERS, cluster('agree-1'));
    expect(created.status).toBe(201);
    const onB = await b.request('GET', `${CLUSTERS}/agree-1`);
    expect(onB.status).toBe(200);
    expect(onB.body).toEqual(created.body);

    const second = await b.request('POST', CLUSTERS, cluster('agree-2'));
    expect(second.status).toBe(201);
    expect(Number(second.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.body.metadata.resourceVersion));
    const [listA, listB] = await Promise.all([a.request('GET', CLUSTERS), b.request('GET', CLUSTERS)]);
    expect(listA.body.items).toEqual(listB.body.items);
    expect(listA.body.items.map((item: any) => [item.metadata.name, item.metadata.resourceVersion])).toEqual([
      ['agree-1', created.body.metadata.resourceVersion],
      ['agree-2', second.body.metadata.resourceVersion],
    ]);
    expect(listA.body.metadata.resourceVersion).toBe(listB.body.metadata.resourceVersion);
    expect(listA.body.metadata.resourceVersion).toBe(second.body.metadata.resourceVersion);

    // A list from resourceVersion "0" (B's watch cache) reaches the same state.
    const cached = await b.request('GET', `${CLUSTERS}?resourceVersion=0`);
    expect(cached.body.items).toEqual(listA.body.items);
  });

  it('a write on A is seen by a watch on B, with the resourceVersion A answered', async () => {
    const start = await b.request('GET', CLUSTERS);
    const watch = await b.watch(`${CLUSTERS}?watch=true&resourceVersion=${start.body.metadata.resourceVersion}`);
    const created = await a.request('POST', CLUSTERS, cluster('seen-1'));
    const patched = await a.request('PATCH', `${CLUSTERS}/seen-1`, { spec: { region: 'eu-west-1' } });
    expect(patched.status).toBe(200);
    const deleted = await a.request('DELETE', `${CLUSTERS}/seen-1`);
    expect(deleted.status).toBe(200);
    await watch.until((events) => events.length >= 3, 'three events on B');
    watch.close();
    expect(watch.events.map((event) => [event.type, event.object.metadata.name, event.object.metadata.resourceVersion])).toEqual([
      ['ADDED', 'seen-1', created.body.metadata.resourceVersion],
      ['MODIFIED', 'seen-1', patched.body.metadata.resourceVersion],
      ['DELETED', 'seen-1', expect.any(String)],
    ]);
    expect(Number(watch.events[2].object.metadata.resourceVersion)).toBeGreaterThan(Number(patched.body.metadata.resourceVersion));
    expect(watch.events[1].object.spec.region).toBe('eu-west-1');
  });

  it('answers 409 Conflict on either replica for a resourceVersion the other one moved on', async () => {
    const created = await a.request('POST', CLUSTERS, cluster('conflict-1'));
    const stale = created.body;
    const updated = await b.request('PUT', `${CLUSTERS}/conflict-1`, { ...stale, spec: { ...stale.spec, provider: 'gcp' } });
    expect(updated.status).toBe(200);
    expect(updated.body.metadata.resourceVersion).not.toBe(stale.metadata.resourceVersion);

    const refused = await a.request('PUT', `${CLUSTERS}/conflict-1`, { ...stale, spec: { ...stale.spec, provider: 'aws' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on clusters.cluster.karmada.io "conflict-1": the object has been modified; please apply your changes to the latest version and try again',
    });
    // With the fresh resourceVersion the same write goes through on A.
    const fresh = await a.request('PUT', `${CLUSTERS}/conflict-1`, { ...updated.body, spec: { ...updated.body.spec, provider: 'aws' } });
    expect(fresh.status).toBe(200);
    expect((await b.request('GET', `${CLUSTERS}/conflict-1`)).body.spec.provider).toBe('aws');
  });

  it('the interpreter customization conflict rule sees customizations written through the other replica', async () => {
    const first = await a.request('POST', RICS, customization('deployments-first', 'Deployment'));
    expect(first.status).toBe(201);
    const rival = await b.request('POST', RICS, customization('deployments-rival', 'Deployment'));
    expect(rival.status).toBe(422);
    expect(JSON.stringify(rival.body)).toContain('conflicts with ResourceInterpreterCustomization \\"deployments-first\\" which already sets retention for apps/v1, Kind=Deployment');
    const other = await b.request('POST', RICS, customization('statefulsets', 'StatefulSet'));
    expect(other.status).toBe(201);
  });

  it('keeps one etcd watch per kind whatever the number of replicas\' watchers', async () => {
    // 13 kinds per replica: the watch caches started with each process.
    expect(await etcd.metric('etcd_debugging_mvcc_watcher_total')).toBe(26);
    const watches = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).watch(`${CLUSTERS}?watch=true`)));
    expect(await etcd.metric('etcd_debugging_mvcc_watcher_total')).toBe(26);
    for (const watch of watches) watch.close();
  });
}, builtSkipReason);
