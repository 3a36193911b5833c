import { describe, expect, it } from 'vitest';
import { memoizeVerdict } from '../../src/checks/memo.js';

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
});
