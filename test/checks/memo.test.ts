import { describe, expect, it } from 'vitest';
import { MAX_KEY_LENGTH, memoizeVerdict, ownCopy } from '../../src/checks/memo.js';
import { camelCaseWithDomain } from '../../src/checks/names.js';
import { heapAfterGcMiB as heapMiB } from '../heap.js';

/** A short string cut from a 1 MiB one (the domain of a huge key): V8 lets such a slice share the long string's memory. */
const sliceOfMiB = (i: number) => {
  const long = `p${i}.example.com/${'X'.repeat(1024 * 1024)}`;
  return long.slice(0, long.indexOf('/'));
};

describe('memoizeVerdict', () => {
  it('asks the check once per value, undefined verdicts included, and stays within its limit', () => {
    const asked: string[] = [];
    const check = memoizeVerdict((v: string) => (asked.push(v), v === 'bad' ? 'is bad' : undefined), { entries: 2 });
    expect([check('ok'), check('bad'), check('ok'), check('bad')]).toEqual([undefined, 'is bad', undefined, 'is bad']);
    expect(asked).toEqual(['ok', 'bad']);
    check('third'); // full: starts over
    check('ok');
    expect(asked).toEqual(['ok', 'bad', 'third', 'ok']);
  });

  it('does not keep values longer than any real name', () => {
    let calls = 0;
    const check = memoizeVerdict(() => ++calls);
    const long = 'x'.repeat(MAX_KEY_LENGTH + 1);
    check(long);
    check(long);
    expect(calls).toBe(2);
  });

  it('does not keep a message far longer than any value it keeps', () => {
    let calls = 0;
    const check = memoizeVerdict((v: string) => (++calls, v.startsWith('long') ? 'x'.repeat(4 * MAX_KEY_LENGTH) : 'short message'));
    check('long one');
    check('long one');
    check('other');
    check('other');
    expect(calls).toBe(3);
  });

  it('does not keep values longer than the longest valid one, when the check names it', () => {
    let calls = 0;
    const check = memoizeVerdict(() => ++calls, { longestKey: 4 });
    check('abcd');
    check('abcd');
    check('abcde');
    check('abcde');
    expect(calls).toBe(3);
  });

  it('keeps a short value cut from a long string without keeping the long string', () => {
    const check = memoizeVerdict((v: string) => v.length);
    const before = heapMiB();
    for (let i = 0; i < 64; i++) check(sliceOfMiB(i));
    expect(heapMiB() - before).toBeLessThan(16);
  });

  it('keeps a message that quotes such a value without keeping the long string', () => {
    const check = memoizeVerdict((v: string) => `"${v}" is not allowed here`);
    const before = heapMiB();
    for (let i = 0; i < 64; i++) check(sliceOfMiB(i));
    expect(heapMiB() - before).toBeLessThan(16);
  });

  it('keeps no request-sized value alive through the name checks it remembers', () => {
    const before = heapMiB();
    // The domain prefix of such a condition type is checked, and remembered, on its own.
    for (let i = 0; i < 64; i++) camelCaseWithDomain(`p${i}.example.com/${'X'.repeat(1024 * 1024)}`);
    expect(heapMiB() - before).toBeLessThan(16);
  });
});

describe('ownCopy', () => {
  it('keeps every code unit, lone surrogates and escapes included', () => {
    for (const value of ['short', 'node.kubernetes.io/unreachable', `lone ${'\ud800'} surrogate ${'\udfff'} here`, 'quote " backslash \\ tab \t 😀 end', 'x'.repeat(600)]) {
      expect(ownCopy(value)).toBe(value);
      expect(ownCopy(value.slice(1))).toBe(value.slice(1));
    }
  });
});
