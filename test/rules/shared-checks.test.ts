import { describe, expect, it } from 'vitest';
import { checkUnique } from '../../rules/_shared/checks.js';
import { duplicate } from '../../src/field.js';
import type { RuleContext } from '../../src/rule.js';

const duplicatesIn = (keys: unknown[]) => {
  const ctx = { causes: [] } as unknown as RuleContext;
  checkUnique(ctx, keys, (k) => k, (k, i) => duplicate(`list[${i}]`, k));
  return ctx.causes.map((c) => c.field);
};

describe('checkUnique', () => {
  it('reports each repeated key at the later item, in short and in long lists alike', () => {
    expect(duplicatesIn(['a', 'b', 'a', 'a'])).toEqual(['list[2]', 'list[3]']);
    const long = Array.from({ length: 40 }, (_, i) => `k${i % 30}`);
    expect(duplicatesIn(long)).toEqual(Array.from({ length: 10 }, (_, i) => `list[${30 + i}]`));
  });

  it('compares compound keys element by element, in short and in long lists alike', () => {
    expect(duplicatesIn([['a', 'b'], ['ab'], ['a', 'b', ''], ['a', 'b'], ['a', 'c'], ['a', 'b']])).toEqual(['list[3]', 'list[5]']);
    expect(duplicatesIn([['a', 'b'], 'a,b', ['a', 'b']])).toEqual(['list[2]']);
    const long = Array.from({ length: 20 }, (_, i) => ['v1', `k${i % 18}`]);
    expect(duplicatesIn(long)).toEqual(['list[18]', 'list[19]']);
  });

  it('tells a string from a number with the same text, and ignores absent keys', () => {
    expect(duplicatesIn(['1', 1, '', '', null, null, undefined, undefined])).toEqual([]);
    expect(duplicatesIn([{ a: 1 }, { a: 1 }])).toEqual(['list[1]']);
    expect(duplicatesIn([true, 'true', true])).toEqual(['list[2]']);
    const objects = Array.from({ length: 20 }, (_, i) => ({ n: i % 18 }));
    expect(duplicatesIn(objects)).toEqual(['list[18]', 'list[19]']);
    expect(duplicatesIn(Array.from({ length: 20 }, (_, i) => (i < 10 ? String(i) : i - 10)))).toEqual([]);
  });
});
