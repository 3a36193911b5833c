import { describe, expect, it } from 'vitest';
import { applyDefaults, defaultsPatch } from '../src/decode/object.js';
import { cluster } from './fixtures/cluster.js';
import { changed } from './helpers.js';
import { rulesFor } from '../rules/index.js';
import { defaultObject, mutationOf } from '../src/engine/defaults.js';
import { invalid } from '../src/engine/field-error.js';
import { MAX_CAUSES, type KindRules } from '../src/engine/rule.js';

const now = new Date('2026-11-22T12:00:00Z');

describe('applyDefaults', () => {
  it('returns the input itself when nothing is defaulted', () => {
    const result = applyDefaults(cluster, { now });
    expect(result.patch).toEqual([]);
    expect(result.object).toBe(cluster);
  });

  it('returns values that are no object, and kinds it does not serve, unchanged', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [] } };
    for (const value of [null, undefined, 'Cluster', 5, [], {}, pod]) {
      expect(applyDefaults(value, { now })).toEqual({ object: value, patch: [] });
      expect(defaultsPatch(value, { now })).toEqual([]);
    }
  });

  it('adds a missing field and replaces a present one, at RFC 6901 pointers', () => {
    const object = changed(cluster, (o) => {
      o.spec.resourceModels = [];
      delete o.spec.taints[1].timeAdded;
    });
    const patch = defaultsPatch(object, { now });
    expect(patch.map((op) => [op.op, op.path])).toEqual([
      ['replace', '/spec/resourceModels'],
      ['add', '/spec/taints/1/timeAdded'],
    ]);
    expect(applyDefaults(object, { now }).patch).toEqual(patch);
  });

  it('escapes ~ and / in a pointer, and only those', () => {
    const rules: KindRules = {
      ...rulesFor('Cluster')!,
      defaults: (_, ctx) => {
        ctx.set(['metadata', 'labels', 'a~b'], 'tilde');
        ctx.set(['metadata', 'labels', 'c/d'], 'slash');
        ctx.set(['metadata', 'labels', '~/~', 'x.y-z_0'], 'both');
      },
    };
    expect(mutationOf(rules, cluster).patch.map((op) => op.path)).toEqual(['/metadata/labels/a~0b', '/metadata/labels/c~1d', '/metadata/labels/~0~1~0/x.y-z_0']);
  });

  it('leaves resource models of the wrong type for validation to refuse, rather than replacing them', () => {
    for (const models of ['bogus', 42, { grade: 0 }]) {
      const object = changed(cluster, (o) => (o.spec.resourceModels = models));
      expect(defaultsPatch(object, { now })).toEqual([]);
    }
    // null is how JSON leaves a field out: defaulted like a missing one.
    expect(defaultsPatch(changed(cluster, (o) => (o.spec.resourceModels = null)), { now }).map((op) => [op.op, op.path])).toEqual([['replace', '/spec/resourceModels']]);
  });

  it('defaults a field that holds undefined, as an object built in code may', () => {
    const object = changed(cluster, (o) => {
      o.spec.resourceModels = undefined;
      o.spec.taints[1].timeAdded = undefined;
    });
    const { object: defaulted, patch } = applyDefaults(object, { now });
    expect(patch.map((op) => [op.op, op.path])).toEqual([
      ['add', '/spec/resourceModels'],
      ['add', '/spec/taints/1/timeAdded'],
    ]);
    expect((defaulted as any).spec.resourceModels).toHaveLength(9);
    expect((defaulted as any).spec.taints[1].timeAdded).toBe('2026-11-22T12:00:00Z');
  });

  it('removes a field from a value an object built in code holds at two places, as from the JSON it stands for', () => {
    const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', uid: 'u' } };
    const work = { apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work', metadata: { name: 'w', namespace: 'n', labels: { 'work.karmada.io/permanent-id': 'id' } }, spec: { workload: { manifests: [manifest, manifest] } } };
    const { object, patch } = applyDefaults(work);
    expect(patch.filter((op) => op.op === 'remove').map((op) => op.path)).toEqual(['/spec/workload/manifests/0/metadata/uid', '/spec/workload/manifests/1/metadata/uid']);
    const fromJson = applyDefaults(JSON.parse(JSON.stringify(work))).object;
    expect(JSON.parse(JSON.stringify(object))).toEqual(fromJson);
    expect(manifest.metadata.uid).toBe('u');
  });

  it('calls the UUID source only for a label it writes, and not at all for other kinds', () => {
    let calls = 0;
    const uuid = () => `id-${++calls}`;
    applyDefaults(cluster, { now, uuid });
    applyDefaults(changed(cluster, (o) => delete o.spec.resourceModels), { now, uuid });
    expect(calls).toBe(0);
  });
});

describe('a kind whose defaults do not apply', () => {
  const base = rulesFor('Cluster')!;
  const withDefaults = (defaults: KindRules['defaults']): KindRules => ({ ...base, defaults });

  it('is an error naming each operation that failed, not a half-defaulted object', () => {
    // A field under one that is absent, or null: nothing to add it to.
    const object = changed(cluster, (o) => (o.spec.zone = null));
    const rules = withDefaults((_, ctx) => {
      ctx.set(['spec', 'absent', 'x'], 1);
      ctx.set(['spec', 'zone', 'x'], 2);
    });
    expect(() => defaultObject(rules, object)).toThrow(
      new Error('defaults did not apply: MissingError: Value required at path: /spec/absent/x; MissingError: Value required at path: /spec/zone/x'),
    );
    expect(mutationOf(rules, object).patch).toEqual([
      { op: 'add', path: '/spec/absent/x', value: 1 },
      { op: 'add', path: '/spec/zone/x', value: 2 },
    ]);
  });

  it('is refused with the causes it gives, bounded, and nothing patched', () => {
    const rules = withDefaults((_, ctx) => {
      ctx.set(['spec', 'region'], 'somewhere');
      for (let i = 0; i <= MAX_CAUSES; i++) ctx.refuse(invalid(`spec.items[${i}]`, i, 'cannot be defaulted'));
    });
    const result = defaultObject(rules, cluster);
    expect(result.patch).toEqual([]);
    expect(result.truncated).toBe(true);
    expect(result.causes).toHaveLength(MAX_CAUSES);
    expect(result.causes![0]).toStrictEqual({ type: 'FieldValueInvalid', field: 'spec.items[0]', badValue: 0, message: 'Invalid value: 0: cannot be defaulted' });
  });
});
