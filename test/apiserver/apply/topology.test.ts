import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { DEDUCED, SCALAR, resolve, topologyOf, type Topology } from '../../../src/apiserver/apply/topology.js';
import { AJV_OPTIONS, KUBERNETES_KEYWORDS } from '../../../src/schema/compiler.js';
import { ruleModules, rulesFor } from '../../../rules/index.js';
import { isRecord } from '../../../src/util/is.js';

/** The topology at a dotted path (`[]` steps into a list's items). */
function at(t: Topology, path: string): Topology {
  let node = t;
  for (const step of path.split('.')) {
    for (const part of step.split(/(?=\[\])/)) {
      if (part === '[]') {
        if (node.kind !== 'list') throw new Error(`${path}: ${part} is not a list`);
        node = node.elements;
      } else {
        if (node.kind !== 'map') throw new Error(`${path}: ${part} is not in a map`);
        node = node.fields.get(part) ?? node.elements;
      }
    }
  }
  return node;
}
const kindTopology = (kind: string) => topologyOf(rulesFor(kind)!.schema);
const listShape = (t: Topology) => (t.kind === 'list' ? (t.associative ? (t.keys.length ? `map ${t.keys.join('+')}` : 'set') : 'atomic') : t.kind);

describe('merge topology from the schemas', () => {
  it.each([
    ['Cluster', 'spec.taints', 'map key+effect'],
    ['Cluster', 'status.conditions', 'map type'],
    ['Cluster', 'spec.zones', 'atomic'],
    ['Cluster', 'spec.resourceModels', 'atomic'],
    ['CronFederatedHPA', 'spec.rules', 'map name'],
    ['ResourceInterpreterWebhookConfiguration', 'webhooks', 'map name'],
    ['ResourceInterpreterWebhookConfiguration', 'webhooks[].rules', 'atomic'],
    ['MultiClusterService', 'status.conditions', 'map type'],
    ['ClusterResourceBinding', 'status.conditions', 'map type'],
    ['ClusterResourceBinding', 'spec.clusters', 'atomic'],
    ['ResourceRegistry', 'status.conditions', 'map type'],
    ['Work', 'status.conditions', 'map type'],
    ['Work', 'spec.workload.manifests', 'atomic'],
    ['MultiClusterIngress', 'spec.rules', 'atomic'],
    ['Remedy', 'metadata.finalizers', 'set'],
    ['Remedy', 'metadata.ownerReferences', 'map uid'],
  ])('%s %s is %s', (kind, path, shape) => {
    expect(listShape(at(kindTopology(kind), path))).toBe(shape);
  });

  it.each([
    ['ClusterTaintPolicy', 'spec.targetClusters.labelSelector', true],
    ['ClusterResourceBinding', 'spec.placement.clusterAffinity.labelSelector', true],
    ['ClusterResourceBinding', 'spec.replicaRequirements.nodeClaim.hardNodeAffinity', true],
    ['MultiClusterIngress', 'spec.defaultBackend.service.port', true],
    ['MultiClusterIngress', 'spec.defaultBackend.resource', true],
    ['Cluster', 'spec', false],
    ['Cluster', 'metadata.labels', false],
    ['Cluster', 'status.resourceSummary.allocatable', false],
  ])('%s %s atomic map: %s', (kind, path, atomic) => {
    const t = at(kindTopology(kind), path);
    expect(t.kind).toBe('map');
    expect(t.kind === 'map' && t.atomic).toBe(atomic);
  });

  it('deduces what the schema leaves open: maps granular, lists atomic, scalars as they are', () => {
    const raw = at(kindTopology('ClusterResourceBinding'), 'status.aggregatedStatus[].status');
    expect(raw).toBe(DEDUCED);
    const asMap = resolve(raw, { a: [1] });
    expect(asMap.kind === 'map' && !asMap.atomic).toBe(true);
    expect(listShape(resolve(raw, [1]))).toBe('atomic');
    expect(resolve(raw, 'x')).toBe(SCALAR);
    // A field the schema does not declare is deduced too (the server's field validation judges it).
    expect(at(kindTopology('Cluster'), 'spec.bogus')).toBe(DEDUCED);
  });

  it('reads set and keyed lists, key defaults and atomic maps from any schema', () => {
    const t = topologyOf({
      type: 'object',
      properties: {
        s: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        m: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
        },
        keyless: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' },
        a: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      },
    });
    expect(listShape(at(t, 's'))).toBe('set');
    const m = at(t, 'm');
    expect(listShape(m)).toBe('map port+protocol');
    expect(m.kind === 'list' && m.keyDefaults.get('protocol')).toBe('TCP');
    expect(listShape(at(t, 'keyless'))).toBe('atomic');
    const a = at(t, 'a');
    expect(a.kind === 'map' && a.atomic).toBe(true);
  });

  it('keys every keyed list by fields its items must have, so every item can be named', () => {
    const problems: string[] = [];
    const walk = (schema: unknown, path: string): void => {
      if (!isRecord(schema)) return;
      if (schema['x-kubernetes-list-type'] === 'map') {
        const items = schema.items as { required?: string[] };
        for (const key of schema['x-kubernetes-list-map-keys'] as string[]) if (!items.required?.includes(key)) problems.push(`${path}: ${key}`);
      }
      if (isRecord(schema.properties)) for (const [k, v] of Object.entries(schema.properties)) walk(v, `${path}.${k}`);
      walk(schema.items, `${path}[]`);
      walk(schema.additionalProperties, `${path}{}`);
    };
    for (const r of ruleModules) walk(r.schema, r.kind);
    expect(problems).toEqual([]);
  });

  it('declares its markers to a strict ajv, which validates exactly as without them', () => {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    const strict = new Ajv({ ...AJV_OPTIONS, validateFormats: false });
    const schema = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
    expect(() => strict.compile(schema)).toThrow(/unknown keyword: "x-kubernetes-list-type"/);
    for (const keyword of KUBERNETES_KEYWORDS) strict.addKeyword({ keyword });
    const validate = strict.compile(schema);
    expect(validate(['a', 'a'])).toBe(true); // a marker is no uniqueness check
    expect(validate([1])).toBe(false);
  });
});
