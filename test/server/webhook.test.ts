import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type RequestOptions } from 'node:https';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { pino } from 'pino';
import { createCA, createClientCert, createServingCert } from '../../certs/tinyca.js';
import { serve, type RunningServer, type ServeOptions } from '../../src/server/serve.js';
import { examples } from '../fixtures/index.js';
import { config } from '../fixtures/resourceinterpreterwebhookconfiguration.js';
import { ric } from '../fixtures/resourceinterpretercustomization.js';
import { servingCertDir } from './cert-dir.js';

const silent = pino({ level: 'silent' });
const ca = createCA();

const start = (options: ServeOptions = {}) =>
  serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(ca), logger: silent, ...options });

interface Answer {
  status: number;
  json: any;
  serial?: string;
  headers: import('node:http').IncomingHttpHeaders;
}

function post(server: RunningServer, path: string, body: unknown, extra: RequestOptions = {}): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, method: 'POST', ca: ca.certPem, servername: 'localhost', headers: { 'content-type': 'application/json' }, ...extra },
      (res) => {
        const serial = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().serialNumber;
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || 'null'), serial, headers: res.headers }));
      },
    );
    req.on('error', fail);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

const reviewOf = (object: any, apiVersion = 'admission.k8s.io/v1', extra: Record<string, unknown> = {}) => ({
  apiVersion,
  kind: 'AdmissionReview',
  request: { uid: `uid-${object.kind}`, operation: 'CREATE', namespace: object.metadata?.namespace, object, ...extra },
});

describe('over HTTPS', () => {
  let server: RunningServer;
  beforeAll(async () => (server = await start()));
  afterAll(() => server.close());

  it('refuses to DELETE a protected object on the kind\'s path and on Karmada\'s /validate-resourcedeletionprotection, for any kind there', async () => {
    const label = 'resourcetemplate.karmada.io/deletion-protected';
    const message = `This resource is protected, please make sure to remove the label: ${label}`;
    const protectedCluster = { ...(examples.find((e) => e.kind === 'Cluster') as any) };
    protectedCluster.metadata = { ...protectedCluster.metadata, labels: { [label]: 'Always' } };
    const deleting = (oldObject: any, kind: Record<string, string>) => ({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'del', operation: 'DELETE', name: oldObject.metadata.name, kind, object: null, oldObject },
    });
    const clusterKind = { group: 'cluster.karmada.io', version: 'v1alpha1', kind: 'Cluster' };
    for (const path of ['/validate-cluster', '/validate', '/validate-resourcedeletionprotection']) {
      const denied = await post(server, path, deleting(protectedCluster, clusterKind));
      expect(denied.status, path).toBe(200);
      expect(denied.json.response, path).toMatchObject({ uid: 'del', allowed: false, status: { code: 403, reason: 'Forbidden', message } });
    }
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', labels: { [label]: 'Always' } } };
    const deploymentKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
    expect((await post(server, '/validate-resourcedeletionprotection', deleting(deployment, deploymentKind))).json.response).toMatchObject({ allowed: false, status: { code: 403, message } });
    const unprotected = { ...deployment, metadata: { ...deployment.metadata, labels: { [label]: 'Never' } } };
    expect((await post(server, '/validate-resourcedeletionprotection', deleting(unprotected, deploymentKind))).json.response).toEqual({ uid: 'del', allowed: true });
    const text = await (await fetch(`http://127.0.0.1:${server.probePort}/metrics`)).text();
    expect(text).toMatch(/fleetgate_admission_verdicts_total\{kind="Cluster",operation="DELETE",verdict="denied"\} 3/);
    expect(text).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/validate-resourcedeletionprotection",code="200"\} 3/);
  });

  it('exposes controller-runtime metrics and verdict counts on the probe port', async () => {
    // A denial of its own (the every-kind tests that once ran before it here are in app.test.ts).
    await post(server, '/validate-cluster', reviewOf({ ...(examples.find((e) => e.kind === 'Cluster') as any), spec: { syncMode: 'Sometimes' } }));
    await post(server, '/validate-cluster', reviewOf(examples.find((e) => e.kind === 'Cluster')));
    const text = await (await fetch(`http://127.0.0.1:${server.probePort}/metrics`)).text();
    expect(text).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/validate-cluster",code="200"\} \d+/);
    expect(text).toMatch(/controller_runtime_webhook_latency_seconds_bucket\{le="0.005",webhook="\/validate-cluster"\} \d+/);
    expect(text).toMatch(/controller_runtime_webhook_requests_in_flight\{webhook="\/validate-cluster"\} 0/);
    expect(text).toMatch(/fleetgate_admission_verdicts_total\{kind="Cluster",operation="CREATE",verdict="denied"\} \d+/);
  });
});

