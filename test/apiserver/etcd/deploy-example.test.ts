/**
 * deploy/apiserver-etcd.yaml, the multi-replica example: its objects fit together (ports, probes,
 * labels, mounted Secrets), every flag it passes is one `fleetgate apiserver` documents, and two
 * replicas started with exactly its container arguments (the mounted paths pointed at temporary
 * files, the etcd URLs at a real etcd with client-certificate TLS, loopback and port 0 for the
 * listeners) serve one state with token authentication.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCA, createClientCert, createServingCert } from '../../../certs/tinyca.js';
import { runCli } from '../../cli/run-cli.js';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';
import { CLUSTERS, builtSkipReason, cluster, startApiserver, type ApiserverProcess } from './apiserver-process.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const FILE = join(import.meta.dirname, '../../../deploy/apiserver-etcd.yaml');
const docs = parseAllDocuments(readFileSync(FILE, 'utf8')).map((doc) => doc.toJS() as any);
const byKind = (kind: string) => docs.find((doc) => doc.kind === kind);
const deployment = byKind('Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const args: string[] = container.args;
const flag = (name: string): string | undefined => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

describe('deploy/apiserver-etcd.yaml', () => {
  it('holds a Namespace, a Deployment of several replicas, a Service and a PodDisruptionBudget', () => {
    expect(docs.map((doc) => doc.kind)).toEqual(['Namespace', 'Deployment', 'Service', 'PodDisruptionBudget']);
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(args[0]).toBe('apiserver');
    expect(flag('etcd-servers')!.split(',').length).toBeGreaterThanOrEqual(1);
  });

  it('passes only flags fleetgate apiserver documents', async () => {
    const help = (await runCli(['apiserver', '--help'])).stdout;
    for (const arg of args.slice(1)) {
      expect(arg).toMatch(/^--[a-z-]+=/);
      expect(help).toContain(`  ${arg.slice(0, arg.indexOf('='))} `);
    }
  });

  it('wires ports, probes, labels and Secret mounts together', () => {
    const ports = Object.fromEntries(container.ports.map((port: any) => [port.name, port.containerPort]));
    expect(ports).toEqual({ https: Number(flag('port')), probe: Number(flag('probe-port')) });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'probe' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'probe' });
    const service = byKind('Service');
    expect(service.spec.ports.map((port: any) => port.targetPort)).toEqual(['https']);
    const labels = deployment.spec.template.metadata.labels;
    for (const selector of [deployment.spec.selector.matchLabels, service.spec.selector, byKind('PodDisruptionBudget').spec.selector.matchLabels]) {
      expect(labels).toMatchObject(selector);
    }
    for (const doc of docs.slice(1)) expect(doc.metadata.namespace).toBe(byKind('Namespace').metadata.name);
    // Every file a flag names lies in a mounted Secret.
    const secretMounts = container.volumeMounts.filter((mount: any) => pod.volumes.find((volume: any) => volume.name === mount.name)?.secret);
    for (const name of ['cert-dir', 'token-auth-file', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile']) {
      const path = flag(name)!;
      expect(secretMounts.some((mount: any) => path === mount.mountPath || path.startsWith(`${mount.mountPath}/`)), name).toBe(true);
    }
  });
});

describeWithEtcd('deploy/apiserver-etcd.yaml run as two replicas over one etcd', () => {
  let dir: string;
  let etcd: EtcdServer;
  const replicas: ApiserverProcess[] = [];
  const token = 'example-token';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetgate-deploy-example-'));
    const ca = createCA('example CA');
    const write = (path: string, text: string) => {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text, { mode: 0o600 });
    };
    const etcdServer = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    write(join(dir, 'etcd-server/tls.crt'), etcdServer.certPem);
    write(join(dir, 'etcd-server/tls.key'), etcdServer.keyPem);
    write(join(dir, 'ca.crt'), ca.certPem);
    etcd = await startEtcd({
      scheme: 'https',
      flags: ['--cert-file', join(dir, 'etcd-server/tls.crt'), '--key-file', join(dir, 'etcd-server/tls.key'), '--trusted-ca-file', join(dir, 'ca.crt'), '--client-cert-auth'],
    });

    // What the three Secrets would hold, at the paths the Deployment mounts them.
    const mounted = (path: string) => join(dir, 'mounts', path);
    const serving = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    write(mounted(`${flag('cert-dir')}/tls.crt`), serving.certPem);
    write(mounted(`${flag('cert-dir')}/tls.key`), serving.keyPem);
    write(mounted(flag('token-auth-file')!), `${token},example-user,1001\n`);
    const client = createClientCert(ca, 'fleetgate-apiserver');
    write(mounted(flag('etcd-cafile')!), ca.certPem);
    write(mounted(flag('etcd-certfile')!), client.certPem);
    write(mounted(flag('etcd-keyfile')!), client.keyPem);

    const local = args.slice(1).map((arg) => {
      const [name, value] = [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)];
      if (name === '--etcd-servers') return `${name}=${etcd.url}`;
      if (name === '--bind-address') return `${name}=127.0.0.1`;
      if (name === '--port' || name === '--probe-port') return `${name}=0`;
      return value.startsWith('/') ? `${name}=${mounted(value)}` : arg;
    });
    for (let i = 0; i < 2; i++) replicas.push(await startApiserver(local, { caFile: join(dir, 'ca.crt'), token, portArgs: [] }));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await etcd?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves one state from both replicas, to authenticated clients only', async () => {
    const [one, two] = replicas as [ApiserverProcess, ApiserverProcess];
    expect(await one.readyz()).toBe(200);
    expect(await two.readyz()).toBe(200);
    const created = await one.request('POST', CLUSTERS, cluster('example-1'));
    expect(created.status).toBe(201);
    const read = await two.request('GET', `${CLUSTERS}/example-1`);
    expect(read.body).toEqual(created.body);

    const anonymous = await anonymousRequest(two.port, join(dir, 'ca.crt'));
    expect(anonymous).toBe(401);
  });
}, builtSkipReason);

/** A request without the token: the status it gets. */
function anonymousRequest(port: number, caFile: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: CLUSTERS, ca: readFileSync(caFile), servername: 'localhost', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
