/**
 * Server-side apply through the API server's HTTP layer (PATCH with application/apply-patch+yaml on
 * items and on status), and the managedFields every other write keeps, as kube-apiserver answers
 * them: creation by apply, no-op applies, pruning, conflicts and force, dry run, admission on the
 * merged result, fieldValidation of the apply body, the PatchOptions rules, and the managedFields
 * that create, update, merge and JSON patch and status writes record.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startApi, type Api, type Reply } from './http-helpers.js';
import { createMemoryStorage, type Storage, type WatchEvent } from '../../src/apiserver/storage/index.js';
import { cluster } from '../fixtures/cluster.js';

const API = 'cluster.karmada.io/v1alpha1';
const CLUSTERS = `/apis/${API}/clusters`;
const WORKS = '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works';
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

type Obj = Record<string, any>;

function manifest(spec: Obj = { syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443' }, metadata: Obj = {}): Obj {
  return { apiVersion: API, kind: 'Cluster', metadata: { name: 'm1', ...metadata }, spec };
}

let storage: Storage;
let api: Api;
beforeEach(() => {
  storage = createMemoryStorage();
  api = startApi({ storage });
});
afterEach(() => api.close());

const applyAs = (manager: string | undefined, body: unknown, query = '', path = `${CLUSTERS}/m1`): Promise<Reply> => {
  const params = [...(manager !== undefined ? [`fieldManager=${encodeURIComponent(manager)}`] : []), ...(query ? [query] : [])];
  return api.patch(`${path}${params.length ? `?${params.join('&')}` : ''}`, typeof body === 'string' ? body : JSON.stringify(body), APPLY);
};
const managed = (object: Obj): Obj[] => object.metadata.managedFields ?? [];
const entryOf = (object: Obj, manager: string, operation = 'Apply'): Obj | undefined => managed(object).find((e) => e.manager === manager && e.operation === operation);
const fieldsOf = (object: Obj, manager: string, operation = 'Apply'): Obj | undefined => entryOf(object, manager, operation)?.fieldsV1;

/** The first event the store delivers after revision `from` (or undefined after a short wait). */
async function firstEventAfter(from: string): Promise<WatchEvent | undefined> {
  const watch = storage.watch('/cluster.karmada.io/clusters/', { fromRevision: Number(from) });
  const iterator = watch[Symbol.asyncIterator]();
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300));
  const next = await Promise.race([iterator.next(), timeout]);
  watch.stop();
  return next && !next.done ? next.value : undefined;
}

