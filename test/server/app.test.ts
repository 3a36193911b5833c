/**
 * The webhook's routing and HTTP protocol, on its Koa app in process (createApp().callback(), no
 * socket): every kind on every path, content types, body limits, methods. What needs TLS or a
 * listening server (certificates, shutdown, the probe port, a body that never ends) is in the
 * serve(), webhook and hardening tests.
 */
import { describe, expect, it } from 'vitest';
import { examples } from '../fixtures/index.js';
import { corpus } from '../../bench/corpus.js';
import { kinds } from '../../src/index.js';
import { appClient, cluster as clusterWithTaint, reviewOf as reviewText } from './app-client.js';

const client = appClient();

const reviewOf = (object: any, apiVersion = 'admission.k8s.io/v1', extra: Record<string, unknown> = {}) => ({
  apiVersion,
  kind: 'AdmissionReview',
  request: { uid: `uid-${object.kind}`, operation: 'CREATE', namespace: object.metadata?.namespace, object, ...extra },
});

describe('every kind, on each of its paths', () => {
  const broken = corpus().filter((_, i) => i % 3 === 2) as any[];
  const cases = examples.flatMap((example: any) =>
    ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'].flatMap((version) =>
      ['/validate', `/validate-${example.kind.toLowerCase()}`].map((path) => ({ kind: example.kind as string, version, path, example })),
    ),
  );

  it.each(cases)('$kind via $path ($version)', async ({ version, path, example }) => {
    const ok = await client.post(path, reviewOf(example, version));
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ apiVersion: version, kind: 'AdmissionReview', response: { uid: `uid-${example.kind}`, allowed: true } });
    expect(ok.json.response.patch).toBeUndefined();

    const bad = broken.find((b) => b.kind === example.kind && b.metadata.name === example.metadata.name);
    const denied = await client.post(path, reviewOf(bad, version));
    expect(denied.json.response).toMatchObject({ uid: `uid-${example.kind}`, allowed: false, status: { code: 422, reason: 'Invalid' } });
    expect(denied.json.response.status.details.causes.length).toBeGreaterThan(0);
    expect(denied.json.response.patch).toBeUndefined();
  });

  it.each(kinds.map((k) => k.kind))('mutates %s on both mutate paths', async (kind) => {
    const example = examples.find((e) => e.kind === kind)!;
    const info = kinds.find((k) => k.kind === kind)!;
    for (const path of ['/mutate', info.webhookPaths.mutate]) {
      const { json } = await client.post(path, reviewOf(example));
      expect(json.response.allowed).toBe(true);
      if (json.response.patch) {
        expect(info.mutating).toBe(true);
        expect(json.response.patchType).toBe('JSONPatch');
        expect(Array.isArray(JSON.parse(Buffer.from(json.response.patch, 'base64').toString()))).toBe(true);
      }
    }
  });

  it('answers deeply nested JSON and prototype keys without falling over', async () => {
    const deep = `${'['.repeat(100000)}${']'.repeat(100000)}`;
    const nested = await client.post('/validate', deep);
    expect(nested.status).toBe(400);
    const proto = await client.post('/validate', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"p","operation":"CREATE","object":{"__proto__":{"y":1},"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"name":"m"},"spec":{"syncMode":"Push"}}}}');
    expect(proto.json.response).toMatchObject({ uid: 'p', allowed: true });
    expect(({} as any).polluted).toBeUndefined();
    expect((await client.post('/validate', reviewOf(examples[0]))).status).toBe(200);
  });

});

