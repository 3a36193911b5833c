/**
 * Every operation of the spec's Endpoints table on every kind (its example from examples/), at the
 * paths of its scope: cluster-scoped collections and items, or namespaced ones plus the
 * all-namespaces list; with the query parameters of the spec's parameter table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startApi, type Api } from './http-helpers.js';
import { apiResources } from '../../src/apiserver/resources.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');
const resources = apiResources();
// One example per kind.
const examples = [...new Map(readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).map((file) => {
  const object = parse(readFileSync(join(EXAMPLES, file), 'utf8'));
  return [object.kind as string, object] as const;
})).values()];

describe.each(examples.map((object) => ({ kind: object.kind as string, object })))('$kind', ({ object }) => {
  const resource = resources.find((r) => r.kind === object.kind)!;
  const ns = object.metadata.namespace as string | undefined;
  const base = `/apis/${resource.group}/${resource.version}`;
  const collection = resource.namespaced ? `${base}/namespaces/${ns}/${resource.plural}` : `${base}/${resource.plural}`;
  const item = `${collection}/${object.metadata.name}`;
  let api: Api;
  beforeAll(() => {
    api = startApi();
  });
  afterAll(() => api.close());

  it(`create (POST ${resource.namespaced ? 'namespaced' : 'cluster-scoped'} collection): dryRun stores nothing, then 201; fieldManager and pretty taken`, async () => {
    const dry = await api.post(`${collection}?dryRun=All&fieldManager=tester&fieldValidation=Strict&pretty=true`, object);
    expect(dry.status, dry.text).toBe(201);
    expect(dry.text).toContain('\n  ');
    expect((await api.get(item)).status).toBe(404);
    const created = await api.post(`${collection}?fieldManager=tester&fieldValidation=Strict`, object);
    expect(created.status, created.text).toBe(201);
    expect(created.body.metadata.generation).toBe(1);
  });

  it('get and get status: 200 with the object', async () => {
    for (const path of [item, `${item}/status`, `${item}?pretty=true`]) {
      const res = await api.get(path);
      expect(res.status).toBe(200);
      expect(res.body.metadata.name).toBe(object.metadata.name);
    }
  });

  it(`list${resource.namespaced ? ', and list across all namespaces' : ''}, with selectors, limit and resourceVersion`, async () => {
    const lists = [collection, ...(resource.namespaced ? [`${base}/${resource.plural}`] : [])];
    for (const path of lists) {
      const res = await api.get(path);
      expect(res.body).toMatchObject({ kind: resource.listKind, apiVersion: resource.groupVersion });
      expect(res.body.items).toHaveLength(1);
      const named = await api.get(`${path}?fieldSelector=metadata.name%3D${object.metadata.name}&labelSelector=&limit=1&resourceVersion=${res.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
      expect(named.body.items).toHaveLength(1);
      const none = await api.get(`${path}?labelSelector=no-such-label`);
      expect(none.body.items).toHaveLength(0);
    }
  });

  it('update (PUT): 200, dryRun changes nothing', async () => {
    const current = (await api.get(item)).body;
    current.metadata.annotations = { ...(current.metadata.annotations ?? {}), 'example.com/put': '1' };
    const dry = await api.put(`${item}?dryRun=All&fieldValidation=Strict`, current);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
    const res = await api.put(`${item}?fieldManager=tester`, current);
    expect(res.status, res.text).toBe(200);
    expect(res.body.metadata.annotations['example.com/put']).toBe('1');
  });

  it('update status (PUT status): 200, only status changes', async () => {
    const current = (await api.get(item)).body;
    current.status = {};
    current.metadata.labels = { ignored: 'yes' };
    const res = await api.put(`${item}/status?fieldManager=tester`, current);
    expect(res.status, res.text).toBe(200);
    expect(res.body.metadata.labels?.ignored).toBeUndefined();
  });

  it('patch and patch status: merge and JSON patch, 200', async () => {
    const merge = await api.patch(`${item}?fieldManager=tester`, { metadata: { labels: { patched: 'merge' } } }, 'application/merge-patch+json');
    expect(merge.status, merge.text).toBe(200);
    expect(merge.body.metadata.labels.patched).toBe('merge');
    const json = await api.patch(`${item}?dryRun=All`, [{ op: 'replace', path: '/metadata/labels/patched', value: 'json' }], 'application/json-patch+json');
    expect(json.status, json.text).toBe(200);
    expect(json.body.metadata.labels.patched).toBe('json');
    expect((await api.get(item)).body.metadata.labels.patched).toBe('merge');
    const status = await api.patch(`${item}/status`, { status: {} }, 'application/merge-patch+json');
    expect(status.status, status.text).toBe(200);
  });

  it(`delete: 200 Status; gracePeriodSeconds and propagationPolicy taken; the extra parameter ${resource.ignoreStoreReadErrorParameter ? 'taken' : 'refused'}`, async () => {
    const extra = await api.delete(`${item}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(extra.status).toBe(422);
    expect(extra.body.details.causes[0].message).toContain(resource.ignoreStoreReadErrorParameter ? 'exclusively used to delete corrupt object(s)' : 'not a parameter');
    const dry = await api.delete(`${item}?dryRun=All&gracePeriodSeconds=0&propagationPolicy=Foreground`);
    expect(dry.status).toBe(200);
    expect((await api.get(item)).status).toBe(200);
    const res = await api.delete(`${item}?gracePeriodSeconds=0&propagationPolicy=Background`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: object.metadata.name, group: resource.group, kind: resource.plural } });
  });

  it('deletecollection: 200 Status; the selected objects go', async () => {
    await api.post(collection, object);
    const other = structuredClone(object);
    other.metadata.name = `${object.metadata.name}-2`;
    other.metadata.labels = { keep: 'yes' };
    // Two customizations of one target conflict (a context rule): the second customizes another.
    if (object.kind === 'ResourceInterpreterCustomization') other.spec.target.kind = 'StatefulSet';
    expect((await api.post(collection, other)).status).toBe(201);
    const res = await api.delete(`${collection}?labelSelector=keep!%3Dyes&propagationPolicy=Background&gracePeriodSeconds=0`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await api.get(collection)).body.items.map((i: any) => i.metadata.name)).toEqual([other.metadata.name]);
    const extra = await api.delete(`${collection}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(extra.status).toBe(422);
  });

  it('apply (PATCH apply-patch+yaml): creates (201), re-applies unchanged, dry-runs a change, applies status', async () => {
    const name = `${object.metadata.name}-applied`;
    const path = `${collection}/${name}`;
    const body = structuredClone(object);
    body.metadata.name = name;
    const status = body.status;
    delete body.status;
    const apply = (p: string, b: unknown, query = '') => api.patch(`${p}?fieldManager=gitops&fieldValidation=Strict${query}`, JSON.stringify(b), 'application/apply-patch+yaml');
    const created = await apply(path, body);
    expect(created.status, created.text).toBe(201);
    expect(created.body.metadata.managedFields.map((e: any) => `${e.manager} ${e.operation}`)).toEqual(['gitops Apply']);
    const again = await apply(path, body);
    expect(again.status, again.text).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    const labelled = { ...body, metadata: { ...body.metadata, labels: { ...(body.metadata.labels ?? {}), applied: 'dry' } } };
    const dry = await apply(path, labelled, '&dryRun=All');
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.metadata.labels.applied).toBe('dry');
    expect((await api.get(path)).body).toEqual(created.body);
    const reported = await apply(`${path}/status`, { apiVersion: object.apiVersion, kind: object.kind, metadata: { name }, status: status ?? {} });
    expect(reported.status, reported.text).toBe(200);
    expect(reported.body.metadata.managedFields.filter((e: any) => e.subresource === 'status').map((e: any) => `${e.manager} ${e.operation}`)).toEqual(['gitops Apply']);
    if (status !== undefined) expect(reported.body.status).toEqual(status);
  });
});
