/**
 * End to end over HTTPS: what fleetgate's /mutate-work, /mutate-clusterresourcebinding and
 * /mutate-multiclusterservice make of a write is the object Karmada's mutators make of it
 * (karmada-parity.md §2.4, §2.6, §2.7), apart from the random UUID and what Go's re-encoding of
 * the typed object adds (an empty `status: {}` or `spec.range: {}`), which fleetgate does not
 * copy. Checked against Karmada's own webhook built from f8fdd02 (shared/peer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:https';
import { pino } from 'pino';
import { applyPatch, type Operation } from 'rfc6902';
import { createCA } from '../../certs/tinyca.js';
import { serve, type RunningServer } from '../../src/server/serve.js';
import { validate } from '../../src/decode/object.js';
import { servingCertDir } from './cert-dir.js';

type Obj = Record<string, any>;

const ca = createCA();
let server: RunningServer;
beforeAll(async () => (server = await serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(ca), logger: pino({ level: 'silent' }) })));
afterAll(() => server.close());

function post(path: string, body: unknown): Promise<Obj> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'POST', ca: ca.certPem, servername: 'localhost', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => done(JSON.parse(Buffer.concat(chunks).toString())));
    });
    req.on('error', fail);
    req.end(JSON.stringify(body));
  });
}

/** The object the API server stores after fleetgate's answer: the request's object with the patch applied. */
async function mutate(path: string, object: Obj, extra: Obj = {}): Promise<{ response: Obj; patched: Obj; patch: Operation[] }> {
  const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', operation: 'CREATE', namespace: object.metadata.namespace, object, ...extra } };
  const { response } = await post(path, review);
  const patch: Operation[] = response.patch ? JSON.parse(Buffer.from(response.patch, 'base64').toString()) : [];
  const patched = structuredClone(object);
  expect(applyPatch(patched, patch).filter(Boolean)).toEqual([]);
  return { response, patched, patch };
}

const PID = 'work.karmada.io/permanent-id';
const MA = 'resourcetemplate.karmada.io/managed-annotations';
const ML = 'resourcetemplate.karmada.io/managed-labels';
const RECORDS = `${MA},${ML}`;

// The Work of the side-by-side benchmark's `work-mutate` payload (shared/peer/payloads).
const ID = '5b4fa1a8-1f7e-4e1c-9e63-2b3b1f1c2c3d';
const benchWork = {
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: { name: 'nginx-687f7fb96f', namespace: 'karmada-es-member1', labels: { [PID]: ID } },
  spec: {
    workload: {
      manifests: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
          spec: { replicas: 2, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } },
        },
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'pi', namespace: 'default' },
          spec: { ttlSecondsAfterFinished: 100, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } },
        },
      ],
    },
  },
};

