import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyPatch } from 'rfc6902';
import { applyDefaults, defaultsPatch } from '../src/decode/object.js';
import { cluster } from './fixtures/cluster.js';
import { changed } from './helpers.js';
import { rulesFor } from '../rules/index.js';
import { defaultObject, mutationOf } from '../src/engine/defaults.js';
import { invalid } from '../src/engine/field-error.js';
import { MAX_CAUSES, type KindRules } from '../src/engine/rule.js';
import { copyJson } from '../src/util/json-copy.js';

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

describe('applying the defaults to the copy', () => {
  // Segments that reach every branch: fields present and missing, list indexes in and past range,
  // the end of a list, and the names rfc6902 skips while it walks. Not an inherited name such as
  // toString: rfc6902 would walk into Object.prototype's function and write there, so one run
  // would change the next (the rules only name fields the object has).
  const segment = fc.oneof(fc.constantFrom('a', 'b', 'list', 'x', '__proto__', 'constructor', '-', '0', 'a/b', 'a~b'), fc.nat({ max: 3 }));
  const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, 1, 'v', true), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'list', 'x', 'a/b'), tie('value'), { maxKeys: 3, noNullPrototype: true })),
  })).value;
  const change = fc.record({ remove: fc.boolean(), path: fc.array(segment, { minLength: 0, maxLength: 4 }), value: json });
  const root = fc.dictionary(fc.constantFrom('a', 'b', 'list', 'x'), json, { maxKeys: 4, noNullPrototype: true });

  it('gives what rfc6902 applying the same patch gives, object and errors', () => {
    fc.assert(
      fc.property(root, fc.array(change, { maxLength: 6 }), (object, changes) => {
        const rules: KindRules = {
          ...rulesFor('Cluster')!,
          defaults: (_, ctx) => changes.forEach((c) => (c.remove ? ctx.remove(c.path) : ctx.set(c.path, c.value))),
        };
        const patch = mutationOf(rules, object).patch;
        const expected = copyJson(object);
        let expectedError: string | undefined;
        try {
          const failures = applyPatch(expected, patch).filter((failure, i) => failure !== null && !(patch[i]!.op === 'remove' && failure.name === 'MissingError'));
          if (failures.length) expectedError = `defaults did not apply: ${failures.map(String).join('; ')}`;
        } catch (err) {
          expectedError = String((err as Error).message);
        }
        let actual: unknown;
        let actualError: string | undefined;
        try {
          actual = defaultObject(rules, object).object;
        } catch (err) {
          actualError = String((err as Error).message);
        }
        expect(actualError).toBe(expectedError);
        // As JSON, key order included (a key "constructor" would confuse a deep equality's type check).
        if (expectedError === undefined) expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 3000, seed: 20261129 },
    );
  });

  it('never shares a value with the patch: the object can be changed without changing the patch', () => {
    const value = { nested: ['a'] };
    const rules: KindRules = { ...rulesFor('Cluster')!, defaults: (_, ctx) => ctx.set(['spec', 'zone'], value) };
    const { object, patch } = defaultObject(rules, structuredClone(cluster));
    ((object as any).spec.zone.nested as string[]).push('b');
    expect(patch).toEqual([{ op: expect.any(String), path: '/spec/zone', value: { nested: ['a'] } }]);
  });
});
