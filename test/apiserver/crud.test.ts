/**
 * The spec's operations on a cluster-scoped kind (Cluster) and a namespaced one (Work): success
 * codes, object semantics and kube-apiserver's error texts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApi, type Api } from './http-helpers.js';
import { cluster } from '../fixtures/cluster.js';
import { work } from '../fixtures/work.js';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const WORKS = '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works';
const copy = <T>(o: T): any => structuredClone(o);

let api: Api;
beforeEach(() => {
  api = startApi();
});
afterEach(() => api.close());

describe('create', () => {
  it('answers 201 with the stored object: system fields filled, status dropped, defaults applied', async () => {
    const res = await api.post(CLUSTERS, cluster);
    expect(res.status).toBe(201);
    const m = res.body.metadata;
    expect(m.name).toBe('member1');
    expect(m.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(m.generation).toBe(1);
    expect(m.resourceVersion).toMatch(/^\d+$/);
    // A create cannot set status (the status subresource is the only way).
    expect(res.body.status).toBeUndefined();
    expect(res.body.spec).toEqual(cluster.spec);
    const got = await api.get(`${CLUSTERS}/member1`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('fills the defaults the library states (Cluster resource models when none are given)', async () => {
    const c = copy(cluster);
    delete c.spec.resourceModels;
    const res = await api.post(CLUSTERS, c);
    expect(res.status).toBe(201);
    expect(res.body.spec.resourceModels).toHaveLength(9);
  });

  it('answers AlreadyExists (409) in kube-apiserver words', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.post(CLUSTERS, cluster);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'AlreadyExists',
      code: 409,
      message: 'clusters.cluster.karmada.io "member1" already exists',
      details: { name: 'member1', group: 'cluster.karmada.io', kind: 'clusters' },
    });
  });

  it('answers 422 Invalid with every cause, so kubectl prints "The Cluster "m1" is invalid: …"', async () => {
    const c = copy(cluster);
    c.metadata.name = 'm1';
    delete c.spec.syncMode;
    c.spec.taints[0].effect = 'Foo';
    const res = await api.post(CLUSTERS, c);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details).toMatchObject({ name: 'm1', group: 'cluster.karmada.io', kind: 'Cluster' });
    // In object order: the taint the object has, then the syncMode it lacks.
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Foo": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"', field: 'spec.taints[0].effect' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.syncMode' },
    ]);
    expect(res.body.message).toBe(
      'Cluster.cluster.karmada.io "m1" is invalid: [spec.taints[0].effect: Unsupported value: "Foo": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute", spec.syncMode: Required value]',
    );
    expect((await api.get(`${CLUSTERS}/m1`)).status).toBe(404);
  });

  it('a body nested deeper than kube’s limit is a 400 for a create and for a merge patch, never a crash', async () => {
    const depth = 100_000;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const created = await api.post(CLUSTERS, `{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"name":"deep"},"spec":{"syncMode":"Push","x":${deep}}}`);
    expect(created.status).toBe(400);
    expect(created.body.message).toBe('Cluster in version "v1alpha1" cannot be handled as a Cluster: exceeded max depth of 10000');
    await api.post(CLUSTERS, cluster);
    const patched = await api.patch(`${CLUSTERS}/member1`, `{"spec":{"x":${deep}}}`, 'application/merge-patch+json');
    expect(patched.status).toBe(400);
  });

  it('names an object from generateName', async () => {
    const c = copy(cluster);
    delete c.metadata.name;
    c.metadata.generateName = 'member-';
    const res = await api.post(CLUSTERS, c);
    expect(res.status).toBe(201);
    expect(res.body.metadata.name).toMatch(/^member-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('takes the namespace from the path, and refuses a body that names another', async () => {
    const w = copy(work);
    delete w.metadata.namespace;
    const res = await api.post(WORKS, w);
    expect(res.status).toBe(201);
    expect(res.body.metadata.namespace).toBe('karmada-es-member1');
    const other = copy(work);
    other.metadata.name = 'other';
    other.metadata.namespace = 'elsewhere';
    const refused = await api.post(WORKS, other);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });

  it('with dryRun=All runs admission, answers the object without a resourceVersion, and stores nothing', async () => {
    const res = await api.post(`${CLUSTERS}?dryRun=All`, cluster);
    expect(res.status).toBe(201);
    expect(res.body.metadata.resourceVersion).toBeUndefined();
    expect((await api.get(`${CLUSTERS}/member1`)).status).toBe(404);
    const bad = copy(cluster);
    bad.spec.syncMode = 'Both';
    expect((await api.post(`${CLUSTERS}?dryRun=All`, bad)).status).toBe(422);
  });

  it('refuses a body that is not JSON, not an object, or of another kind or version (400)', async () => {
    expect((await api.post(CLUSTERS, '{"kind":')).status).toBe(400);
    expect((await api.post(CLUSTERS, '[1]')).status).toBe(400);
    const w = await api.post(CLUSTERS, { ...copy(work), metadata: { name: 'x' } });
    expect(w.status).toBe(400);
    expect(w.body.message).toBe('the API version in the data (work.karmada.io/v1alpha1) does not match the expected API version (cluster.karmada.io/v1alpha1)');
  });

  it('refuses a resourceVersion on create, as kube-apiserver storage does', async () => {
    const res = await api.post(CLUSTERS, { ...copy(cluster), metadata: { name: 'x', resourceVersion: '5' } });
    expect(res.status).toBe(500);
    expect(res.body.message).toBe('resourceVersion should not be set on objects to be created');
  });
});

describe('fieldValidation', () => {
  const withUnknown = () => {
    const c = copy(cluster);
    c.spec.bogusField = 1;
    return c;
  };

  it('Strict: an unknown field is a 400 strict decoding error', async () => {
    const res = await api.post(`${CLUSTERS}?fieldValidation=Strict`, withUnknown());
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('BadRequest');
    expect(res.body.message).toBe('Cluster in version "v1alpha1" cannot be handled as a Cluster: strict decoding error: unknown field "spec.bogusField"');
  });

  it('Strict: a duplicate key is a strict decoding error too', async () => {
    const text = JSON.stringify(cluster).replace('"syncMode":"Push"', '"syncMode":"Push","syncMode":"Pull"');
    const res = await api.post(`${CLUSTERS}?fieldValidation=Strict`, text);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Cluster in version "v1alpha1" cannot be handled as a Cluster: strict decoding error: duplicate field "syncMode"');
  });

  it('Warn (the default): created, the field pruned, a Warning header per field', async () => {
    const res = await api.post(CLUSTERS, withUnknown());
    expect(res.status).toBe(201);
    expect(res.body.spec.bogusField).toBeUndefined();
    expect(res.warnings).toContain('unknown field "spec.bogusField"');
  });

  it('Ignore: created and pruned without a warning', async () => {
    const res = await api.post(`${CLUSTERS}?fieldValidation=Ignore`, withUnknown());
    expect(res.status).toBe(201);
    expect(res.body.spec.bogusField).toBeUndefined();
    expect(res.warnings).not.toContain('unknown field "spec.bogusField"');
  });

  it('an unknown value of the parameter is a 422 on the options', async () => {
    const res = await api.post(`${CLUSTERS}?fieldValidation=Loose`, cluster);
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0]).toMatchObject({ field: 'fieldValidation', reason: 'FieldValueNotSupported' });
  });
});

describe('warnings', () => {
  it('a deprecated field goes out as a Warning: 299 header', async () => {
    const c = copy(cluster);
    delete c.spec.zones;
    c.spec.zone = 'eu-central-1a';
    const res = await api.post(CLUSTERS, c);
    expect(res.status).toBe(201);
    expect(res.warnings.some((w) => w.includes('spec.zone'))).toBe(true);
  });
});

describe('get', () => {
  it('answers 404 NotFound in kube-apiserver words', async () => {
    const res = await api.get(`${CLUSTERS}/nope`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ reason: 'NotFound', message: 'clusters.cluster.karmada.io "nope" not found', details: { name: 'nope', group: 'cluster.karmada.io', kind: 'clusters' } });
  });

  it('serves the status path with the whole object', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.get(`${CLUSTERS}/member1/status`);
    expect(res.status).toBe(200);
    expect(res.body.metadata.name).toBe('member1');
  });

  it('pretty=true indents', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.get(`${CLUSTERS}/member1?pretty=true`);
    expect(res.text).toContain('\n  "apiVersion"');
  });

  it('answers a path it does not serve with a 404 Status, and a method it does not allow with a 405', async () => {
    const res = await api.get('/apis/cluster.karmada.io/v1alpha1/namespaces/x/clusters');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('the server could not find the requested resource');
    expect((await api.post(`${CLUSTERS}/member1`, cluster)).status).toBe(405);
  });
});

describe('update (PUT)', () => {
  it('bumps generation on a spec change, keeps status, and keeps the system fields', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const next = copy(created);
    next.spec.region = 'eu-west-1';
    next.metadata.creationTimestamp = '2000-01-01T00:00:00Z';
    next.status = { kubernetesVersion: 'v9' };
    const res = await api.put(`${CLUSTERS}/member1`, next);
    expect(res.status).toBe(200);
    expect(res.body.metadata.generation).toBe(2);
    expect(res.body.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
    expect(res.body.status).toBeUndefined();
    expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
  });

  it('a metadata-only change leaves generation alone; a no-op write bumps nothing', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const labelled = copy(created);
    labelled.metadata.labels.team = 'a';
    const res = await api.put(`${CLUSTERS}/member1`, labelled);
    expect(res.body.metadata.generation).toBe(1);
    const again = await api.put(`${CLUSTERS}/member1`, res.body);
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);
  });

  it('a stale resourceVersion is a 409 Conflict with kube-apiserver text', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const first = copy(created);
    first.spec.region = 'a';
    expect((await api.put(`${CLUSTERS}/member1`, first)).status).toBe(200);
    const stale = copy(created);
    stale.spec.region = 'b';
    const res = await api.put(`${CLUSTERS}/member1`, stale);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on clusters.cluster.karmada.io "member1": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'member1', group: 'cluster.karmada.io', kind: 'clusters' },
    });
  });

  it('without a resourceVersion is refused: custom resources take no unconditional update', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.put(`${CLUSTERS}/member1`, cluster);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('clusters.cluster.karmada.io "member1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
  });

  it('a body naming another object than the URL is a 400', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const res = await api.put(`${CLUSTERS}/other`, created);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('the name of the object (member1) does not match the name on the URL (other)');
  });

  it('an update the library refuses is a 422, judged against the stored object (uid is immutable)', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const next = copy(created);
    next.metadata.uid = '00000000-0000-0000-0000-000000000000';
    const res = await api.put(`${CLUSTERS}/member1`, next);
    expect(res.status).toBe(422);
    expect(res.body.details.causes.map((c: any) => c.field)).toContain('metadata.uid');
  });

  it('of a missing object is a 404', async () => {
    const res = await api.put(`${CLUSTERS}/member1`, { ...copy(cluster), metadata: { name: 'member1', resourceVersion: '3' } });
    expect(res.status).toBe(404);
  });

  it('with dryRun answers the would-be object at the current resourceVersion and changes nothing', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const next = copy(created);
    next.spec.region = 'eu-west-1';
    const res = await api.put(`${CLUSTERS}/member1?dryRun=All`, next);
    expect(res.status).toBe(200);
    expect(res.body.spec.region).toBe('eu-west-1');
    expect(res.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect((await api.get(`${CLUSTERS}/member1`)).body.spec.region).toBe('eu-central-1');
  });
});

describe('status subresource', () => {
  it('a status write changes only status; generation stays', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const next = copy(created);
    next.status = copy(cluster.status);
    next.spec.region = 'ignored';
    next.metadata.labels = { ignored: 'yes' };
    const res = await api.put(`${CLUSTERS}/member1/status`, next);
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual(cluster.status);
    expect(res.body.spec.region).toBe('eu-central-1');
    expect(res.body.metadata.labels).toEqual(cluster.metadata.labels);
    expect(res.body.metadata.generation).toBe(1);
  });

  it('a status write is judged on status: a bad condition is a 422', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const next = copy(created);
    next.status = { conditions: [{ type: 'Ready', status: 'Maybe', reason: 'X', message: '', lastTransitionTime: '2026-11-20T08:00:00Z' }] };
    const res = await api.put(`${CLUSTERS}/member1/status`, next);
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].field).toBe('status.conditions[0].status');
  });

  it('a main-resource write leaves the stored status as it is', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const withStatus = (await api.put(`${CLUSTERS}/member1/status`, { ...copy(created), status: copy(cluster.status) })).body;
    const next = copy(withStatus);
    delete next.status;
    next.spec.region = 'x';
    const res = await api.put(`${CLUSTERS}/member1`, next);
    expect(res.body.status).toEqual(cluster.status);
  });
});

describe('patch', () => {
  it('merge patch', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.patch(`${CLUSTERS}/member1`, { spec: { region: 'eu-west-1', proxyHeader: null } }, 'application/merge-patch+json');
    expect(res.status).toBe(200);
    expect(res.body.spec.region).toBe('eu-west-1');
    expect(res.body.spec.proxyHeader).toBeUndefined();
    expect(res.body.metadata.generation).toBe(2);
  });

  it('JSON patch, and one that does not apply is a 422', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.patch(`${CLUSTERS}/member1`, [{ op: 'replace', path: '/spec/region', value: 'eu-west-1' }], 'application/json-patch+json');
    expect(res.status).toBe(200);
    expect(res.body.spec.region).toBe('eu-west-1');
    const bad = await api.patch(`${CLUSTERS}/member1`, [{ op: 'test', path: '/spec/region', value: 'nope' }], 'application/json-patch+json');
    expect(bad.status).toBe(422);
  });

  it('a patch that rewrites kind is a 422 naming the URL kind, judged by no other kind rules', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.patch(`${CLUSTERS}/member1`, [{ op: 'replace', path: '/kind', value: 'Work' }], 'application/json-patch+json');
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Cluster.cluster.karmada.io "member1" is invalid: kind: Invalid value: "Work": must be Cluster');
    expect(res.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'kind', message: 'Invalid value: "Work": must be Cluster' }]);
    const removed = await api.patch(`${CLUSTERS}/member1`, [{ op: 'remove', path: '/kind' }], 'application/json-patch+json');
    expect(removed.status).toBe(422);
    expect(removed.body.message).toBe('Cluster.cluster.karmada.io "member1" is invalid: kind: Invalid value: "": must be Cluster');
    expect((await api.get(`${CLUSTERS}/member1`)).body.kind).toBe('Cluster');
  });

  it('a resourceVersion in the patch is a precondition', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    await api.patch(`${CLUSTERS}/member1`, { spec: { region: 'a' } }, 'application/merge-patch+json');
    const res = await api.patch(`${CLUSTERS}/member1`, { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { region: 'b' } }, 'application/merge-patch+json');
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('Conflict');
  });

  it('strategic merge patch is a 415 with the CRD message, which names the apply patch among the accepted types', async () => {
    await api.post(CLUSTERS, cluster);
    const smp = await api.patch(`${CLUSTERS}/member1`, { spec: {} }, 'application/strategic-merge-patch+json');
    expect(smp.status).toBe(415);
    expect(smp.body).toMatchObject({
      reason: 'UnsupportedMediaType',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
    // The apply patch is served (server-side-apply.test.ts has its behaviour).
    const apply = await api.patch(`${CLUSTERS}/member1?fieldManager=kubectl`, JSON.stringify({ apiVersion: cluster.apiVersion, kind: 'Cluster', metadata: { name: 'member1' } }), 'application/apply-patch+yaml');
    expect(apply.status).toBe(200);
  });

  it('force is refused on a patch other than apply, as ValidatePatchOptions words it', async () => {
    await api.post(CLUSTERS, cluster);
    const forced = await api.patch(`${CLUSTERS}/member1?force=true`, { spec: {} }, 'application/merge-patch+json');
    expect(forced.status).toBe(422);
    expect(forced.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' }]);
    const unforced = await api.patch(`${CLUSTERS}/member1`, { spec: {} }, 'application/merge-patch+json');
    expect(unforced.status).toBe(200);
  });

  it('Strict: an unknown field in a patch is a 422 on the field "patch"', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.patch(`${CLUSTERS}/member1?fieldValidation=Strict`, { spec: { bogus: 1 } }, 'application/merge-patch+json');
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].field).toBe('patch');
    expect(res.body.details.causes[0].message).toContain('strict decoding error: unknown field "spec.bogus"');
  });

  it('a patch the library refuses is a 422 with its causes', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.patch(`${CLUSTERS}/member1`, { spec: { syncMode: 'Both' } }, 'application/merge-patch+json');
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([{ reason: 'FieldValueNotSupported', field: 'spec.syncMode', message: 'Unsupported value: "Both": supported values: "Push", "Pull"' }]);
  });

  it('patch status changes only status', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.patch(`${CLUSTERS}/member1/status`, { status: { kubernetesVersion: 'v1.32.0' }, spec: { region: 'x' } }, 'application/merge-patch+json');
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ kubernetesVersion: 'v1.32.0' });
    expect(res.body.spec.region).toBe('eu-central-1');
  });
});

describe('delete', () => {
  it('answers 200 with a Success Status naming the object', async () => {
    const created = (await api.post(CLUSTERS, cluster)).body;
    const res = await api.delete(`${CLUSTERS}/member1`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'member1', group: 'cluster.karmada.io', kind: 'clusters', uid: created.metadata.uid },
    });
    expect((await api.get(`${CLUSTERS}/member1`)).status).toBe(404);
    expect((await api.delete(`${CLUSTERS}/member1`)).status).toBe(404);
  });

  it('an object with finalizers is marked, answered, and removed once they are cleared', async () => {
    const c = copy(cluster);
    c.metadata.finalizers = ['example.com/cleanup'];
    await api.post(CLUSTERS, c);
    const res = await api.delete(`${CLUSTERS}/member1`);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('Cluster');
    expect(res.body.metadata.deletionTimestamp).toBeDefined();
    expect(res.body.metadata.deletionGracePeriodSeconds).toBe(0);
    // A second delete changes nothing.
    const again = await api.delete(`${CLUSTERS}/member1`);
    expect(again.body.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);
    const cleared = await api.patch(`${CLUSTERS}/member1`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(cleared.status).toBe(200);
    expect((await api.get(`${CLUSTERS}/member1`)).status).toBe(404);
  });

  it('takes DeleteOptions from the query when there is no body: dryRun keeps the object', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.delete(`${CLUSTERS}/member1?dryRun=All`);
    expect(res.status).toBe(200);
    expect((await api.get(`${CLUSTERS}/member1`)).status).toBe(200);
  });

  it('honours preconditions from the body', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.delete(`${CLUSTERS}/member1`, { preconditions: { uid: 'not-this-one' } });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('Precondition failed: UID in precondition: not-this-one');
  });

  it('a bad propagationPolicy is a 422 on DeleteOptions', async () => {
    await api.post(CLUSTERS, cluster);
    const res = await api.delete(`${CLUSTERS}/member1?propagationPolicy=Sometimes`);
    expect(res.status).toBe(422);
    expect(res.body.details).toMatchObject({ group: 'meta.k8s.io', kind: 'DeleteOptions' });
  });

  it('ignoreStoreReadErrorWithClusterBreakingPotential: only on the kinds the spec marks; refused for a readable object', async () => {
    const marked = '/apis/policy.karmada.io/v1alpha1/clustertaintpolicies/p?ignoreStoreReadErrorWithClusterBreakingPotential=true';
    const m = await api.delete(marked);
    expect(m.status).toBe(422);
    expect(m.body.details.causes[0].message).toContain('is exclusively used to delete corrupt object(s)');
    const unmarked = await api.delete(`${CLUSTERS}/member1?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(unmarked.status).toBe(422);
    expect(unmarked.body.details.causes[0].field).toBe('ignoreStoreReadErrorWithClusterBreakingPotential');
    expect(unmarked.body.details.causes[0].message).toContain('not a parameter');
  });
});

describe('deletecollection', () => {
  it('deletes the matching objects of one namespace, marks those finalizers keep, and answers a Success Status', async () => {
    const kept = copy(work); // it carries a finalizer
    kept.metadata.labels = { tier: 'a' };
    const gone = copy(work);
    gone.metadata.name = 'work-a2';
    gone.metadata.labels = { tier: 'a' };
    delete gone.metadata.finalizers;
    const other = copy(work);
    other.metadata.name = 'work-b';
    other.metadata.labels = { tier: 'b' };
    for (const w of [kept, gone, other]) expect((await api.post(WORKS, w)).status).toBe(201);
    const res = await api.delete(`${WORKS}?labelSelector=tier%3Da`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success' });
    const left = await api.get(WORKS);
    expect(left.body.items.map((i: any) => i.metadata.name)).toEqual(['nginx-687f7fb96f', 'work-b']);
    expect(left.body.items[0].metadata.deletionTimestamp).toBeDefined();
    expect(left.body.items[1].metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('list', () => {
  it('lists a collection with the list kind and a resourceVersion; namespaced kinds across namespaces too', async () => {
    await api.post(WORKS, work);
    const other = copy(work);
    other.metadata.namespace = 'karmada-es-member2';
    await api.post('/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member2/works', other);
    const one = await api.get(WORKS);
    expect(one.body).toMatchObject({ kind: 'WorkList', apiVersion: 'work.karmada.io/v1alpha1' });
    expect(one.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(one.body.items).toHaveLength(1);
    const all = await api.get('/apis/work.karmada.io/v1alpha1/works');
    expect(all.body.items.map((i: any) => i.metadata.namespace)).toEqual(['karmada-es-member1', 'karmada-es-member2']);
  });

  it('pages with limit and continue at one revision, whatever is written between pages', async () => {
    for (const n of ['a', 'b', 'c']) await api.post(CLUSTERS, { ...copy(cluster), metadata: { name: n } });
    const first = await api.get(`${CLUSTERS}?limit=2`);
    expect(first.body.items.map((i: any) => i.metadata.name)).toEqual(['a', 'b']);
    expect(first.body.metadata.continue).toBeTruthy();
    await api.post(CLUSTERS, { ...copy(cluster), metadata: { name: 'bb' } });
    await api.delete(`${CLUSTERS}/c`);
    const second = await api.get(`${CLUSTERS}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(second.body.items.map((i: any) => i.metadata.name)).toEqual(['c']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    expect(second.body.metadata.continue).toBeUndefined();
  });

  it('filters by fieldSelector metadata.name and by labelSelector', async () => {
    await api.post(CLUSTERS, cluster);
    await api.post(CLUSTERS, { ...copy(cluster), metadata: { name: 'other' } });
    const byName = await api.get(`${CLUSTERS}?fieldSelector=metadata.name%3Dother`);
    expect(byName.body.items.map((i: any) => i.metadata.name)).toEqual(['other']);
    const byLabel = await api.get(`${CLUSTERS}?labelSelector=topology.example.com%2Fsite%3Dfra-1`);
    expect(byLabel.body.items.map((i: any) => i.metadata.name)).toEqual(['member1']);
  });
});