describe('certificates', () => {
  it('rotates the serving certificate while requests flow, losing none', async () => {
    const dir = servingCertDir(ca);
    const server = await start({ certDir: dir });
    try {
      const cluster = examples.find((e) => e.kind === 'Cluster');
      const first = await post(server, '/validate', reviewOf(cluster));
      const answers: Promise<Answer>[] = [];
      let rotated = false;
      for (let i = 0; i < 60; i++) {
        answers.push(post(server, '/validate', reviewOf(cluster), { agent: false }));
        if (i === 20) {
          const next = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
          // Written as kubelet does: new files renamed into place.
          writeFileSync(join(dir, 'tls.key.new'), next.keyPem);
          writeFileSync(join(dir, 'tls.crt.new'), next.certPem);
          renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
          renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
          rotated = true;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(rotated).toBe(true);
      const results = await Promise.all(answers);
      expect(results.every((r) => r.status === 200 && r.json.response.allowed)).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      const after = await post(server, '/validate', reviewOf(cluster), { agent: false });
      expect(after.serial).toBeDefined();
      expect(after.serial).not.toBe(first.serial);
    } finally {
      await server.close();
    }
  });

  it('reloads only when the certificate files change, not for another file in their folder (its own log, say)', async () => {
    const dir = servingCertDir(ca);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const server = await start({ certDir: dir, logger });
    try {
      const reloads = () => lines.filter((l) => l.includes('serving certificate reloaded')).length;
      for (let i = 0; i < 5; i++) {
        writeFileSync(join(dir, 'fleetgate.log'), `line ${i}\n`);
        await new Promise((r) => setTimeout(r, 150));
      }
      expect(reloads()).toBe(0);
      const next = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
      writeFileSync(join(dir, 'tls.key'), next.keyPem);
      writeFileSync(join(dir, 'tls.crt'), next.certPem);
      await new Promise((r) => setTimeout(r, 400));
      expect(reloads()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('refuses to start with a --client-ca-file that holds no certificate, without echoing what it holds', async () => {
    const caFile = join(mkdtempSync(join(tmpdir(), 'fleetgate-client-ca-')), 'client-ca.crt');
    for (const text of ['not a certificate\n', createCA('x').keyPem]) {
      writeFileSync(caFile, text);
      const started = start({ clientCaFile: caFile });
      await expect(started).rejects.toThrow(/client-ca-file .*holds no PEM certificate/);
      await expect(started).rejects.not.toThrow(/PRIVATE KEY|not a certificate/);
    }
  });

  it('refuses a client without a certificate when --client-ca-file is set', async () => {
    const clients = createCA('test client CA');
    const caFile = join(mkdtempSync(join(tmpdir(), 'fleetgate-client-ca-')), 'client-ca.crt');
    writeFileSync(caFile, clients.certPem);
    const server = await start({ clientCaFile: caFile });
    try {
      await expect(post(server, '/validate', reviewOf(examples[0]), { agent: false })).rejects.toThrow();
      const client = createClientCert(clients, 'kube-apiserver');
      const ok = await post(server, '/validate', reviewOf(examples[0]), { agent: false, cert: client.certPem, key: client.keyPem });
      expect(ok.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('context lookups', () => {
  it('answers lookups from --context files: a headless Service and a conflicting customization are denied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-context-'));
    const service = (config as any).webhooks.find((w: any) => w.clientConfig.service).clientConfig.service;
    writeFileSync(
      join(dir, 'objects.yaml'),
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${service.name}\n  namespace: ${service.namespace}\nspec:\n  clusterIP: None\n---\n` +
        JSON.stringify({ ...ric, metadata: { name: 'existing' } }),
    );
    const server = await start({ contextPaths: [dir] });
    try {
      const webhook = await post(server, '/validate', reviewOf(config));
      expect(webhook.json.response.allowed).toBe(false);
      expect(webhook.json.response.status.details.causes[0].field).toMatch(/^webhooks\[\d+\]\.clientConfig\.service$/);
      const customization = await post(server, '/validate', reviewOf(ric));
      expect(customization.json.response.allowed).toBe(false);
      expect(customization.json.response.status.details.causes[0].reason).toBe('FieldValueForbidden');
    } finally {
      await server.close();
    }
  });

  it.each([
    ['fail', false],
    ['ignore', true],
  ] as const)('a control plane that never answers: policy %s decides within the deadline', async (policy, allowed) => {
    const never = { getService: () => new Promise<undefined>(() => {}), listResourceInterpreterCustomizations: () => new Promise<unknown[]>(() => {}) };
    const server = await start({ lookups: never, contextFailurePolicy: policy });
    try {
      const began = Date.now();
      const { json } = await post(server, '/validate?timeout=1s', reviewOf(config));
      const took = Date.now() - began;
      expect(took).toBeLessThan(1000);
      expect(json.response.allowed).toBe(allowed);
      if (allowed) expect(json.response.warnings.join('\n')).toMatch(/could not read Service .* no answer within/);
      else expect(json.response.status).toMatchObject({ code: 503, message: expect.stringMatching(/could not read Service .*denying/) });
    } finally {
      await server.close();
    }
  });
});

describe('shutdown', () => {
  it('turns readiness false and drains an in-flight review before closing', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = { getService: async () => { await gate; return undefined; } };
    const server = await start({ lookups: slow });
    const inFlight = post(server, '/validate', reviewOf(config));
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.close();
    const ready = await fetch(`http://127.0.0.1:${server.probePort}/readyz`).then((r) => r.status, () => 'closed');
    expect([503, 'closed']).toContain(ready);
    release();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.json.response.allowed).toBe(true);
    // A client must not reuse a connection the server is about to close.
    expect(answer.headers.connection).toBe('close');
    await closing;
  });

  it('is not held by connections without a review in flight: bare, idle after TLS, with headers or a body half sent', async () => {
    const server = await start();
    const tls = (write: string) => {
      const socket = tlsConnect({ port: server.port, host: '127.0.0.1', ca: ca.certPem, servername: 'localhost' }, () => socket.write(write));
      return socket;
    };
    const bare = connect(server.port, '127.0.0.1');
    const idle = tls('');
    const halfSent = tls('POST /validate HTTP/1.1\r\nHost: x\r\n');
    // The headers whole, the body not: the request has begun, and will never finish arriving.
    const bodyHalfSent = tls('POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"ap');
    const all = [bare, idle, halfSent, bodyHalfSent];
    for (const s of all) s.on('error', () => {});
    await Promise.all(all.map((s) => new Promise((r) => s.once(s === bare ? 'connect' : 'secureConnect', r))));
    await new Promise((r) => setTimeout(r, 100));
    const began = Date.now();
    await server.close();
    // The stalled body is given a second to arrive, not the 30 s a request may take.
    expect(Date.now() - began).toBeLessThan(5000);
    for (const s of all) s.destroy();
  });
});

describe('a request that never finishes arriving', () => {
  it('is given at most 30 seconds, as no API server waits longer for an answer', async () => {
    const server = await start();
    try {
      expect(server.server.requestTimeout).toBe(30_000);
      expect(server.server.headersTimeout).toBeLessThanOrEqual(30_000);
      // A connection that never starts its TLS handshake is given as long (found by bench/reliability/faults.ts:
      // Node's default kept such connections 120 s). Node keeps the limit under a symbol only.
      const handshake = Object.getOwnPropertySymbols(server.server).find((key) => key.description === 'handshake-timeout');
      expect(handshake && (server.server as unknown as Record<symbol, unknown>)[handshake]).toBe(30_000);
    } finally {
      await server.close();
    }
  });
});
