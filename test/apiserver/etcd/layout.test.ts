/**
 * What the etcd backend leaves in etcd, read back with a plain etcd client: kube-apiserver's
 * layout (`<prefix>/<group>/<plural>/[<namespace>/]<name>`), each value the object's JSON without
 * a resourceVersion, the key's mod_revision as the resourceVersion; --etcd-prefix keeps two
 * API servers' keys apart; and the compaction key kube-apiserver's compactor shares.
 */
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEtcdError } from '../../../src/apiserver/storage/etcd-client.js';
import { COMPACT_REVISION_KEY, compactionStep } from '../../../src/apiserver/storage/etcd-compactor.js';
import { EtcdKeyspace } from '../../../src/apiserver/storage/etcd-keyspace.js';
import { openEtcdStorage } from '../../../src/apiserver/storage/etcd-store.js';
import { StorageError } from '../../../src/apiserver/storage/storage.js';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';

const work = (name: string, namespace: string) => ({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', metadata: { name, namespace }, spec: {} });

it('derives one watch per kind from any key under it, and its own for a wider prefix', () => {
  expect(EtcdKeyspace.feedPrefix('/cluster.karmada.io/clusters/member1')).toBe('/cluster.karmada.io/clusters/');
  expect(EtcdKeyspace.feedPrefix('/work.karmada.io/works/ns1/')).toBe('/work.karmada.io/works/');
  expect(EtcdKeyspace.feedPrefix('/work.karmada.io/works/')).toBe('/work.karmada.io/works/');
  expect(EtcdKeyspace.feedPrefix('/work.karmada.io/')).toBe('/work.karmada.io/');
  expect(EtcdKeyspace.feedPrefix('/')).toBe('/');
  const keyspace = new EtcdKeyspace('/registry/');
  expect(keyspace.key('/g/p/n').toString()).toBe('/registry/g/p/n');
  expect(keyspace.rangeEnd('/g/p/').toString()).toBe('/registry/g/p0');
  expect(keyspace.storageKey(Buffer.from('/registry/g/p/n'))).toBe('/g/p/n');
  expect(new EtcdKeyspace('/').key('/g/p/n').toString()).toBe('/g/p/n');
  expect(() => new EtcdKeyspace('registry')).toThrow('--etcd-prefix must start with "/"');
});

it("words gRPC's failures in one line, without its empty resolution note", () => {
  const grpc = new Error('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:2. Resolution note: ');
  expect(describeEtcdError(grpc)).toBe('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2');
  const named = new Error('GRPCDeadlineExceededError: 4 DEADLINE_EXCEEDED: Deadline exceeded after 2.000s\n    at stack');
  expect(describeEtcdError(named)).toBe('4 DEADLINE_EXCEEDED: Deadline exceeded after 2.000s');
});

describeWithEtcd('the etcd backend in etcd', () => {
  let etcd: EtcdServer;
  let client: Etcd3;
  beforeAll(async () => {
    etcd = await startEtcd();
    client = new Etcd3({ hosts: etcd.url });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await etcd?.close();
  });

  it('lays keys and values out as kube-apiserver does, under --etcd-prefix', async () => {
    const registry = await openEtcdStorage({ servers: [etcd.url], compactionIntervalMs: 0 });
    const other = await openEtcdStorage({ servers: [etcd.url], prefix: '/other', compactionIntervalMs: 0 });
    try {
      const member = await registry.create('/cluster.karmada.io/clusters/member1', { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1', resourceVersion: '5' }, spec: {} });
      const created = await registry.create('/work.karmada.io/works/ns1/w1', work('w1', 'ns1'));
      await other.create('/work.karmada.io/works/ns1/w1', work('w1', 'ns1'));

      const kvs = (await client.kv.range({ key: Buffer.from('/'), range_end: Buffer.from('0') })).kvs;
      expect(kvs.map((kv) => kv.key.toString())).toEqual(['/other/work.karmada.io/works/ns1/w1', '/registry/cluster.karmada.io/clusters/member1', '/registry/work.karmada.io/works/ns1/w1']);
      const stored = kvs[2]!;
      expect(JSON.parse(stored.value.toString())).toEqual(work('w1', 'ns1'));
      expect(stored.mod_revision).toBe(created.metadata && (created.metadata as { resourceVersion: string }).resourceVersion);
      expect(JSON.parse(kvs[1]!.value.toString()).metadata).toEqual({ name: 'member1' });
      expect(kvs[1]!.mod_revision).toBe((member.metadata as { resourceVersion: string }).resourceVersion);

      // Each API server sees only its own prefix.
      expect((await other.list('/work.karmada.io/works/')).items).toHaveLength(1);
      expect((await other.list('/cluster.karmada.io/clusters/')).items).toHaveLength(0);
    } finally {
      await registry.close();
      await other.close();
    }
  });

  it("names etcd's refusal of an object over its request limit, and stays ready: etcd did answer", async () => {
    const storage = await openEtcdStorage({ servers: [etcd.url], prefix: '/large', compactionIntervalMs: 0 });
    try {
      // Over etcd's --max-request-bytes (1.5 MiB by default), under its gRPC limit (2 MiB).
      const big = { metadata: { name: 'big' }, spec: { blob: 'x'.repeat(1_700_000) } };
      const error = await storage.create('/g.example/things/big', big).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({ code: 'Unavailable', message: `etcd (${etcd.url}) refused the write: 3 INVALID_ARGUMENT: etcdserver: request is too large` });
      expect(storage.ready()).toBe(true);
      expect(await storage.create('/g.example/things/small', { metadata: { name: 'small' } })).toBeTruthy();
    } finally {
      await storage.close();
    }
  });

  it('catches a watch up through a long backlog with its stream paused and resumed, to a reader that keeps up', async () => {
    const storage = await openEtcdStorage({ servers: [etcd.url], prefix: '/backlog', compactionIntervalMs: 0, feedQueueLimit: 20, watchBufferSize: 16 });
    try {
      const from = await storage.currentRevision();
      // 2,000 changes written straight to etcd (another replica, say) before anyone watches.
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (next < 2_000) {
            const name = `k${String(next++).padStart(4, '0')}`;
            await client.kv.put({ key: Buffer.from(`/backlog/g.example/things/${name}`), value: Buffer.from(JSON.stringify({ metadata: { name } })) });
          }
        }),
      );
      const revisions: number[] = [];
      const watch = storage.watch('/g.example/things/', { fromRevision: from });
      for await (const event of watch) {
        revisions.push(event.revision);
        if (revisions.length === 2_000) break;
      }
      expect(revisions).toHaveLength(2_000);
      expect(revisions.every((revision, i) => i === 0 || revision > revisions[i - 1]!)).toBe(true);
      expect(revisions[0]).toBeGreaterThan(from);
    } finally {
      await storage.close();
    }
  }, 60_000);

  it('watches and lists a prefix wider than a kind from its own etcd watch', async () => {
    const storage = await openEtcdStorage({ servers: [etcd.url], prefix: '/wide', compactionIntervalMs: 0 });
    try {
      const from = await storage.currentRevision();
      const watch = storage.watch('/', { fromRevision: from });
      await storage.create('/a.example/things/x', { metadata: { name: 'x' } });
      await storage.create('/b.example/others/y', { metadata: { name: 'y' } });
      const iterator = watch[Symbol.asyncIterator]();
      const keys = [(await iterator.next()).value.key, (await iterator.next()).value.key];
      expect(keys).toEqual(['/a.example/things/x', '/b.example/others/y']);
      watch.stop();
      expect((await storage.list('/', { minRevision: 0 })).items).toHaveLength(2);
    } finally {
      await storage.close();
    }
  });

  it("compacts as kube-apiserver's compactor does: one replica per interval, recorded in compact_rev_key", async () => {
    // Two replicas' compactors, each at its first step (nothing seen an interval ago): one records the key.
    const first = await compactionStep(client, 0, 0);
    const second = await compactionStep(client, 0, 0);
    expect(first.version).toBe(1);
    expect(second.version).toBe(1); // lost the race: it adopts the key's version
    const storage = await openEtcdStorage({ servers: [etcd.url], prefix: '/compact', compactionIntervalMs: 0 });
    try {
      await storage.create('/g.example/things/a', { metadata: { name: 'a' } });
      const old = await storage.currentRevision();
      await storage.create('/g.example/things/b', { metadata: { name: 'b' } });
      // The next interval: the replica whose version is current compacts to the revision it saw last time.
      const step = await compactionStep(client, first.version, old + 1);
      expect(step).toMatchObject({ version: 2, compacted: old + 1 });
      expect((await compactionStep(client, first.version, old + 1)).compacted).toBeUndefined(); // a stale replica does nothing
      const recorded = await client.kv.range({ key: Buffer.from(COMPACT_REVISION_KEY) });
      expect(recorded.kvs[0]!.value.toString()).toBe(String(old + 1));

      const error = await storage.list('/g.example/things/', { revision: old }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({ code: 'Expired', revision: old + 1 });
      expect((await storage.list('/g.example/things/', { revision: old + 1 })).items).toHaveLength(2);
    } finally {
      await storage.close();
    }
  });
});
