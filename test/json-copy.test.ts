import { describe, expect, it } from 'vitest';
import { copyJson } from '../src/util/json-copy.js';
import { applyDefaults } from '../src/decode/object.js';
import { cluster } from './fixtures/cluster.js';
import { changed } from './helpers.js';

const nested = (depth: number): unknown => JSON.parse(`${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`);

describe('copyJson', () => {
  it('copies every level, sharing nothing with the original', () => {
    const original = { a: [1, { b: 'x', c: null }], d: { e: true } };
    const copy = copyJson(original);
    expect(copy).toStrictEqual(original);
    expect(copy).not.toBe(original);
    expect(copy.a).not.toBe(original.a);
    expect(copy.a[1]).not.toBe(original.a[1]);
    expect(copy.d).not.toBe(original.d);
  });

  it('copies values nested far deeper than the call stack allows', () => {
    // structuredClone overflowed at about 2,000 levels.
    const deep = nested(100_000);
    expect(() => structuredClone(deep)).toThrow(RangeError);
    let node = copyJson(deep) as { a: unknown[] };
    let depth = 0;
    while (typeof node === 'object') {
      node = node.a[0] as { a: unknown[] };
      depth++;
    }
    expect([depth, node]).toEqual([100_000, 1]);
  });

  it('copies a value met twice once, and one that holds itself, as structuredClone does', () => {
    const shared = { x: 1 };
    const looped: Record<string, unknown> = { shared, again: shared };
    looped.self = looped;
    const copy = copyJson(looped);
    expect(copy.shared).toBe(copy.again);
    expect(copy.shared).not.toBe(shared);
    expect(copy.self).toBe(copy);
  });

  it('keeps a "__proto__" key as a key', () => {
    const original = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const copy = copyJson(original);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(copy).toStrictEqual(original);
  });

  it('leaves other objects to structuredClone', () => {
    const when = new Date('2026-11-23T00:00:00Z');
    const copy = copyJson({ when });
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect(copy.when.getTime()).toBe(when.getTime());
    expect(() => copyJson({ f: () => 1 })).toThrow();
  });
});

describe('applyDefaults on deeply nested objects', () => {
  it('defaults an object holding a value nested 100,000 levels deep, and leaves the input as it was', () => {
    const object = changed(cluster, (o) => {
      delete o.spec.resourceModels;
      o.metadata.managedFields = [{ fieldsV1: nested(100_000) }];
    });
    const { object: defaulted, patch } = applyDefaults(object);
    expect(patch.map((p) => p.path)).toEqual(['/spec/resourceModels']);
    expect((defaulted as typeof object).spec).toHaveProperty('resourceModels');
    expect(object.spec).not.toHaveProperty('resourceModels');
  });
});
