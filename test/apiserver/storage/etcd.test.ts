/**
 * The storage conformance suite, unchanged, against the etcd backend over a real etcd (Debian's
 * etcd-server on loopback ports). Every storage the suite opens gets its own --etcd-prefix, so
 * tests share the etcd but never each other's keys.
 */
import { afterAll, beforeAll } from 'vitest';
import { openEtcdStorage } from '../../../src/apiserver/storage/etcd-store.js';
import { describeWithEtcd, startEtcd, type EtcdServer } from '../etcd/etcd-server.js';
import { describeStorageConformance } from './conformance.js';

describeWithEtcd('etcd backend', () => {
  let etcd: EtcdServer;
  let opened = 0;
  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await etcd?.close();
  });

  describeStorageConformance('etcd', async ({ watchBufferSize }) => {
    const storage = await openEtcdStorage({ servers: [etcd.url], prefix: `/conformance-${++opened}`, compactionIntervalMs: 0, watchBufferSize });
    return { storage, compact: (revision) => storage.compact(revision) };
  });
});
