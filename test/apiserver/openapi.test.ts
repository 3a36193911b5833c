import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { openApiDocuments, openApiResponse, schemaName } from '../../src/apiserver/openapi.js';
import { toOpenApiSchema } from '../../src/apiserver/openapi-schema.js';
import { describedPaths, describeField } from '../../src/apiserver/openapi-descriptions.js';
import { apiResources } from '../../src/apiserver/resources.js';

type Doc = { openapi: string; paths: Record<string, any>; components: { schemas: Record<string, any> } };
const documentOf = (gv: string, groupDomain?: string): Doc => JSON.parse(openApiDocuments(groupDomain).documents.get(`apis/${gv}`)!.json);

/** Every keyword a Schema Object may have in OpenAPI 3.0 (plus the x- extensions). */
const OPENAPI_30_KEYWORDS = new Set([
  'title', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required', 'enum', 'type', 'allOf', 'oneOf',
  'anyOf', 'not', 'items', 'properties', 'additionalProperties', 'description', 'format', 'default', 'nullable',
  'discriminator', 'readOnly', 'writeOnly', 'xml', 'externalDocs', 'example', 'deprecated', '$ref',
]);

function walkSchemas(schema: any, visit: (s: any, path: string) => void, path = ''): void {
  if (!schema || typeof schema !== 'object') return;
  visit(schema, path);
  for (const [name, child] of Object.entries<any>(schema.properties ?? {})) walkSchemas(child, visit, `${path}.${name}`);
  if (schema.items) walkSchemas(schema.items, visit, `${path}[]`);
  if (typeof schema.additionalProperties === 'object') walkSchemas(schema.additionalProperties, visit, `${path}{}`);
  for (const key of ['allOf', 'anyOf', 'oneOf']) for (const branch of schema[key] ?? []) walkSchemas(branch, visit, `${path}|`);
  if (schema.not) walkSchemas(schema.not, visit, `${path}!`);
}

describe('the OpenAPI v3 root', () => {
  it('lists one document per group-version, addressed by the upper-case hex SHA-512 of the document', () => {
    const set = openApiDocuments();
    const root = JSON.parse(set.root.json) as { paths: Record<string, { serverRelativeURL: string }> };
    const gvs = [...new Set(apiResources().map((r) => r.groupVersion))].sort();
    expect(Object.keys(root.paths).sort()).toEqual(gvs.map((gv) => `apis/${gv}`));
    for (const [key, { serverRelativeURL }] of Object.entries(root.paths)) {
      const document = set.documents.get(key)!;
      const hash = createHash('sha512').update(document.json).digest('hex').toUpperCase();
      expect(serverRelativeURL).toBe(`/openapi/v3/${key}?hash=${hash}`);
    }
  });
});