/** Karmada's answer for benchWork, applied, without the `status: {}` its re-encoding adds. */
const karmadaBenchWork = (id: string) => ({
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: { name: 'nginx-687f7fb96f', namespace: 'karmada-es-member1', labels: { [PID]: id } },
  spec: {
    workload: {
      manifests: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx', [PID]: id }, annotations: { [MA]: RECORDS, [ML]: `app,${PID}` } },
          spec: { replicas: 2, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } },
        },
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'pi', namespace: 'default', labels: { [PID]: id }, annotations: { [MA]: RECORDS, [ML]: PID } },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } },
        },
      ],
    },
  },
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('/mutate-work', () => {
  it("gives the benchmark's labelled Work exactly what Karmada gives it", async () => {
    const { response, patched, patch } = await mutate('/mutate-work', benchWork);
    expect(response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    expect(patched).toEqual(karmadaBenchWork(ID));
    // Like Karmada's, one operation per change: no manifest is rewritten whole.
    expect(patch.map((op) => `${op.op} ${op.path}`)).toEqual([
      'add /spec/workload/manifests/0/metadata/annotations',
      `add /spec/workload/manifests/0/metadata/labels/work.karmada.io~1permanent-id`,
      'remove /spec/workload/manifests/1/spec/ttlSecondsAfterFinished',
      'add /spec/workload/manifests/1/metadata/annotations',
      'add /spec/workload/manifests/1/metadata/labels',
    ]);
  });

  it('gives an unlabelled Work a random v4 UUID, on the Work and every manifest', async () => {
    const unlabelled = structuredClone(benchWork) as Obj;
    delete unlabelled.metadata.labels;
    const first = await mutate('/mutate-work', unlabelled);
    const id = first.patched.metadata.labels[PID];
    expect(id).toMatch(UUID_V4);
    expect(first.patched).toEqual(karmadaBenchWork(id));
    const second = await mutate('/mutate-work', unlabelled);
    expect(second.patched.metadata.labels[PID]).not.toBe(id);
  });

  it('prunes every kind Karmada prunes, on UPDATE as on CREATE', async () => {
    const stored = { ...benchWork, metadata: { ...benchWork.metadata, resourceVersion: '7' } };
    const work = {
      ...stored,
      spec: {
        workload: {
          manifests: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: {
                name: 'web',
                namespace: 'shop',
                uid: 'a1',
                resourceVersion: '912',
                generation: 3,
                creationTimestamp: '2026-11-20T08:00:00Z',
                managedFields: [{ manager: 'kubectl' }],
                annotations: { 'deployment.kubernetes.io/revision': '3', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
                labels: { app: 'web' },
              },
              spec: { replicas: 3 },
              status: { readyReplicas: 3 },
            },
            {
              apiVersion: 'batch/v1',
              kind: 'Job',
              metadata: { name: 'migrate', namespace: 'shop', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', uid: 'c1' }] },
              spec: {
                ttlSecondsAfterFinished: 60,
                selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'j1' } },
                template: { metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'j1', 'batch.kubernetes.io/job-name': 'migrate', 'controller-uid': 'j1', 'job-name': 'migrate' } }, spec: { restartPolicy: 'Never' } },
              },
            },
            { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop', finalizers: ['service.kubernetes.io/load-balancer-cleanup'] }, spec: { clusterIP: '10.96.4.2', clusterIPs: ['10.96.4.2'], ports: [{ port: 80 }] } },
            { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-headless', namespace: 'shop' }, spec: { clusterIP: 'None', clusterIPs: ['None'] } },
            { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'web', namespace: 'shop' }, secrets: [{ name: 'web-token-q8x2z' }, { name: 'pull-secret' }] },
            { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'web-token', namespace: 'shop', annotations: { 'kubernetes.io/service-account.name': 'web', 'kubernetes.io/service-account.uid': 'sa1' } }, data: { token: 'dA==' } },
            { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'shop', annotations: { 'volume.kubernetes.io/selected-node': 'node-2' } }, spec: { resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Bound' } },
          ],
        },
      },
    };
    const { response, patched } = await mutate('/mutate-work', work, { operation: 'UPDATE', oldObject: stored });
    expect(response.allowed).toBe(true);
    const records = (labels: string) => ({ [MA]: RECORDS, [ML]: labels });
    expect(patched.spec.workload.manifests).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: 'web',
          namespace: 'shop',
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', [MA]: `kubectl.kubernetes.io/last-applied-configuration,${RECORDS}`, [ML]: `app,${PID}` },
          labels: { app: 'web', [PID]: ID },
        },
        spec: { replicas: 3 },
      },
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'migrate', namespace: 'shop', annotations: records(PID), labels: { [PID]: ID } },
        spec: { selector: { matchLabels: {} }, template: { metadata: { labels: {} }, spec: { restartPolicy: 'Never' } } },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop', annotations: records(PID), labels: { [PID]: ID } }, spec: { ports: [{ port: 80 }] } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-headless', namespace: 'shop', annotations: records(PID), labels: { [PID]: ID } }, spec: { clusterIP: 'None', clusterIPs: ['None'] } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'web', namespace: 'shop', annotations: records(PID), labels: { [PID]: ID } }, secrets: [{ name: 'pull-secret' }] },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/service-account-token',
        metadata: { name: 'web-token', namespace: 'shop', annotations: { 'kubernetes.io/service-account.name': 'web', [MA]: `kubernetes.io/service-account.name,${RECORDS}`, [ML]: PID }, labels: { [PID]: ID } },
        data: null,
      },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'shop', annotations: records(PID), labels: { [PID]: ID } }, spec: { resources: { requests: { storage: '1Gi' } } } },
    ]);
    expect(patched.metadata).toEqual(stored.metadata);
  });

  it('refuses a Work whose manifest has no kind, naming the manifest (Karmada: a bare 500)', async () => {
    const work = structuredClone(benchWork) as Obj;
    delete work.spec.workload.manifests[1].kind;
    const { response, patch } = await mutate('/mutate-work', work);
    expect(patch).toEqual([]);
    expect(response).toMatchObject({
      allowed: false,
      status: { code: 422, reason: 'Invalid', message: `Work.work.karmada.io "nginx-687f7fb96f" is invalid: spec.workload.manifests[1].kind: Required value: Object 'Kind' is missing: the member cluster cannot apply the manifest` },
    });
  });
});

describe('/mutate-clusterresourcebinding and /mutate-multiclusterservice', () => {
  // The side-by-side benchmark's `crb-mutate` payload.
  const crb = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ClusterResourceBinding', metadata: { name: 'ns1-namespace' }, spec: { resource: { apiVersion: 'v1', kind: 'Namespace', name: 'ns1' }, clusters: [{ name: 'member1' }] } };
  const mcs = { apiVersion: 'networking.karmada.io/v1alpha1', kind: 'MultiClusterService', metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } }, spec: { types: ['LoadBalancer'], ports: [{ port: 80 }] } };

  it('label a new ClusterResourceBinding, and only that', async () => {
    const { patched, patch } = await mutate('/mutate-clusterresourcebinding', crb);
    const id = patched.metadata.labels['clusterresourcebinding.karmada.io/permanent-id'];
    expect(id).toMatch(UUID_V4);
    expect(patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { 'clusterresourcebinding.karmada.io/permanent-id': id } }]);
  });

  it('label a MultiClusterService on CREATE and UPDATE, without the `spec.range: {}` Go adds (which would get it refused)', async () => {
    for (const operation of ['CREATE', 'UPDATE']) {
      const { patched } = await mutate('/mutate-multiclusterservice', mcs, { operation, oldObject: mcs });
      const id = patched.metadata.labels['multiclusterservice.karmada.io/permanent-id'];
      expect(id).toMatch(UUID_V4);
      expect(patched).toEqual({ ...mcs, metadata: { ...mcs.metadata, labels: { app: 'web', 'multiclusterservice.karmada.io/permanent-id': id } } });
      expect(validate(patched).allowed).toBe(true);
      expect(validate({ ...patched, spec: { ...patched.spec, range: {} } }).causes.map((c) => c.field)).toEqual(['spec.range']);
    }
  });
});