describe('apply (PATCH application/apply-patch+yaml)', () => {
  it('creates a missing object: 201, owned by the applier as kube records it, defaults not owned', async () => {
    const res = await applyAs('flux', manifest({ syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }));
    expect(res.status, res.text).toBe(201);
    const m = res.body.metadata;
    expect(m.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.generation).toBe(1);
    expect(m.resourceVersion).toMatch(/^\d+$/);
    expect(managed(res.body)).toEqual([
      {
        manager: 'flux',
        operation: 'Apply',
        apiVersion: API,
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': {
            'f:apiEndpoint': {},
            'f:syncMode': {},
            'f:taints': { 'k:{"effect":"NoSchedule","key":"dedicated"}': { '.': {}, 'f:effect': {}, 'f:key': {}, 'f:value': {} } },
          },
        },
      },
    ]);
    // Admission ran on the result: the library's default resource models are there, owned by nobody.
    expect(res.body.spec.resourceModels).toHaveLength(9);
    expect((await api.get(`${CLUSTERS}/m1`)).body).toEqual(res.body);
  });

  it('reads a YAML body as well as JSON', async () => {
    const yaml = ['apiVersion: cluster.karmada.io/v1alpha1', 'kind: Cluster', 'metadata:', '  name: m1', 'spec:', '  syncMode: Pull', '  taints:', '  - {key: a, effect: NoSchedule}', ''].join('\n');
    const res = await applyAs('flux', yaml);
    expect(res.status, res.text).toBe(201);
    expect(res.body.spec.syncMode).toBe('Pull');
    expect(res.body.spec.taints).toEqual([{ key: 'a', effect: 'NoSchedule' }]);
    const broken = await applyAs('flux', 'spec: [1');
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/^error decoding YAML: /);
  });

  it('an apply that changes nothing keeps the resourceVersion and sends no watch event', async () => {
    const created = await applyAs('flux', manifest());
    const rv = created.body.metadata.resourceVersion;
    const again = await applyAs('flux', manifest());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    // The next event after the create is the next real write, not the no-op apply.
    await api.patch(`${CLUSTERS}/m1`, { metadata: { labels: { later: 'yes' } } }, MERGE);
    const event = await firstEventAfter(rv);
    expect(event?.type).toBe('MODIFIED');
    expect(event?.object.metadata).toMatchObject({ labels: { later: 'yes' } });
  });

  it('applies a change: a new resourceVersion, the entry re-stamped, generation moved', async () => {
    const created = await applyAs('flux', manifest());
    const changed = await applyAs('flux', manifest({ syncMode: 'Pull', apiEndpoint: 'https://m1.example.com:6443' }));
    expect(changed.status).toBe(200);
    expect(changed.body.spec.syncMode).toBe('Pull');
    expect(changed.body.metadata.resourceVersion).not.toBe(created.body.metadata.resourceVersion);
    expect(changed.body.metadata.generation).toBe(2);
    expect(changed.body.metadata.uid).toBe(created.body.metadata.uid);
  });

  it('prunes what the applier stopped declaring, and keeps what another manager owns', async () => {
    await applyAs('flux', manifest({ syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443', region: 'eu', taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoSchedule' }] }, { labels: { team: 'x' } }));
    // Another writer sets a zone: it owns it (operation Update).
    const edited = await api.patch(`${CLUSTERS}/m1?fieldManager=kubectl-edit`, { spec: { zone: 'z1' } }, MERGE);
    expect(fieldsOf(edited.body, 'kubectl-edit', 'Update')).toEqual({ 'f:spec': { 'f:zone': {} } });
    const pruned = await applyAs('flux', manifest({ syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443', taints: [{ key: 'b', effect: 'NoSchedule' }] }));
    expect(pruned.status).toBe(200);
    expect(pruned.body.spec.region).toBeUndefined();
    expect(pruned.body.spec.taints).toEqual([{ key: 'b', effect: 'NoSchedule' }]);
    expect(pruned.body.metadata.labels).toBeUndefined();
    expect(pruned.body.spec.zone).toBe('z1');
  });

  it('answers 409 with kube’s message and causes for a field another manager owns, and force takes it over', async () => {
    await applyAs('flux', manifest({ syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }));
    const conflicting = manifest({ taints: [{ key: 'dedicated', value: 'none', effect: 'NoSchedule' }] });
    const refused = await applyAs('operator', conflicting);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "flux": .spec.taints[effect="NoSchedule",key="dedicated"].value',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "flux"', field: '.spec.taints[effect="NoSchedule",key="dedicated"].value' }] },
      code: 409,
    });
    expect((await api.get(`${CLUSTERS}/m1`)).body.spec.taints[0].value).toBe('gpu');
    const forced = await applyAs('operator', conflicting, 'force=true');
    expect(forced.status).toBe(200);
    expect(forced.body.spec.taints[0].value).toBe('none');
    // The value moved to the operator; flux keeps the rest of the taint.
    expect(fieldsOf(forced.body, 'operator')).toEqual({ 'f:spec': { 'f:taints': { 'k:{"effect":"NoSchedule","key":"dedicated"}': { '.': {}, 'f:effect': {}, 'f:key': {}, 'f:value': {} } } } });
    expect(fieldsOf(forced.body, 'flux')!['f:spec']['f:taints']['k:{"effect":"NoSchedule","key":"dedicated"}']).toEqual({ '.': {}, 'f:effect': {}, 'f:key': {} });
  });

  it('lists every conflict by manager; an updater is named with its apiVersion', async () => {
    await applyAs('flux', manifest({ syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443' }));
    await api.patch(`${CLUSTERS}/m1?fieldManager=kubectl-edit`, { spec: { region: 'eu' } }, MERGE);
    const refused = await applyAs('operator', manifest({ syncMode: 'Pull', region: 'us' }));
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('Apply failed with 2 conflicts: conflicts with "flux":\n- .spec.syncMode\nconflicts with "kubectl-edit" using cluster.karmada.io/v1alpha1:\n- .spec.region');
    expect(refused.body.details.causes.map((c: Obj) => c.field)).toEqual(['.spec.syncMode', '.spec.region']);
  });

  it('two managers setting a field to the same value share it, without a conflict', async () => {
    await applyAs('flux', manifest());
    const shared = await applyAs('argo', manifest({ syncMode: 'Push' }));
    expect(shared.status).toBe(200);
    expect(fieldsOf(shared.body, 'argo')).toEqual({ 'f:spec': { 'f:syncMode': {} } });
    expect(fieldsOf(shared.body, 'flux')).toEqual({ 'f:spec': { 'f:apiEndpoint': {}, 'f:syncMode': {} } });
  });

  it('dryRun=All answers the merged object and stores nothing, on an existing object and on a missing one', async () => {
    const created = await applyAs('flux', manifest());
    const dry = await applyAs('flux', manifest({ syncMode: 'Pull', apiEndpoint: 'https://m1.example.com:6443' }), 'dryRun=All');
    expect(dry.status).toBe(200);
    expect(dry.body.spec.syncMode).toBe('Pull');
    expect(dry.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    const stored = (await api.get(`${CLUSTERS}/m1`)).body;
    expect(stored).toEqual(created.body);
    const dryCreate = await applyAs('flux', { ...manifest(), metadata: { name: 'm2' } }, 'dryRun=All', `${CLUSTERS}/m2`);
    expect(dryCreate.status).toBe(201);
    expect(dryCreate.body.metadata.resourceVersion).toBeUndefined();
    expect(dryCreate.body.metadata.managedFields[0].manager).toBe('flux');
    expect((await api.get(`${CLUSTERS}/m2`)).status).toBe(404);
  });

  it('admission judges the merged result: the library’s causes in a 422, nothing stored', async () => {
    await applyAs('flux', manifest());
    // The manifest alone names no syncMode; the merged object keeps flux's, so only the bad endpoint is refused.
    const refused = await applyAs('operator', manifest({ apiEndpoint: 'https://user:secret@10.0.0.9:6443' }), 'force=true');
    expect(refused.status).toBe(422);
    expect(refused.body.details).toMatchObject({ name: 'm1', group: API.split('/')[0], kind: 'Cluster' });
    expect(refused.body.details.causes.map((c: Obj) => c.field)).toEqual(['spec.apiEndpoint']);
    // Created by apply without a syncMode: the library's required field.
    const missing = await applyAs('flux', { ...manifest({ apiEndpoint: 'https://m3.example.com:6443' }), metadata: { name: 'm3' } }, '', `${CLUSTERS}/m3`);
    expect(missing.status).toBe(422);
    expect(missing.body.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.syncMode' }]);
    expect((await api.get(`${CLUSTERS}/m3`)).status).toBe(404);
  });

  it('status apply: 404 for a missing object; on an existing one, only status is written, under a status entry', async () => {
    const status = { apiVersion: API, kind: 'Cluster', metadata: { name: 'm1' }, status: { kubernetesVersion: 'v1.31.2' } };
    const missing = await applyAs('agent', status, '', `${CLUSTERS}/m1/status`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('clusters.cluster.karmada.io "m1" not found');
    await applyAs('flux', manifest());
    const res = await applyAs('agent', { ...status, spec: { syncMode: 'Pull' }, metadata: { name: 'm1', labels: { ignored: 'yes' } } }, '', `${CLUSTERS}/m1/status`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toEqual({ kubernetesVersion: 'v1.31.2' });
    expect(res.body.spec.syncMode).toBe('Push');
    expect(res.body.metadata.labels).toBeUndefined();
    const entry = entryOf(res.body, 'agent')!;
    expect(entry.subresource).toBe('status');
    expect(entry.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:ignored': {} } }, 'f:status': { 'f:kubernetesVersion': {} } });
    // A main-resource apply does not write status.
    const main = await applyAs('flux', { ...manifest(), status: { kubernetesVersion: 'v0' } });
    expect(main.body.status).toEqual({ kubernetesVersion: 'v1.31.2' });
  });

  it('a status apply that leaves no manager stores no managedFields, and prunes what it owned', async () => {
    await applyAs('flux', manifest());
    await api.patch(`${CLUSTERS}/m1`, { metadata: { managedFields: [] } }, MERGE);
    const statusPath = `${CLUSTERS}/m1/status`;
    const reported = await applyAs('agent', { apiVersion: API, kind: 'Cluster', metadata: { name: 'm1' }, status: { kubernetesVersion: 'v1.31.2' } }, '', statusPath);
    expect(managed(reported.body).map((e) => `${e.manager} ${e.subresource}`)).toEqual(['agent status']);
    const withdrawn = await applyAs('agent', { apiVersion: API, kind: 'Cluster', metadata: { name: 'm1' } }, '', statusPath);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.status?.kubernetesVersion).toBeUndefined();
    expect(withdrawn.body.metadata.managedFields).toBeUndefined();
  });

  it('a resourceVersion in the applied configuration is a precondition', async () => {
    const created = await applyAs('flux', manifest());
    await api.patch(`${CLUSTERS}/m1`, { metadata: { labels: { moved: 'yes' } } }, MERGE);
    const stale = await applyAs('flux', manifest(undefined, { resourceVersion: created.body.metadata.resourceVersion }));
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe('Operation cannot be fulfilled on clusters.cluster.karmada.io "m1": the object has been modified; please apply your changes to the latest version and try again');
    const current = (await api.get(`${CLUSTERS}/m1`)).body.metadata.resourceVersion;
    expect((await applyAs('flux', manifest({ syncMode: 'Pull' }, { resourceVersion: current }))).status).toBe(200);
  });

  it('refuses a body that is not this object: kind, name, namespace, managedFields, a uid for a missing object', async () => {
    const wrongKind = await applyAs('flux', { ...manifest(), kind: 'Work' });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toBe('invalid object type: cluster.karmada.io/v1alpha1, Kind=Work');
    const wrongName = await applyAs('flux', manifest(undefined, { name: 'other' }));
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.message).toBe('the name of the object (other) does not match the name on the URL (m1)');
    const withManaged = await applyAs('flux', manifest(undefined, { managedFields: [{ manager: 'x' }] }));
    expect(withManaged.status).toBe(400);
    expect(withManaged.body.message).toBe('metadata.managedFields must be nil');
    const withUid = await applyAs('flux', manifest(undefined, { uid: '5a8f9e4c-0000-4000-8000-000000000001' }));
    expect(withUid.status).toBe(409);
    expect(withUid.body.message).toBe('Operation cannot be fulfilled on clusters.cluster.karmada.io "m1": uid mismatch: the provided object specified uid 5a8f9e4c-0000-4000-8000-000000000001, and no existing object was found');
    const list = await applyAs('flux', '[1, 2]');
    expect(list.status).toBe(400);
    expect((await api.get(`${CLUSTERS}/m1`)).status).toBe(404);
  });

  it('concurrent applies to a missing object: one creates it, the others apply to it, nothing is lost', async () => {
    const managersOf = Array.from({ length: 8 }, (_, i) => `team-${i}`);
    // Every apply reads the object before any creates it: the first eight reads wait for one another.
    const base = createMemoryStorage();
    const held: (() => void)[] = [];
    const racing = new Proxy(base, {
      get(target, prop) {
        if (prop === 'get') {
          return async (key: string) => {
            const found = await target.get(key);
            if (held.length < managersOf.length) {
              await new Promise<void>((release) => {
                held.push(release);
                if (held.length === managersOf.length) held.forEach((r) => r());
              });
            }
            return found;
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const raced = startApi({ storage: racing });
    try {
      const results = await Promise.all(
        managersOf.map((m, i) =>
          raced.patch(`${CLUSTERS}/m1?fieldManager=${m}`, JSON.stringify(manifest({ syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443' }, { labels: { [m]: `${i}` } })), APPLY),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      const stored = (await raced.get(`${CLUSTERS}/m1`)).body;
      expect(Object.keys(stored.metadata.labels).sort()).toEqual(managersOf);
      expect(managed(stored).map((e) => e.manager).sort()).toEqual(managersOf);
    } finally {
      await raced.close();
    }
  });

  it('a body nested absurdly deep is a 400, in JSON and in YAML', async () => {
    const depth = 100_000;
    const json = `{"apiVersion":"${API}","kind":"Cluster","metadata":{"name":"m1"},"spec":{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
    const deepJson = await applyAs('flux', json);
    expect(deepJson.status).toBe(400);
    expect(deepJson.body.message).toBe('error decoding YAML: exceeded max depth of 10000');
    const yaml = `apiVersion: ${API}\nkind: Cluster\nmetadata: {name: m1}\nspec: {x: ${'['.repeat(depth)}${']'.repeat(depth)}}\n`;
    const deepYaml = await applyAs('flux', yaml);
    expect(deepYaml.status).toBe(400);
    expect((await api.get(`${CLUSTERS}/m1`)).status).toBe(404);
  });

  it('applies a namespaced kind in the URL’s namespace, and refuses another', async () => {
    const body = { apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', metadata: { name: 'w1' }, spec: { workload: { manifests: [] } } };
    const created = await applyAs('flux', body, '', `${WORKS}/w1`);
    expect(created.status, created.text).toBe(201);
    expect(created.body.metadata.namespace).toBe('karmada-es-member1');
    const elsewhere = await applyAs('flux', { ...body, metadata: { name: 'w1', namespace: 'other' } }, '', `${WORKS}/w1`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });
});

describe('apply options: fieldManager, force, dryRun, fieldValidation', () => {
  it('requires fieldManager, as ValidatePatchOptions words it (422 on PatchOptions)', async () => {
    const res = await applyAs(undefined, manifest());
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }] },
    });
    expect((await api.get(`${CLUSTERS}/m1`)).status).toBe(404);
  });

  it('checks fieldManager, dryRun and fieldValidation in kube’s order, all causes in one answer', async () => {
    const res = await applyAs('bad\u0007name', manifest(), 'dryRun=Some&fieldValidation=Loud');
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'fieldManager', message: expect.stringMatching(/^Invalid value: ".*": invalid character U\+0007 \(at position 3\)$/) },
      { reason: 'FieldValueNotSupported', field: 'dryRun', message: 'Unsupported value: "Some": supported values: "All"' },
      { reason: 'FieldValueNotSupported', field: 'fieldValidation', message: 'Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"' },
    ]);
    const long = await applyAs('m'.repeat(129), manifest());
    expect(long.status).toBe(422);
    expect(long.body.details.causes[0]).toMatchObject({ reason: 'FieldValueTooLong', field: 'fieldManager' });
  });

  it('Strict refuses an unknown field (422 on the field patch); Warn drops it with a warning; Ignore drops it silently', async () => {
    const withUnknown = manifest({ syncMode: 'Push', apiEndpoint: 'https://m1.example.com:6443', bogus: 1 });
    const strict = await applyAs('flux', withUnknown, 'fieldValidation=Strict');
    expect(strict.status).toBe(422);
    expect(strict.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "the patched object": strict decoding error: unknown field "spec.bogus"' }]);
    expect((await api.get(`${CLUSTERS}/m1`)).status).toBe(404);
    const warn = await applyAs('flux', withUnknown, 'fieldValidation=Warn');
    expect(warn.status).toBe(201);
    expect(warn.warnings).toContain('unknown field "spec.bogus"');
    expect(warn.body.spec.bogus).toBeUndefined();
    const ignore = await applyAs('flux', { ...withUnknown, metadata: { name: 'm2' } }, 'fieldValidation=Ignore', `${CLUSTERS}/m2`);
    expect(ignore.status).toBe(201);
    expect(ignore.warnings).toEqual([]);
    expect(ignore.body.spec.bogus).toBeUndefined();
  });

  it('Strict refuses keys the body repeats (400, go-yaml’s words); Warn warns; Ignore takes the last', async () => {
    const text = '{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"name":"m1"},\n"spec":{"syncMode":"Push","apiEndpoint":"https://m1.example.com:6443",\n"region":"eu","region":"us"}}';
    const strict = await applyAs('flux', text, 'fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.body).toMatchObject({ reason: 'BadRequest', message: 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key "region" already set in map' });
    expect((await api.get(`${CLUSTERS}/m1`)).status).toBe(404);
    const warn = await applyAs('flux', text, 'fieldValidation=Warn');
    expect(warn.status).toBe(201);
    expect(warn.warnings).toEqual(['error converting YAML to JSON: yaml: unmarshal errors:   line 3: key "region" already set in map']);
    const ignore = await applyAs('flux', text.replaceAll('"m1"', '"m2"'), 'fieldValidation=Ignore', `${CLUSTERS}/m2`);
    expect(ignore.status).toBe(201);
    expect(ignore.warnings).toEqual([]);
    expect(ignore.body.spec.region).toBe('us');
    // YAML bodies are checked the same way.
    const yaml = await applyAs('flux', 'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: m1}\nkind: Cluster\n', 'fieldValidation=Strict');
    expect(yaml.status).toBe(400);
    expect(yaml.body.message).toContain('line 4: key "kind" already set in map');
  });

  it('a conflict is answered before the body’s repeated keys, as kube checks them after the apply', async () => {
    await applyAs('flux', manifest());
    const text = '{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"name":"m1"},"spec":{"syncMode":"Pull","syncMode":"Pull"}}';
    expect((await applyAs('operator', text, 'fieldValidation=Strict')).status).toBe(409);
  });
});

describe('managedFields of the other writes (operation Update)', () => {
  const created = async (query = 'fieldManager=tester', headers: Record<string, string> = {}) => api.post(`${CLUSTERS}?${query}`, { ...manifest(), metadata: { name: 'm1' } }, headers);

  it('a create is recorded under fieldManager, or the User-Agent up to its first "/"', async () => {
    const named = await created();
    expect(managed(named.body)).toEqual([
      // The create made spec: the map itself is owned too (".").
      { manager: 'tester', operation: 'Update', apiVersion: API, time: expect.any(String), fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { '.': {}, 'f:apiEndpoint': {}, 'f:syncMode': {} } } },
    ]);
    await api.delete(`${CLUSTERS}/m1`);
    const byAgent = await created('', { 'user-agent': 'kubectl-create/v1.32.4 (linux/amd64) kubernetes/59526cd' });
    expect(managed(byAgent.body).map((e) => `${e.manager} ${e.operation}`)).toEqual(['kubectl-create Update']);
  });

  it('PUT, merge patch, JSON patch and status writes give their writer what they changed', async () => {
    await created();
    const current = (await api.get(`${CLUSTERS}/m1`)).body;
    current.spec.region = 'eu';
    const put = await api.put(`${CLUSTERS}/m1?fieldManager=kubectl-replace`, current);
    expect(fieldsOf(put.body, 'kubectl-replace', 'Update')).toEqual({ 'f:spec': { 'f:region': {} } });
    const merge = await api.patch(`${CLUSTERS}/m1?fieldManager=kubectl-label`, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(fieldsOf(merge.body, 'kubectl-label', 'Update')).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
    const json = await api.patch(`${CLUSTERS}/m1?fieldManager=kubectl-patch`, [{ op: 'replace', path: '/spec/syncMode', value: 'Pull' }], JSON_PATCH);
    expect(fieldsOf(json.body, 'kubectl-patch', 'Update')).toEqual({ 'f:spec': { 'f:syncMode': {} } });
    // The value moved: tester no longer owns syncMode.
    expect(fieldsOf(json.body, 'tester', 'Update')).toEqual({ 'f:spec': { '.': {}, 'f:apiEndpoint': {} } });
    const status = await api.patch(`${CLUSTERS}/m1/status?fieldManager=agent`, { status: { kubernetesVersion: 'v1.31.2' } }, MERGE);
    expect(entryOf(status.body, 'agent', 'Update')).toMatchObject({ subresource: 'status', fieldsV1: { 'f:status': { '.': {}, 'f:kubernetesVersion': {} } } });
  });

  it('a write that changes nothing keeps the entries as they are, and the resourceVersion', async () => {
    const first = (await created()).body;
    const put = await api.put(`${CLUSTERS}/m1?fieldManager=someone-else`, first);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(first);
  });

  it('refuses managedFields of the wrong JSON types as kube’s decoder does: 400 on a create or PUT, 422 on a patch', async () => {
    const bad = [{ manager: 7, operation: 'Update' }];
    const create = await api.post(CLUSTERS, manifest(undefined, { managedFields: bad }));
    expect(create.status).toBe(400);
    expect(create.body.message).toBe('Cluster in version "v1alpha1" cannot be handled as a Cluster: json: cannot unmarshal number into Go struct field ManagedFieldsEntry.managedFields.manager of type string');
    await created();
    const current = (await api.get(`${CLUSTERS}/m1`)).body;
    const put = await api.put(`${CLUSTERS}/m1`, { ...current, metadata: { ...current.metadata, managedFields: [{ time: 'yesterday' }] } });
    expect(put.status).toBe(400);
    expect(put.body.message).toContain('parsing time "yesterday"');
    const patch = await api.patch(`${CLUSTERS}/m1`, { metadata: { managedFields: bad } }, MERGE);
    expect(patch.status).toBe(422);
    expect(patch.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "the patched object": json: cannot unmarshal number into Go struct field ManagedFieldsEntry.managedFields.manager of type string' },
    ]);
    expect(managed((await api.get(`${CLUSTERS}/m1`)).body)).toEqual(managed(current));
  });

  it('takes managedFields a client rewrites, clears them for [], and keeps the stored ones for entries that do not decode', async () => {
    await created();
    const rewritten = [{ manager: 'renamed', operation: 'Apply', apiVersion: API, time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:syncMode': {} } } }];
    const taken = await api.patch(`${CLUSTERS}/m1`, [{ op: 'replace', path: '/metadata/managedFields', value: rewritten }], JSON_PATCH);
    expect(managed(taken.body)).toEqual(rewritten);
    const undecodable = await api.patch(`${CLUSTERS}/m1`, { metadata: { managedFields: [{ manager: 'x', operation: 'Sideways', apiVersion: API, fieldsType: 'FieldsV1' }] } }, MERGE);
    expect(undecodable.status).toBe(200);
    expect(managed(undecodable.body)).toEqual(rewritten);
    const cleared = await api.patch(`${CLUSTERS}/m1`, { metadata: { managedFields: [] } }, MERGE);
    expect(cleared.body.metadata.managedFields).toBeUndefined();
  });

  it('a resourceVersion in a JSON patch is a precondition (kubectl’s migration relies on it): 409 when stale', async () => {
    const first = (await created()).body;
    await api.patch(`${CLUSTERS}/m1`, { metadata: { labels: { moved: 'yes' } } }, MERGE);
    const migration = (rv: string) => [
      { op: 'replace', path: '/metadata/managedFields', value: [{ ...first.metadata.managedFields[0], manager: 'kubectl', operation: 'Apply' }] },
      { op: 'replace', path: '/metadata/resourceVersion', value: rv },
    ];
    const stale = await api.patch(`${CLUSTERS}/m1`, migration(first.metadata.resourceVersion), JSON_PATCH);
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    const current = (await api.get(`${CLUSTERS}/m1`)).body.metadata.resourceVersion;
    const ok = await api.patch(`${CLUSTERS}/m1`, migration(current), JSON_PATCH);
    expect(ok.status).toBe(200);
    expect(entryOf(ok.body, 'kubectl')?.fieldsV1).toEqual({ 'f:spec': { '.': {}, 'f:apiEndpoint': {}, 'f:syncMode': {} } });
  });

  it('an apply after an update conflicts with the updater, named with its apiVersion', async () => {
    await created('fieldManager=kubectl-client-side-apply');
    const res = await applyAs('flux', manifest({ syncMode: 'Pull' }));
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using cluster.karmada.io/v1alpha1: .spec.syncMode');
  });
});

describe('every write of the fixture cluster', () => {
  it('a full Cluster goes through apply, re-apply and a status apply', async () => {
    const body = structuredClone(cluster) as Obj;
    const status = body.status;
    delete body.status;
    const res = await applyAs('gitops', body, 'fieldValidation=Strict', `${CLUSTERS}/member1`);
    expect(res.status, res.text).toBe(201);
    const again = await applyAs('gitops', body, 'fieldValidation=Strict', `${CLUSTERS}/member1`);
    expect(again.body.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);
    const reported = await applyAs('cluster-controller', { apiVersion: API, kind: 'Cluster', metadata: { name: 'member1' }, status }, 'fieldValidation=Strict', `${CLUSTERS}/member1/status`);
    expect(reported.status, reported.text).toBe(200);
    expect(reported.body.status).toEqual(status);
    expect(entryOf(reported.body, 'cluster-controller')?.fieldsV1['f:status']['f:conditions']).toEqual({ 'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } });
  });
});

describe('a write whose change admission undoes (kube’s IgnoreManagedFieldsTimestampsTransformer)', () => {
  // A Work whose manifest lacks what Karmada's mutations give it (the permanent-id label, the managed-keys records).
  const work = {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: { name: 'w1', namespace: 'karmada-es-member1', labels: { 'work.karmada.io/permanent-id': '1f0e7e76-3b6b-4f4c-9d0a-2b4a1f6c8e11' } },
    spec: { workload: { manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'fast' } }] } },
  };
  const path = `${WORKS}/w1`;

  it('stores nothing, though the applier’s entry was re-timed: the stored times, generation and resourceVersion stay', async () => {
    let minute = 1;
    const clock = startApi({ now: () => new Date(Date.UTC(2026, 0, 1, 0, minute)) });
    try {
      // Karmada's mutations label the Work's manifests: the applied list (atomic) differs from the stored one every time.
      const created = await clock.patch(`${path}?fieldManager=gitops`, JSON.stringify(work), APPLY);
      expect(created.status, created.text).toBe(201);
      expect(created.body.spec.workload.manifests[0].metadata.labels['work.karmada.io/permanent-id']).toBeDefined();
      minute = 5;
      const again = await clock.patch(`${path}?fieldManager=gitops`, JSON.stringify(work), APPLY);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(created.body);
      expect(again.body.metadata.managedFields[0].time).toBe('2026-01-01T00:01:00Z');
      // A real change is timed and stored.
      minute = 9;
      const changed = await clock.patch(`${path}?fieldManager=gitops`, JSON.stringify({ ...work, metadata: { ...work.metadata, labels: { ...work.metadata.labels, team: 'a' } } }), APPLY);
      expect(changed.body.metadata.resourceVersion).not.toBe(created.body.metadata.resourceVersion);
      expect(changed.body.metadata.managedFields[0].time).toBe('2026-01-01T00:09:00Z');
      expect(changed.body.metadata.generation).toBe(1);
    } finally {
      await clock.close();
    }
  });
});
