import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Server, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { createCA, createServingCert } from '../../certs/tinyca.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { kubeLookups, type KubeLookups } from '../../src/server/kube.js';
import { validate } from '../../src/index.js';
import { config } from '../fixtures/resourceinterpreterwebhookconfiguration.js';
import { ric } from '../fixtures/resourceinterpretercustomization.js';

/** Just enough of a Kubernetes API server: list and (held-open) watch for two collections. */
class FakeControlPlane {
  server!: Server;
  answer = true;
  /** Lists of services left unanswered before one is answered. */
  hangServiceLists = 0;
  services: unknown[] = [];
  customizations: unknown[] = [];
  watches: ServerResponse[] = [];

  async start(): Promise<string> {
    const ca = createCA('fake control plane CA');
    const serving = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    this.server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      if (!this.answer) return; // a control plane that never answers
      const url = new URL(req.url ?? '/', 'http://x');
      const items = url.pathname === '/api/v1/services' ? this.services : url.pathname.endsWith('/resourceinterpretercustomizations') ? this.customizations : undefined;
      if (!items) {
        res.writeHead(404).end();
        return;
      }
      if (url.pathname === '/api/v1/services' && url.searchParams.get('watch') !== 'true' && this.hangServiceLists > 0) {
        this.hangServiceLists--;
        return; // this list never answers
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (url.searchParams.get('watch') === 'true') {
        this.watches.push(res);
        res.on('close', () => (this.watches = this.watches.filter((w) => w !== res)));
        res.flushHeaders();
        return;
      }
      res.end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items }));
    });
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-kube-'));
    const file = join(dir, 'kubeconfig');
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: cp\n  cluster:\n    server: https://127.0.0.1:${(this.server.address() as AddressInfo).port}\n    certificate-authority-data: ${Buffer.from(ca.certPem).toString('base64')}\nusers:\n- name: u\n  user:\n    token: test\ncontexts:\n- name: c\n  context:\n    cluster: cp\n    user: u\ncurrent-context: c\n`,
    );
    return file;
  }

  /** Sends a watch event on the open watch of a collection. */
  event(pathSuffix: string, type: 'ADDED' | 'DELETED', object: unknown): void {
    const res = this.watches.findLast((w) => ((w.req.url ?? '').split('?')[0] ?? '').endsWith(pathSuffix));
    res?.write(`${JSON.stringify({ type, object })}\n`);
  }

  async stop(): Promise<void> {
    for (const w of this.watches) w.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}

const silent = pino({ level: 'silent' });
const service = (config as any).webhooks.find((w: any) => w.clientConfig.service).clientConfig.service;
const headless = { apiVersion: 'v1', kind: 'Service', metadata: { name: service.name, namespace: service.namespace, resourceVersion: '1' }, spec: { clusterIP: 'None' } };
const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  return check();
};

describe('lookups through a kubeconfig', () => {
  const plane = new FakeControlPlane();
  let file: string;
  let kube: KubeLookups | undefined;
  beforeAll(async () => (file = await plane.start()));
  afterEach(async () => {
    await kube?.stop();
    kube = undefined;
  });
  afterAll(() => plane.stop());

  it('lists, then answers from the cache: a headless Service and a conflicting customization are denied', async () => {
    plane.services = [headless];
    plane.customizations = [{ ...ric, metadata: { name: 'existing', resourceVersion: '1' } }];
    kube = await kubeLookups({ kubeconfig: file, groupDomain: 'karmada.io', logger: silent });
    const webhook = await validate(config, { lookups: kube.lookups });
    expect(webhook.causes.map((c) => c.field)).toEqual([expect.stringMatching(/^webhooks\[\d+\]\.clientConfig\.service$/)]);
    const customization = await validate(ric, { lookups: kube.lookups });
    expect(customization.causes[0]?.type).toBe('FieldValueForbidden');
    expect(kube.synced()).toBe(true);
  });

  it('retries a list that never answers, and syncs once one does', async () => {
    plane.services = [headless];
    plane.customizations = [];
    plane.hangServiceLists = 1;
    kube = await kubeLookups({ kubeconfig: file, groupDomain: 'karmada.io', logger: silent, listTimeoutMs: 300, restartDelayMs: 100 });
    expect(kube.synced()).toBe(false);
    expect(await until(() => kube!.synced())).toBe(true);
    expect((await validate(config, { lookups: kube.lookups })).allowed).toBe(false);
  });

  it('follows watch events', async () => {
    plane.services = [];
    plane.customizations = [];
    kube = await kubeLookups({ kubeconfig: file, groupDomain: 'karmada.io', logger: silent });
    expect((await validate(config, { lookups: kube.lookups })).allowed).toBe(true);
    await until(() => plane.watches.some((w) => (w.req.url ?? '').startsWith('/api/v1/services')));
    plane.event('/api/v1/services', 'ADDED', headless);
    expect(await until(() => kube!.lookups.getService!(service.namespace, service.name) !== undefined)).toBe(true);
    expect((await validate(config, { lookups: kube.lookups })).allowed).toBe(false);
  });
});

describe('a control plane that never answers', () => {
  const plane = new FakeControlPlane();
  let file: string;
  beforeAll(async () => {
    file = await plane.start();
    plane.answer = false;
  });
  afterAll(() => plane.stop());

  it('keeps readiness false and lets the deadline decide', async () => {
    const { serve } = await import('../../src/server/serve.js');
    const { createCA } = await import('../../certs/tinyca.js');
    const { servingCertDir } = await import('./cert-dir.js');
    const ca = createCA();
    const server = await serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(ca), kubeconfig: file, logger: silent });
    try {
      const readyz = await fetch(`http://127.0.0.1:${server.probePort}/readyz`);
      expect(readyz.status).toBe(503);
      // Not "shutting down": a probe failure read in kubectl describe must say what is awaited.
      expect(await readyz.text()).toBe('waiting for the first list of Services and ResourceInterpreterCustomizations from the control plane');
      const { request } = await import('node:https');
      const began = Date.now();
      const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'k', operation: 'CREATE', object: config } });
      const json: any = await new Promise((done, fail) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: '/validate?timeout=2s', method: 'POST', ca: ca.certPem, servername: 'localhost', headers: { 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => done(JSON.parse(text)));
        });
        req.on('error', fail);
        req.end(body);
      });
      expect(Date.now() - began).toBeLessThan(2000);
      expect(json.response).toMatchObject({ uid: 'k', allowed: false, status: { code: 503 } });
    } finally {
      await server.close();
    }
  });
});