describe('the review protocol', () => {
  it('mutates on /mutate-cluster', async () => {
    const { json } = await client.post('/mutate-cluster', reviewText({ ...clusterWithTaint('NoSchedule'), spec: { syncMode: 'Pull' } }));
    expect(json.response.patchType).toBe('JSONPatch');
  });

  it('refuses a per-kind path for another kind with code 400 in the review', async () => {
    const { status, json } = await client.post('/validate-work', reviewText(clusterWithTaint('NoSchedule')));
    expect(status).toBe(200);
    expect(json.response).toMatchObject({ allowed: false, status: { code: 400 } });
  });

  it.each([
    ['non-JSON', 'not json', 'application/json', 400],
    ['a wrong content type', reviewText(clusterWithTaint('NoSchedule')), 'text/plain', 400],
    ['a body that is not an AdmissionReview', JSON.stringify({ kind: 'Pod' }), 'application/json', 400],
    ['an empty body', '', 'application/json', 400],
  ])('answers %s with its 4xx and keeps serving', async (_name, body, type, code) => {
    const { status, json } = await client.post('/validate', body, type);
    expect(status).toBe(code);
    expect(json).toMatchObject({ kind: 'Status', code });
    expect((await client.post('/validate', reviewText(clusterWithTaint('NoSchedule')))).status).toBe(200);
  });

  // RFC 9110 §8.3.1: type, subtype and parameter names are case-insensitive; parameters may follow.
  it.each(['application/json', 'Application/JSON', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/Json ; Charset="utf-8"'])(
    'takes a review sent as %s',
    async (type) => {
      expect(await client.post('/validate', reviewText(clusterWithTaint('NoSchedule')), type)).toMatchObject({ status: 200, json: { response: { allowed: true } } });
    },
  );

  it.each(['application/jsonx', 'application/x-json', 'text/json', 'application/json-patch+json', 'application/yaml', ''])('refuses a review sent as "%s" with 400', async (type) => {
    const { status, json } = await client.post('/validate', reviewText(clusterWithTaint('NoSchedule')), type);
    expect(status).toBe(400);
    expect(json.message).toContain('expected application/json');
  });

  it('answers 413 above 7 MiB and keeps serving', async () => {
    const big = Buffer.alloc(7 * 1024 * 1024 + 10, 'a');
    const { status } = await client.post('/validate', big);
    expect(status).toBe(413);
    expect((await client.post('/validate', reviewText(clusterWithTaint('NoSchedule')))).status).toBe(200);
  });

});

const cluster = examples.find((e) => e.kind === 'Cluster') as any;
describe('routing', () => {
  it('serves the webhook paths exactly as registered', async () => {
    expect((await client.post('/validate-cluster', reviewOf(cluster))).status).toBe(200);
    expect((await client.post('/Validate-Cluster', reviewOf(cluster))).status).toBe(404);
    expect((await client.post('/validate-cluster/', reviewOf(cluster))).status).toBe(404);
  });

  it('answers a POST to every webhook path from its exact-path lookup, never from the router', async () => {
    // The router's POST handlers only exist for other methods' 405; one reached would answer 500.
    const paths = ['/validate', '/mutate', '/validate-resourcedeletionprotection', ...kinds.flatMap((k) => [k.webhookPaths.validate, k.webhookPaths.mutate])];
    for (const path of paths) {
      const answer = await client.post(path, reviewOf(cluster, 'admission.k8s.io/v1', path.includes('deletion') ? { operation: 'DELETE', object: undefined, oldObject: cluster } : {}));
      expect({ path, status: answer.status, kind: answer.json.kind }).toEqual({ path, status: 200, kind: 'AdmissionReview' });
    }
    expect(paths.length).toBe(2 + 1 + 2 * kinds.length);
  });

  // Found by the input fuzzer (bench/reliability): the router answered these 501, a server error.
  it('refuses a method HTTP does not define as it refuses GET: 405 on a webhook path, 404 elsewhere', async () => {
    const call = client.call;
    for (const method of ['GET', 'PROPFIND', 'TRACE', 'MKCOL']) {
      expect(await call(method, '/validate-cluster')).toEqual({ status: 405, allow: 'POST' });
      expect((await call(method, '/no-such-path')).status).toBe(404);
    }
    expect((await client.post('/validate-cluster', reviewOf(cluster))).status).toBe(200);
  });
});