describe('a group-version document', () => {
  it('is OpenAPI 3.0 with the item, collection and status paths of each kind', () => {
    const doc = documentOf('cluster.karmada.io/v1alpha1');
    expect(doc.openapi).toBe('3.0.0');
    expect(Object.keys(doc.paths)).toEqual([
      '/apis/cluster.karmada.io/v1alpha1/clusters',
      '/apis/cluster.karmada.io/v1alpha1/clusters/{name}',
      '/apis/cluster.karmada.io/v1alpha1/clusters/{name}/status',
    ]);
    const [collection, item, status] = Object.values(doc.paths);
    expect(Object.keys(collection).filter((k) => k !== 'parameters')).toEqual(['get', 'post', 'delete']);
    expect(Object.keys(item).filter((k) => k !== 'parameters')).toEqual(['get', 'put', 'patch', 'delete']);
    expect(Object.keys(status).filter((k) => k !== 'parameters')).toEqual(['get', 'put', 'patch']);
    expect(collection.delete['x-kubernetes-action']).toBe('deletecollection');
    expect(collection.delete.operationId).toBe('deleteClusterKarmadaIoV1alpha1CollectionCluster');
    expect(item.patch.operationId).toBe('patchClusterKarmadaIoV1alpha1Cluster');
    expect(status.get.operationId).toBe('readClusterKarmadaIoV1alpha1ClusterStatus');
  });

  it('has the namespaced paths and the all-namespaces list for a namespaced kind', () => {
    const doc = documentOf('work.karmada.io/v1alpha1');
    expect(Object.keys(doc.paths)).toEqual([
      '/apis/work.karmada.io/v1alpha1/works',
      '/apis/work.karmada.io/v1alpha1/namespaces/{namespace}/works',
      '/apis/work.karmada.io/v1alpha1/namespaces/{namespace}/works/{name}',
      '/apis/work.karmada.io/v1alpha1/namespaces/{namespace}/works/{name}/status',
    ]);
    const all = doc.paths['/apis/work.karmada.io/v1alpha1/works'];
    expect(Object.keys(all)).toEqual(['parameters', 'get']);
    expect(all.get.operationId).toBe('listWorkKarmadaIoV1alpha1WorkForAllNamespaces');
    const item = doc.paths['/apis/work.karmada.io/v1alpha1/namespaces/{namespace}/works/{name}'];
    expect(item.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(['path:name', 'path:namespace', 'query:pretty']);
    expect(item.patch.operationId).toBe('patchWorkKarmadaIoV1alpha1NamespacedWork');
  });

  it('declares fieldValidation (with dryRun, fieldManager, force) on every PATCH, tagged with one GVK map', () => {
    for (const [key, { json }] of openApiDocuments().documents) {
      const doc = JSON.parse(json) as Doc;
      const patches = Object.values(doc.paths).flatMap((p: any) => (p.patch ? [p.patch] : []));
      expect(patches.length, key).toBeGreaterThan(0);
      for (const patch of patches) {
        expect(patch.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
        expect(Object.keys(patch['x-kubernetes-group-version-kind']).sort()).toEqual(['group', 'kind', 'version']);
        expect(Object.keys(patch.requestBody.content)).toEqual(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
      }
      expect(json).not.toContain('strategic-merge-patch');
    }
  });

  it('gives every operation the GVK kubectl looks for, and each verb its parameters', () => {
    const doc = documentOf('autoscaling.karmada.io/v1alpha1');
    const gvk = { group: 'autoscaling.karmada.io', version: 'v1alpha1', kind: 'CronFederatedHPA' };
    for (const path of Object.values(doc.paths)) {
      for (const [method, op] of Object.entries<any>(path)) if (method !== 'parameters') expect(op['x-kubernetes-group-version-kind']).toEqual(gvk);
    }
    const collection = doc.paths['/apis/autoscaling.karmada.io/v1alpha1/namespaces/{namespace}/cronfederatedhpas'];
    const names = (op: any) => op.parameters.map((p: any) => p.name);
    expect(names(collection.get)).toEqual([
      'allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch',
    ]);
    expect(names(collection.post)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    expect(names(collection.delete)).toEqual([
      'continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'labelSelector', 'limit', 'propagationPolicy', 'resourceVersion',
      'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential',
    ]);
    const item = doc.paths['/apis/autoscaling.karmada.io/v1alpha1/namespaces/{namespace}/cronfederatedhpas/{name}'];
    expect(names(item.delete)).toEqual(['dryRun', 'gracePeriodSeconds', 'propagationPolicy', 'ignoreStoreReadErrorWithClusterBreakingPotential']);
    expect(item.delete.requestBody.required).toBeUndefined();
    expect(Object.keys(item.delete.responses)).toEqual(['200', '202', '401']);
    expect(Object.keys(collection.post.responses)).toEqual(['200', '201', '202', '401']);
    expect(Object.keys(collection.get.responses['200'].content)).toEqual(['application/json', 'application/json;stream=watch']);
  });

  it('offers the extra delete parameter only on the kinds the spec marks', () => {
    const item = documentOf('remedy.karmada.io/v1alpha1').paths['/apis/remedy.karmada.io/v1alpha1/remedies/{name}'];
    expect(item.delete.parameters.map((p: any) => p.name)).toEqual(['dryRun', 'gracePeriodSeconds', 'propagationPolicy']);
  });

  it('has the kind and list schemas with the GVK as an array, and metadata by $ref', () => {
    const doc = documentOf('cluster.karmada.io/v1alpha1');
    const cluster = doc.components.schemas['io.karmada.cluster.v1alpha1.Cluster'];
    expect(cluster['x-kubernetes-group-version-kind']).toEqual([{ group: 'cluster.karmada.io', version: 'v1alpha1', kind: 'Cluster' }]);
    expect(cluster.description).toMatch(/^A member cluster/);
    expect(cluster.properties.metadata).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      description: "Standard object's metadata.",
    });
    expect(cluster.properties.spec.properties.syncMode).toMatchObject({ type: 'string', enum: ['Push', 'Pull'] });
    expect(cluster.properties.spec.properties.syncMode.description).toBe('How the cluster syncs resources from the control plane.');
    const list = doc.components.schemas['io.karmada.cluster.v1alpha1.ClusterList'];
    expect(list['x-kubernetes-group-version-kind']).toEqual([{ group: 'cluster.karmada.io', version: 'v1alpha1', kind: 'ClusterList' }]);
    expect(list.properties.items.items).toEqual({ $ref: '#/components/schemas/io.karmada.cluster.v1alpha1.Cluster' });
    expect(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.creationTimestamp).toMatchObject({
      type: 'string',
      nullable: true,
      format: 'date-time',
    });
  });

  it('resolves every $ref and uses only OpenAPI 3.0 schema keywords', () => {
    for (const [key, { json }] of openApiDocuments().documents) {
      const doc = JSON.parse(json) as Doc;
      const refs = [...json.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
      for (const name of refs) expect(doc.components.schemas, `${key} ${name}`).toHaveProperty([name]);
      for (const [name, schema] of Object.entries(doc.components.schemas)) {
        walkSchemas(schema, (s, path) => {
          for (const keyword of Object.keys(s)) if (!keyword.startsWith('x-')) expect(OPENAPI_30_KEYWORDS.has(keyword), `${name}${path}: ${keyword}`).toBe(true);
          if ('type' in s) expect(typeof s.type, `${name}${path}`).toBe('string');
          if ('$ref' in s) expect(Object.keys(s), `${name}${path}`).toEqual(['$ref']);
        });
      }
    }
  });

  it('follows the group domain', () => {
    const doc = documentOf('cluster.example.com/v1alpha1', 'example.com');
    expect(Object.keys(doc.paths)[0]).toBe('/apis/cluster.example.com/v1alpha1/clusters');
    expect(doc.components.schemas).toHaveProperty(['com.example.cluster.v1alpha1.Cluster']);
    expect(schemaName('work.karmada.io', 'v1alpha2', 'ClusterResourceBinding')).toBe('io.karmada.work.v1alpha2.ClusterResourceBinding');
  });
});

/** Every merge marker server-side apply reads (topology.ts), by dotted path; `$ref`s resolved, union branches transparent. */
function mergeMarkers(schema: any, schemas: Record<string, any> = {}): string[] {
  const found: string[] = [];
  const walk = (s: any, path: string): void => {
    if (!s || typeof s !== 'object') return;
    if (typeof s.$ref === 'string') return walk(schemas[s.$ref.replace('#/components/schemas/', '')], path);
    const markers = ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'].filter((k) => s[k] !== undefined);
    if (markers.length) found.push(`${path} ${markers.map((k) => `${k}=${JSON.stringify(s[k])}`).join(' ')}`);
    for (const [name, child] of Object.entries<any>(s.properties ?? {})) walk(child, `${path}.${name}`);
    if (s.items) walk(s.items, `${path}[]`);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}{}`);
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const branch of s[key] ?? []) walk(branch, path);
  };
  walk(schema, '');
  return [...new Set(found)].sort();
}

describe('the merge markers server-side apply reads', () => {
  it('are published for every kind exactly as its schema declares them, so clients merge as the server does', () => {
    for (const r of apiResources()) {
      const doc = documentOf(r.groupVersion);
      const served = mergeMarkers(doc.components.schemas[schemaName(r.group, r.version, r.kind)], doc.components.schemas);
      const declared = mergeMarkers(r.schema);
      expect(declared.length, r.kind).toBeGreaterThan(2);
      expect(served, r.kind).toEqual(declared);
    }
  });

  it('name the keyed lists of the docs’ table: taints by key and effect, conditions by type, rules and webhooks by name', () => {
    const markersOf = (gv: string, kind: string) => {
      const doc = documentOf(gv);
      const group = gv.split('/')[0]!;
      return mergeMarkers(doc.components.schemas[schemaName(group, gv.split('/')[1]!, kind)], doc.components.schemas);
    };
    const cluster = markersOf('cluster.karmada.io/v1alpha1', 'Cluster');
    expect(cluster).toContain('.spec.taints x-kubernetes-list-type="map" x-kubernetes-list-map-keys=["key","effect"]');
    expect(cluster).toContain('.status.conditions x-kubernetes-list-type="map" x-kubernetes-list-map-keys=["type"]');
    expect(cluster).toContain('.metadata.finalizers x-kubernetes-list-type="set"');
    expect(cluster).toContain('.metadata.ownerReferences x-kubernetes-list-type="map" x-kubernetes-list-map-keys=["uid"]');
    expect(markersOf('autoscaling.karmada.io/v1alpha1', 'CronFederatedHPA')).toContain('.spec.rules x-kubernetes-list-type="map" x-kubernetes-list-map-keys=["name"]');
    expect(markersOf('config.karmada.io/v1alpha1', 'ResourceInterpreterWebhookConfiguration')).toContain('.webhooks x-kubernetes-list-type="map" x-kubernetes-list-map-keys=["name"]');
    expect(markersOf('policy.karmada.io/v1alpha1', 'ClusterTaintPolicy')).toContain('.spec.targetClusters.labelSelector x-kubernetes-map-type="atomic"');
  });
});

describe('schema conversion to OpenAPI 3.0', () => {
  it('converts every kind with nothing dropped', () => {
    for (const r of apiResources()) expect(toOpenApiSchema(r.schema).dropped, r.kind).toEqual([]);
  });

  it('turns type lists into nullable and anyOf, keeping the type-specific keywords beside them', () => {
    expect(toOpenApiSchema({ type: ['string', 'null'], format: 'date-time' }).schema).toEqual({ type: 'string', nullable: true, format: 'date-time' });
    expect(toOpenApiSchema({ type: ['string', 'number'], format: 'quantity', minLength: 1 }).schema).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }],
      format: 'quantity',
      minLength: 1,
    });
    expect(toOpenApiSchema({ type: ['integer', 'string', 'null'] }).schema).toEqual({ anyOf: [{ type: 'integer' }, { type: 'string' }], nullable: true });
  });

  it('turns const into a one-value enum and a null branch into nullable', () => {
    expect(toOpenApiSchema({ const: 'Push' }).schema).toEqual({ enum: ['Push'] });
    expect(toOpenApiSchema({ anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] }).schema).toEqual({ nullable: true, type: 'string', maxLength: 3 });
    expect(toOpenApiSchema({ anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] }).schema).toEqual({
      nullable: true,
      anyOf: [{ type: 'string' }, { type: 'integer' }],
    });
    expect(toOpenApiSchema({ oneOf: [{ const: 'a' }, { const: 'b' }] }).schema).toEqual({ oneOf: [{ enum: ['a'] }, { enum: ['b'] }] });
  });

  it('turns numeric exclusive bounds into the boolean form', () => {
    expect(toOpenApiSchema({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 }).schema).toEqual({
      type: 'integer',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 10,
      exclusiveMaximum: true,
    });
  });

  it('turns patternProperties into additionalProperties and says what was lost', () => {
    const { schema, dropped } = toOpenApiSchema({ type: 'object', patternProperties: { '^[a-z]+$': { type: 'string' } } });
    expect(schema).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(dropped).toEqual(['<root>: patternProperties (key patterns)']);
    expect(toOpenApiSchema({ type: 'object', if: { type: 'object' }, then: {} }).dropped).toEqual(['<root>: if', '<root>: then']);
  });

  it('carries every x-kubernetes-* keyword (the server-side apply markers among them)', () => {
    const source = {
      type: 'object',
      properties: {
        taints: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key', 'effect'], items: { type: 'object', 'x-kubernetes-map-type': 'atomic' } },
        raw: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(toOpenApiSchema(source).schema).toEqual(source);
  });

  it('drops what only documents a JSON Schema, and leaves the source as it was', () => {
    const source = { $id: 'x', $schema: 'http://json-schema.org/draft-07/schema#', type: 'string', examples: ['a'] };
    const copy = structuredClone(source);
    expect(toOpenApiSchema(source)).toEqual({ schema: { type: 'string' }, dropped: [] });
    expect(source).toEqual(copy);
  });

  it('fills descriptions by path where the schema has none', () => {
    const { schema } = toOpenApiSchema(
      { type: 'object', description: 'own', properties: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } } } },
      (path) => `described ${path}`,
    );
    expect(schema.description).toBe('own');
    expect((schema.properties as any).a.description).toBe('described a');
    expect((schema.properties as any).a.items.properties.b.description).toBe('described a.b');
  });
});

describe('descriptions', () => {
  const pathsOf = (schema: any): Set<string> => {
    const paths = new Set<string>();
    const walk = (s: any, path: string) => {
      for (const [name, child] of Object.entries<any>(s?.properties ?? {})) {
        const p = path ? `${path}.${name}` : name;
        paths.add(p);
        walk(child, p);
      }
      if (s?.items) walk(s.items, path);
      if (typeof s?.additionalProperties === 'object') walk(s.additionalProperties, path);
    };
    walk(schema, '');
    return paths;
  };

  it('name only fields the schemas have', () => {
    for (const r of apiResources()) {
      const paths = pathsOf(r.schema);
      for (const described of describedPaths(r.kind)) expect(paths.has(described), `${r.kind} ${described}`).toBe(true);
    }
  });

  it('describe every kind, its spec and the shared structures', () => {
    for (const r of apiResources()) {
      expect(describeField(r.kind, ''), r.kind).toBeTruthy();
      const top = r.kind === 'ResourceInterpreterWebhookConfiguration' ? 'webhooks' : 'spec';
      expect(describeField(r.kind, top), r.kind).toBeTruthy();
    }
    expect(describeField('Work', 'status.conditions.status')).toBe('Status of the condition: True, False or Unknown.');
    expect(describeField('Cluster', 'spec.taints.effect')).toMatch(/^NoSchedule/);
    expect(describeField('ResourceInterpreterCustomization', 'spec.target.kind')).toBe('Kind of the target resource type.');
    expect(describeField('Work', 'spec.nothing')).toBeUndefined();
    expect(describeField('Work', 'spec.constructor')).toBeUndefined();
    expect(describeField('toString', '')).toBeUndefined();
  });
});

describe('openApiResponse', () => {
  const set = openApiDocuments();
  const cluster = set.documents.get('apis/cluster.karmada.io/v1alpha1')!;

  it('serves the root with an ETag and 304 on a match', () => {
    const root = openApiResponse({ path: '/openapi/v3' })!;
    expect(root.status).toBe(200);
    expect(root.headers).toMatchObject({ 'Content-Type': 'application/json', ETag: `"${set.root.hash}"` });
    expect(root.body).toBe(set.root.json);
    expect(openApiResponse({ path: '/openapi/v3/', ifNoneMatch: `"${set.root.hash}"` })!.status).toBe(304);
  });

  it('marks a document asked for by its current hash immutable for a year', () => {
    const now = new Date('2025-03-01T10:00:00Z');
    const answer = openApiResponse({ path: '/openapi/v3/apis/cluster.karmada.io/v1alpha1', hash: cluster.hash, accept: 'application/json', now })!;
    expect(answer.status).toBe(200);
    expect(answer.headers).toEqual({
      Vary: 'Accept',
      'Cache-Control': 'public, immutable',
      Expires: 'Sun, 01 Mar 2026 10:00:00 GMT',
      ETag: `"${cluster.hash}"`,
      'Content-Type': 'application/json',
    });
    expect(answer.body).toBe(cluster.json);
  });

  it('redirects a stale hash to the current one, and serves a document without a hash uncached', () => {
    const stale = openApiResponse({ path: '/openapi/v3/apis/cluster.karmada.io/v1alpha1', hash: 'ABC' })!;
    expect(stale.status).toBe(301);
    expect(stale.headers.Location).toBe(cluster.serverRelativeURL);
    const plain = openApiResponse({ path: '/openapi/v3/apis/cluster.karmada.io/v1alpha1' })!;
    expect(plain.status).toBe(200);
    expect(plain.headers['Cache-Control']).toBeUndefined();
    expect(openApiResponse({ path: '/openapi/v3/apis/cluster.karmada.io/v1alpha1', ifNoneMatch: `W/"${cluster.hash}"` })!.status).toBe(304);
  });

  it('answers 406 to a client that takes no JSON, and nothing for unknown paths', () => {
    expect(openApiResponse({ path: '/openapi/v3/apis/cluster.karmada.io/v1alpha1', accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' })!.status).toBe(406);
    expect(openApiResponse({ path: '/openapi/v3/apis/cluster.karmada.io/v1', accept: '*/*' })).toBeUndefined();
    expect(openApiResponse({ path: '/openapi/v2' })).toBeUndefined();
    expect(openApiResponse({ path: '/openapi/v3/apis/cluster.karmada.io/v1alpha1', accept: 'application/*' })!.status).toBe(200);
  });
});
