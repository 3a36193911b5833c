/**
 * The apply module against structured-merge-diff itself (Debian's
 * golang-k8s-sigs-structured-merge-diff-dev, built from test/apiserver/apply/smd/main.go): the
 * same random sequences of applies and updates by several managers over a schema with every kind
 * of map and list must give the same conflicts, the same objects, and byte for byte the same
 * FieldsV1 for every manager. Without Go the comparison is skipped with the reason in its title
 * (CI sets FLEETGATE_GO_TESTS_REQUIRED=1 so it fails instead).
 *
 * Debian ships structured-merge-diff 4.1.2, older than the 4.4 Kubernetes 1.32 runs: it puts the
 * items an apply adds to a set or keyed list after the live ones, where 4.2 on (and this module)
 * put them in the applied order among the live ones (updater.test.ts pins that order). So the
 * items of those lists are compared in key order; everything else is compared as it is.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { askGoProgram, buildGoProgram, goUnavailable } from '../../../scripts/go-lib.mjs';
import { goReference } from '../../go-reference.js';
import { fieldsV1Text, fromFieldsV1Text } from '../../../src/apiserver/apply/fields-v1.js';
import { pathText, serializeElement } from '../../../src/apiserver/apply/path-element.js';
import { listItemElement } from '../../../src/apiserver/apply/list-items.js';
import { fieldTopology, resolve, topologyOf, type Topology } from '../../../src/apiserver/apply/topology.js';
import { isRecord } from '../../../src/util/is.js';
import { ApplyConflicts, applyConfiguration, recordUpdate, type ManagerSets, type Schema } from '../../../src/apiserver/apply/updater.js';
import { sameJson } from '../../../src/util/json-equal.js';
import { seeded } from '../../seeded.js';

const SOURCE = fileURLToPath(new URL('./smd/main.go', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const reference = goReference(
  'test/apiserver/apply/smd-reference',
  'apply agrees with structured-merge-diff',
  goUnavailable(['sigs.k8s.io/structured-merge-diff', 'github.com/json-iterator/go', 'gopkg.in/yaml.v2'], ['golang-go', 'golang-k8s-sigs-structured-merge-diff-dev']),
);

const str = { type: 'string' };
const JSON_SCHEMA = {
  type: 'object',
  properties: {
    a: str,
    b: str,
    s: { type: 'object', properties: { x: str, y: str, inner: { type: 'object', properties: { z: str } } } },
    m: { type: 'object', additionalProperties: str },
    deep: { type: 'object', additionalProperties: { type: 'object', properties: { p: str, q: str } } },
    atomicMap: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
    set: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
    list: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: str, value: str, tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' }, sub: { type: 'object', properties: { u: str, w: str } } } },
    },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: str } },
    },
    atomicList: { type: 'array', items: str },
    open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};
const schema: Schema = { topology: topologyOf(JSON_SCHEMA), apiVersion: 'v1' };

/** The topology as a structured-merge-diff schema (JSON, which its YAML parser reads). */
function smdSchema(t: Topology): string {
  const ref = (node: Topology, keyDefaults?: ReadonlyMap<string, unknown>): object => {
    switch (node.kind) {
      case 'scalar':
        return { scalar: 'untyped' };
      case 'deduced':
        return { namedType: '__untyped_deduced_' };
      case 'list':
        return {
          list: {
            elementType: ref(node.elements, node.keyDefaults),
            elementRelationship: node.associative ? 'associative' : 'atomic',
            ...(node.keys.length ? { keys: node.keys } : {}),
          },
        };
      case 'map':
        return {
          map: {
            fields: [...node.fields].map(([name, child]) => ({ name, type: ref(child), ...(keyDefaults?.has(name) ? { default: keyDefaults.get(name) } : {}) })),
            elementType: ref(node.elements),
            ...(node.atomic ? { elementRelationship: 'atomic' } : {}),
          },
        };
    }
  };
  const untyped = (element: string, mapRelationship: string) => ({
    scalar: 'untyped',
    list: { elementType: { namedType: '__untyped_atomic_' }, elementRelationship: 'atomic' },
    map: { elementType: { namedType: element }, elementRelationship: mapRelationship },
  });
  return JSON.stringify({
    types: [
      { name: 'root', ...ref(t) },
      { name: '__untyped_atomic_', ...untyped('__untyped_atomic_', 'atomic') },
      { name: '__untyped_deduced_', ...untyped('__untyped_deduced_', 'separable') },
    ],
  });
}

