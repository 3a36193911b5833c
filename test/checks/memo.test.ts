import { describe, expect, it } from 'vitest';
import { MAX_KEY_LENGTH, memoizeVerdict } from '../../src/checks/memo.js';

describe('memoizeVerdict', () => {
  it('asks the check once per value, undefined verdicts included, and stays within its limit', () => {
    const asked: string[] = [];
    const check = memoizeVerdict((v: string) => (asked.push(v), v === 'bad' ? 'is bad' : undefined), 2);
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
});
