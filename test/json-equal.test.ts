import { describe, expect, it } from 'vitest';
import { sameJson } from '../src/util/json-equal.js';

describe('sameJson', () => {
  it.each([
    ['the same primitive', 'a', 'a'],
    ['numbers by value', 0, -0],
    ['objects whatever their key order', { a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }],
    ['empty containers of one kind', [], []],
  ])('finds equal %s', (_name, a, b) => {
    expect(sameJson(a, b)).toBe(true);
    expect(sameJson(b, a)).toBe(true);
  });

  it.each([
    ['different primitives', 'a', 'b'],
    ['a string and the number it spells', '1', 1],
    ['null and an empty object', null, {}],
    ['an array and an object with its indices', ['x'], { 0: 'x' }],
    ['arrays in another order', [1, 2], [2, 1]],
    ['an array with one more item', [1], [1, 1]],
    ['a missing key and one holding null', { a: 1 }, { a: 1, b: null }],
    ['the same keys with a different value deep down', { a: { b: [{ c: 1 }] } }, { a: { b: [{ c: 2 }] } }],
    ['different keys, as many', { a: 1 }, { b: 1 }],
  ])('tells apart %s', (_name, a, b) => {
    expect(sameJson(a, b)).toBe(false);
    expect(sameJson(b, a)).toBe(false);
  });

  it('compares values nested deeper than the call stack reaches', () => {
    const nested = (depth: number, leaf: unknown) => JSON.parse(`${'['.repeat(depth)}${JSON.stringify(leaf)}${']'.repeat(depth)}`);
    expect(sameJson(nested(100_000, 1), nested(100_000, 1))).toBe(true);
    expect(sameJson(nested(100_000, 1), nested(100_000, 2))).toBe(false);
  });

  it('gives the same answers on either side of the depth the recursive walk goes to', () => {
    const nested = (depth: number, leaf: unknown) => JSON.parse(`${'{"a":'.repeat(depth)}${JSON.stringify(leaf)}${'}'.repeat(depth)}`);
    for (const depth of [200, 255, 256, 257, 300]) {
      expect(sameJson(nested(depth, [1, { b: null }]), nested(depth, [1, { b: null }]))).toBe(true);
      expect(sameJson(nested(depth, [1, { b: null }]), nested(depth, [1, { b: 0 }]))).toBe(false);
      expect(sameJson(nested(depth, { b: null }), nested(depth, {}), true)).toBe(true);
    }
  });

  it('ends soon on values that share their parts, which a walk of every path would take exponentially long over', () => {
    const shared = (leaf: unknown) => {
      let value: unknown = { leaf };
      for (let level = 0; level < 64; level++) value = { left: value, right: value };
      return value;
    };
    expect(sameJson(shared(1), shared(1))).toBe(true);
    expect(sameJson(shared(1), shared(2))).toBe(false);
  });

  it('ends on values that refer to themselves', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const b: Record<string, unknown> = { name: 'a' };
    b.self = { name: 'a', self: b };
    expect(sameJson(a, b)).toBe(true);
    const c: Record<string, unknown> = { name: 'c' };
    c.self = c;
    expect(sameJson(a, c)).toBe(false);
  });
});

describe('sameJson, reading a field holding null as absent', () => {
  it('counts a null field as absent on either side, and only with the switch', () => {
    expect(sameJson({ a: 1, b: null }, { a: 1 }, true)).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null }, true)).toBe(true);
    expect(sameJson({ a: [{ tz: null, n: 1 }] }, { a: [{ n: 1 }] }, true)).toBe(true);
    expect(sameJson({ a: 1, b: null }, { a: 1 })).toBe(false);
  });

  it('still tells a null item of a list, or a present value, from none', () => {
    expect(sameJson([null], [], true)).toBe(false);
    expect(sameJson({ a: null }, { a: 0 }, true)).toBe(false);
    expect(sameJson({ a: 1, b: null }, { a: 2 }, true)).toBe(false);
  });
});