/** Picks from a small deterministic generator. */
function random(seed: number) {
  const next = seeded(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const maybe = (p = 0.5): boolean => next() < p;
  const some = <T>(xs: readonly T[]): T[] => xs.filter(() => maybe());
  return { next, pick, maybe, some };
}

type Rand = ReturnType<typeof random>;
const V = ['1', '2'];

function object(r: Rand): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (r.maybe()) o.a = r.pick(V);
  if (r.maybe()) o.b = r.pick(V);
  if (r.maybe()) {
    const s: Record<string, unknown> = {};
    if (r.maybe()) s.x = r.pick(V);
    if (r.maybe()) s.y = r.pick(V);
    if (r.maybe(0.3)) s.inner = r.maybe() ? { z: r.pick(V) } : {};
    o.s = s;
  }
  if (r.maybe()) o.m = Object.fromEntries(r.some(['k1', 'k2', 'k3']).map((k) => [k, r.pick(V)]));
  if (r.maybe(0.3)) o.deep = Object.fromEntries(r.some(['e', 'f']).map((k) => [k, Object.fromEntries(r.some(['p', 'q']).map((f) => [f, r.pick(V)]))]));
  if (r.maybe(0.3)) o.atomicMap = Object.fromEntries(r.some(['k1', 'k2']).map((k) => [k, r.pick(V)]));
  if (r.maybe()) o.set = shuffle(r, r.some(['a', 'b', 'c', 'd']));
  if (r.maybe()) {
    o.list = shuffle(r, r.some(['a', 'b', 'c'])).map((name) => {
      const item: Record<string, unknown> = { name };
      if (r.maybe()) item.value = r.pick(V);
      if (r.maybe(0.3)) item.tags = r.some(['x', 'y']);
      if (r.maybe(0.3)) item.sub = Object.fromEntries(r.some(['u', 'w']).map((f) => [f, r.pick(V)]));
      return item;
    });
  }
  if (r.maybe(0.4)) {
    o.ports = shuffle(r, r.some([80, 443])).flatMap((port): Record<string, unknown>[] =>
      r.maybe() ? [{ port, name: r.pick(V) }] : r.some(['TCP', 'UDP']).map((protocol) => ({ port, protocol, ...(r.maybe() ? { name: r.pick(V) } : {}) })),
    );
  }
  if (r.maybe(0.4)) o.atomicList = r.some(['a', 'b']);
  if (r.maybe(0.3)) o.open = { k: r.maybe() ? { n: r.pick(V) } : [r.pick(V)], ...(r.maybe() ? { j: r.pick(V) } : {}) };
  return o;
}

