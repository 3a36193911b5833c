import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:https';
import { createCA } from '../../certs/tinyca.js';
import { pino } from 'pino';
import { serve, type RunningServer } from '../../src/server/serve.js';
import { servingCertDir } from './cert-dir.js';

let running: RunningServer;
let ca: string;

beforeAll(async () => {
  const authority = createCA();
  ca = authority.certPem;
  running = await serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(authority), logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await running?.close();
});

function post(path: string, body: string | Buffer, contentType = 'application/json'): Promise<{ status: number; json: any }> {
  return new Promise((done, fail) => {
    const req = request(
      { host: '127.0.0.1', port: running.port, path, method: 'POST', ca, servername: 'localhost', headers: { 'content-type': contentType } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

const cluster = (effect: string) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'm1' },
  spec: { syncMode: 'Push', taints: [{ key: 'k', effect }] },
});

const reviewOf = (object: unknown, apiVersion = 'admission.k8s.io/v1') =>
  JSON.stringify({ apiVersion, kind: 'AdmissionReview', request: { uid: 'abc', operation: 'CREATE', object } });

describe('fleetgate serve', () => {
  it.each(['/validate', '/validate-cluster'])('answers reviews on %s over HTTPS', async (path) => {
    const ok = await post(path, reviewOf(cluster('NoSchedule')));
    expect(ok).toEqual({ status: 200, json: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'abc', allowed: true } } });
    const denied = await post(path, reviewOf(cluster('Foo'), 'admission.k8s.io/v1beta1'));
    expect(denied.status).toBe(200);
    expect(denied.json.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(denied.json.response.status.details.causes[0].field).toBe('spec.taints[0].effect');
  });

  it('mutates on /mutate-cluster', async () => {
    const { json } = await post('/mutate-cluster', reviewOf({ ...cluster('NoSchedule'), spec: { syncMode: 'Pull' } }));
    expect(json.response.patchType).toBe('JSONPatch');
  });

  it('refuses a per-kind path for another kind with code 400 in the review', async () => {
    const { status, json } = await post('/validate-work', reviewOf(cluster('NoSchedule')));
    expect(status).toBe(200);
    expect(json.response).toMatchObject({ allowed: false, status: { code: 400 } });
  });

  it.each([
    ['non-JSON', 'not json', 'application/json', 400],
    ['a wrong content type', reviewOf(cluster('NoSchedule')), 'text/plain', 400],
    ['a body that is not an AdmissionReview', JSON.stringify({ kind: 'Pod' }), 'application/json', 400],
    ['an empty body', '', 'application/json', 400],
  ])('answers %s with its 4xx and keeps serving', async (_name, body, type, code) => {
    const { status, json } = await post('/validate', body, type);
    expect(status).toBe(code);
    expect(json).toMatchObject({ kind: 'Status', code });
    expect((await post('/validate', reviewOf(cluster('NoSchedule')))).status).toBe(200);
  });

  // RFC 9110 §8.3.1: type, subtype and parameter names are case-insensitive; parameters may follow.
  it.each(['application/json', 'Application/JSON', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/Json ; Charset="utf-8"'])(
    'takes a review sent as %s',
    async (type) => {
      expect(await post('/validate', reviewOf(cluster('NoSchedule')), type)).toMatchObject({ status: 200, json: { response: { allowed: true } } });
    },
  );

  it.each(['application/jsonx', 'application/x-json', 'text/json', 'application/json-patch+json', 'application/yaml', ''])('refuses a review sent as "%s" with 400', async (type) => {
    const { status, json } = await post('/validate', reviewOf(cluster('NoSchedule')), type);
    expect(status).toBe(400);
    expect(json.message).toContain('expected application/json');
  });

  it('answers 413 above 7 MiB and keeps serving', async () => {
    const big = Buffer.alloc(7 * 1024 * 1024 + 10, 'a');
    const { status } = await post('/validate', big);
    expect(status).toBe(413);
    expect((await post('/validate', reviewOf(cluster('NoSchedule')))).status).toBe(200);
  });

  it('answers readiness on the probe port', async () => {
    const res = await fetch(`http://127.0.0.1:${running.probePort}/readyz`);
    expect(res.status).toBe(200);
  });
});
