import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderValue, shortText } from '../src/engine/render-value.js';

/** What renderValue wrote for an object before it stopped early: all of JSON.stringify, then cut. */
function stringifiedWhole(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch {
    return '<unrenderable>';
  }
  return shortText(text);
}

const longText = fc.string({ unit: 'binary', minLength: 200, maxLength: 400 });

describe('renderValue of objects and arrays', () => {
  it('writes what JSON.stringify writes, cut at 256 characters, for any value it can write', () => {
    const values = fc.oneof(
      fc.anything({ withBoxedValues: true, withMap: true, withSet: true, withNullPrototype: true, withTypedArray: true, withSparseArray: true, withDate: true, withObjectString: true, maxDepth: 4 }),
      fc.array(fc.oneof(longText, fc.integer(), fc.constant(undefined)), { minLength: 1, maxLength: 40 }),
      fc.dictionary(longText, fc.oneof(longText, fc.constant(undefined), fc.func(fc.integer())), { maxKeys: 5 }),
      fc.array(fc.jsonValue({ maxDepth: 6 }), { minLength: 1, maxLength: 30 }),
    );
    fc.assert(
      fc.property(values, (value) => {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return;
        expect(renderValue(value)).toBe(stringifiedWhole(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes a long string inside a value from its start, with surrogate pairs and escapes around the cut', () => {
    for (let at = 240; at < 262; at++) {
      const value = { text: `${'a'.repeat(at)}😀${'b'.repeat(300)}`, lone: '\ud800x' };
      expect(renderValue(value)).toBe(stringifiedWhole(value));
      expect(renderValue([`${'\u2028'.repeat(at / 6)}😀`])).toBe(stringifiedWhole([`${'\u2028'.repeat(at / 6)}😀`]));
    }
  });

  it('calls toJSON and leaves out what JSON.stringify leaves out', () => {
    const value = { when: new Date(0), gone: undefined, fn: () => 1, sym: Symbol('s'), list: [undefined, () => 1], own: { toJSON: (key: string) => `key ${key}` } };
    expect(renderValue(value)).toBe('{"when":"1970-01-01T00:00:00.000Z","list":[null,null],"own":"key own"}');
    expect(renderValue(() => 1)).toBe('null');
  });

  it('renders a value that refers to itself, or holds a BigInt, as unrenderable', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(renderValue(cycle)).toBe('<unrenderable>');
    expect(renderValue({ n: 1n })).toBe('<unrenderable>');
  });

  it('renders an array nested 100,000 deep by its start, where JSON.stringify runs out of stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(renderValue(deep)).toBe(`${'['.repeat(256)}...`);
  });

  it('reads no more of a large value than the message shows', () => {
    let reads = 0;
    const items = new Proxy(
      Array.from({ length: 100_000 }, (_, i) => ({ name: `item-${i}` })),
      { get: (target, key, receiver) => (typeof key === 'string' && /^\d+$/.test(key) && reads++, Reflect.get(target, key, receiver)) },
    );
    // The first 30 items are more than 256 characters: the message is theirs.
    expect(renderValue(items)).toBe(stringifiedWhole(Array.from({ length: 30 }, (_, i) => ({ name: `item-${i}` }))));
    expect(reads).toBeLessThan(30);
  });
});