function shuffle<T>(r: Rand, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r.next() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/** Drops ports the defaulted key makes equal to another (an update may not repeat a key either). */
function uniquePorts(o: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(o.ports)) return o;
  const seen = new Set<string>();
  o.ports = (o.ports as { port: number; protocol?: string }[]).filter((p) => {
    const id = `${p.port}/${p.protocol ?? 'TCP'}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return o;
}

interface Step {
  op: 'apply' | 'update';
  manager: string;
  object: Record<string, unknown>;
  force: boolean;
}

function scenario(seed: number): Step[] {
  const r = random(seed);
  return Array.from({ length: 6 }, () => ({
    op: r.maybe(0.7) ? 'apply' : 'update',
    manager: r.pick(['alice', 'bob', 'ctl']),
    object: uniquePorts(object(r)),
    force: r.maybe(0.2),
  }));
}

interface Outcome {
  steps: { conflicts?: string[]; changed: boolean }[];
  object?: unknown;
  managers?: Record<string, string>;
  error?: string;
}

function ours(steps: readonly Step[]): Outcome {
  let object: unknown = {};
  let managers: ManagerSets = new Map();
  const out: Outcome['steps'] = [];
  for (const s of steps) {
    if (s.op === 'update') {
      managers = recordUpdate(object, s.object, managers, s.manager, schema);
      object = s.object;
      out.push({ changed: true });
      continue;
    }
    const r = applyConfiguration(object, s.object, managers, s.manager, s.force, schema);
    if (r instanceof ApplyConflicts) {
      out.push({ conflicts: [...r.byManager].flatMap(([m, set]) => set.paths().map((p) => `${m}: ${pathText(p)}`)).sort(), changed: false });
      continue;
    }
    managers = r.managers;
    out.push({ changed: r.object !== undefined });
    if (r.object !== undefined) object = r.object;
  }
  return { steps: out, object, managers: Object.fromEntries([...managers].map(([m, vs]) => [m, fieldsV1Text(vs.set)])) };
}

/** The object with the items of every set and keyed list in key order (see the header). */
function keyOrder(value: unknown, topology: Topology): unknown {
  const t = resolve(topology, value);
  if (t.kind === 'list' && Array.isArray(value)) {
    const items = value.map((item) => keyOrder(item, t.elements));
    if (!t.associative) return items;
    const id = (item: unknown) => serializeElement(listItemElement(t, item));
    return items.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  }
  if (t.kind === 'map' && isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keyOrder(v, fieldTopology(t, k))]));
  return value;
}

const askReference = (inputs: object[]): Outcome[] =>
  askGoProgram(buildGoProgram(SOURCE, 'smd-reference', ROOT), inputs.map((i) => JSON.stringify(i))).map((line) => JSON.parse(line) as Outcome);

describe.skipIf(reference.skip)(reference.title, () => {
  it('writes every managed set as structured-merge-diff writes it', () => {
    reference.assertAvailable();
    const texts = [
      '{"f:b":{},"f:a":{".":{},"f:c":{}},"v:\\"x<y\\"":{},"v:2":{},"v:1.5":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{},"i:3":{},"i:+1":{}}',
      '{"f:spec":{"f:apps":{"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:name":{}},"k:{\\"name\\":\\"\\uff5e\\"}":{}, "k:{\\"name\\":\\"\\ud83d\\ude00\\"}":{}}}}',
      '{"v:{\\"b\\":[1,true,null],\\"a\\":\\"\\\\u0008&\\"}":{},"v:null":{},"v:false":{},"f:x\\ny":{}, "f:<&>":{}}',
      '{"f:a":{"x:unknown":{}},"f:b":null,"f:c":{"f:d":{"z:q":{"f:e":{}}}}}',
    ];
    const theirs = askReference(texts.map((fieldsV1) => ({ fieldsV1 })));
    texts.forEach((text, i) => expect(fieldsV1Text(fromFieldsV1Text(text)), text).toBe((theirs[i] as { fieldsV1?: string }).fieldsV1));
  });

  it('merges, owns, prunes and conflicts as structured-merge-diff does, over 400 random sequences', () => {
    reference.assertAvailable();
    const scenarios = Array.from({ length: 400 }, (_, i) => scenario(i + 1));
    const schemaText = smdSchema(schema.topology);
    const theirs = askReference(scenarios.map((steps) => ({ schema: schemaText, steps })));
    const disagreements: string[] = [];
    scenarios.forEach((steps, i) => {
      const t = theirs[i]!;
      const o = ours(steps);
      if (t.error) {
        disagreements.push(`#${i + 1}: reference failed: ${t.error}`);
        return;
      }
      const same =
        JSON.stringify(o.steps) === JSON.stringify(t.steps) &&
        sameJson(keyOrder(o.object, schema.topology), keyOrder(t.object, schema.topology)) &&
        sameJson(o.managers, t.managers ?? {});
      if (!same) disagreements.push(`#${i + 1} ${JSON.stringify(steps)}\n ours: ${JSON.stringify(o)}\n smd:  ${JSON.stringify(t)}`);
    });
    expect(disagreements.slice(0, 3)).toEqual([]);
    // The sequences do reach every outcome.
    const all = scenarios.map(ours);
    expect(all.filter((o) => o.steps.some((s) => s.conflicts)).length).toBeGreaterThan(40);
    expect(all.filter((o) => o.steps.some((s) => !s.conflicts && !s.changed)).length).toBeGreaterThan(10);
  });
});
