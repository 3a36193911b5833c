/**
 * The etcd backend over TLS with client certificates (etcd's --client-cert-auth): it works with
 * --etcd-cafile, --etcd-certfile and --etcd-keyfile, through the command as through the
 * library; without the client certificate, or trusting another CA, every call is a clear
 * Unavailable and the backend is not ready.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCA, createClientCert, createServingCert } from '../../../certs/tinyca.js';
import { openEtcdStorage } from '../../../src/apiserver/storage/etcd-store.js';
import { StorageError } from '../../../src/apiserver/storage/storage.js';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';
import { CLUSTERS, builtSkipReason, cluster, startApiserver } from './apiserver-process.js';

describeWithEtcd('the etcd backend over TLS with client certificates', () => {
  let dir: string;
  let etcd: EtcdServer;
  const files = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetgate-etcd-tls-'));
    const ca = createCA('etcd test CA');
    const server = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const client = createClientCert(ca, 'fleetgate-apiserver');
    const otherCa = createCA('another CA');
    for (const [name, text] of Object.entries({
      'ca.crt': ca.certPem,
      'server.crt': server.certPem,
      'server.key': server.keyPem,
      'client.crt': client.certPem,
      'client.key': client.keyPem,
      'other-ca.crt': otherCa.certPem,
    })) {
      writeFileSync(files(name), text, { mode: 0o600 });
    }
    etcd = await startEtcd({
      scheme: 'https',
      flags: ['--cert-file', files('server.crt'), '--key-file', files('server.key'), '--trusted-ca-file', files('ca.crt'), '--client-cert-auth'],
    });
  }, 60_000);

  afterAll(async () => {
    await etcd?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads and writes with the CA, the client certificate and its key', async () => {
    const storage = await openEtcdStorage({
      servers: [etcd.url],
      caFile: files('ca.crt'),
      certFile: files('client.crt'),
      keyFile: files('client.key'),
      compactionIntervalMs: 0,
    });
    try {
      expect(storage.ready()).toBe(true);
      const created = await storage.create('/cluster.karmada.io/clusters/tls-1', cluster('tls-1'));
      expect(await storage.get('/cluster.karmada.io/clusters/tls-1')).toEqual(created);
    } finally {
      await storage.close();
    }
  });

  it('is not ready and answers Unavailable without the client certificate, or trusting another CA', async () => {
    for (const options of [{ caFile: files('ca.crt') }, { caFile: files('other-ca.crt'), certFile: files('client.crt'), keyFile: files('client.key') }]) {
      const storage = await openEtcdStorage({ servers: [etcd.url], ...options, compactionIntervalMs: 0, requestTimeoutMs: 2_000 });
      try {
        expect(storage.ready()).toBe(false);
        const error = await storage.get('/cluster.karmada.io/clusters/tls-1').catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StorageError);
        expect((error as StorageError).code).toBe('Unavailable');
        expect((error as StorageError).message).toMatch(new RegExp(`^etcd \\(${etcd.url.replace(/\./g, '\\.')}\\) (is unavailable: .+|did not answer within 2s)$`));
      } finally {
        await storage.close();
      }
    }
  });

  it.skipIf(builtSkipReason)('serves over it through fleetgate apiserver --etcd-cafile --etcd-certfile --etcd-keyfile', async () => {
    const apiserver = await startApiserver(['--etcd-servers', etcd.url, '--etcd-cafile', files('ca.crt'), '--etcd-certfile', files('client.crt'), '--etcd-keyfile', files('client.key')]);
    try {
      expect(await apiserver.readyz()).toBe(200);
      expect((await apiserver.request('POST', CLUSTERS, cluster('tls-2'))).status).toBe(201);
      expect((await apiserver.request('GET', `${CLUSTERS}/tls-2`)).body.metadata.name).toBe('tls-2');
    } finally {
      await apiserver.stop();
    }
  }, 60_000);
});
