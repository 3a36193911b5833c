import { describe, expect, it } from 'vitest';
import { holdsNull } from '../src/util/holds-null.js';

/** `depth` levels of `{ a: … }` around `leaf`. */
const nested = (depth: number, leaf: unknown): unknown => JSON.parse(`${'{"a":'.repeat(depth)}${JSON.stringify(leaf)}${'}'.repeat(depth)}`);

describe('holdsNull', () => {
  it.each([
    ['null itself', null],
    ['a field holding null', { a: 1, b: null }],
    ['an item of a list', { a: [1, 'x', null] }],
    ['a field deep down', { spec: { template: { containers: [{ name: 'x', env: [{ value: null }] }] } } }],
  ])('finds %s', (_name, value) => {
    expect(holdsNull(value)).toBe(true);
  });

  it.each([
    ['a primitive', 'null'],
    ['an object without null', { a: 1, b: [{ c: 'null', d: 0, e: false, f: '' }], g: {} }],
    ['undefined fields and holes', { a: undefined, b: [1, , 3] }],
  ])('finds none in %s', (_name, value) => {
    expect(holdsNull(value)).toBe(false);
  });

  it('looks through values nested deeper than the recursive walk goes', () => {
    expect(holdsNull(nested(100_000, null))).toBe(true);
    expect(holdsNull(nested(100_000, 1))).toBe(false);
    expect(holdsNull(nested(300, null))).toBe(true);
    expect(holdsNull(nested(300, [1]))).toBe(false);
  });

  it('ends on values that refer to themselves', () => {
    const a: Record<string, unknown> = { name: 'a', list: [] };
    a.self = a;
    (a.list as unknown[]).push(a);
    expect(holdsNull(a)).toBe(false);
    a.last = null;
    expect(holdsNull(a)).toBe(true);
  });

  it('ends soon on values that share their parts, which a walk of every path would take exponentially long over', () => {
    let shared: unknown = { leaf: 1 };
    for (let level = 0; level < 64; level++) shared = { left: shared, right: shared };
    expect(holdsNull(shared)).toBe(false);
    let withNull: unknown = { leaf: 1, gone: null };
    for (let level = 0; level < 64; level++) withNull = { left: 1, right: withNull, other: withNull };
    expect(holdsNull(withNull)).toBe(true);
  });
});
