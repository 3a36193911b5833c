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

  it('starts over when the characters it holds, keys and messages, pass its budget', () => {
    const asked: string[] = [];
    const check = memoizeVerdict((v: string) => (asked.push(v), v.startsWith('bad') ? 'no!' : undefined), { entries: 100, chars: 10 });
    check('aaaa');
    check('bbbb');
    check('aaaa'); // kept: 8 characters held
    check('cc'); // 10: still within
    check('aaaa');
    expect(asked).toEqual(['aaaa', 'bbbb', 'cc']);
    check('dd'); // 12: starts over with it
    check('aaaa');
    expect(asked).toEqual(['aaaa', 'bbbb', 'cc', 'dd', 'aaaa']);
    // A message counts as well: 'bad1' and its 3-character message are 7 of the 10.
    asked.length = 0;
    const messages = memoizeVerdict((v: string) => (asked.push(v), v.startsWith('bad') ? 'no!' : undefined), { entries: 100, chars: 10 });
    messages('bad1');
    messages('bad1');
    messages('ok'); // 9
    messages('x!'); // 11: starts over
    messages('bad1');
    expect(asked).toEqual(['bad1', 'ok', 'x!', 'bad1']);
  });

  it('holds about a MiB however long the values and messages it is fed', () => {
    const check = memoizeVerdict((v: string) => `${v} is wrong`);
    const before = heapMiB();
    // Two bytes a character, near the longest key kept, each with a message as long.
    for (let i = 0; i < 4096; i++) check(`${i}${'ж'.repeat(500)}`);
    expect(heapMiB() - before).toBeLessThan(3);
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
