import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdaptivePriority, BACKGROUND_NICENESS, controlBackgroundThreads, mayRaiseThreads, setBackgroundThreads } from '../../src/server/thread-priority.js';

/** A fake /proc/self/task holding these entries. */
function taskDir(entries: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-task-'));
  for (const entry of entries) mkdirSync(join(dir, entry));
  return dir;
}

describe('setBackgroundThreads', () => {
  it('sets every thread but the main one relative to the main thread, at most to nice 19', () => {
    const set: [number, number][] = [];
    const changed = setBackgroundThreads(BACKGROUND_NICENESS, { platform: 'linux', taskDir: taskDir(['100', '101', '102', 'x']), mainThread: 100, getPriority: () => 0, setPriority: (id, p) => void set.push([id, p]) });
    expect(changed.sort()).toEqual([101, 102]);
    expect(set.sort()).toEqual([[101, 19], [102, 19]]);

    const fromNice5: number[] = [];
    setBackgroundThreads(BACKGROUND_NICENESS, { platform: 'linux', taskDir: taskDir(['7', '8']), mainThread: 7, getPriority: () => 5, setPriority: (_id, p) => void fromNice5.push(p) });
    expect(fromNice5).toEqual([19]);
    const back: number[] = [];
    setBackgroundThreads(0, { platform: 'linux', taskDir: taskDir(['7', '8']), mainThread: 7, getPriority: () => 5, setPriority: (_id, p) => void back.push(p) });
    expect(back).toEqual([5]);
  });

  it('keeps going past a thread it cannot change, and does nothing off Linux or without /proc', () => {
    const changed = setBackgroundThreads(BACKGROUND_NICENESS, {
      platform: 'linux',
      taskDir: taskDir(['1', '2', '3']),
      mainThread: 1,
      getPriority: () => 0,
      setPriority: (id) => {
        if (id === 2) throw new Error('ESRCH');
      },
    });
    expect(changed).toEqual([3]);
    let called = false;
    expect(setBackgroundThreads(BACKGROUND_NICENESS, { platform: 'darwin', setPriority: () => void (called = true) })).toEqual([]);
    expect(setBackgroundThreads(BACKGROUND_NICENESS, { platform: 'linux', taskDir: join(tmpdir(), 'no-such-dir-fleetgate'), setPriority: () => void (called = true) })).toEqual([]);
    expect(called).toBe(false);
  });
});

describe('mayRaiseThreads', () => {
  const status = (capEff: string) => () => `Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t${capEff}\nCapBnd:\t000001ffffffffff\n`;
  const limits = (soft: string) => () => `Limit                     Soft Limit           Hard Limit           Units\nMax nice priority         ${soft}                    ${soft}\nMax realtime priority     0                    0\n`;

  it('says yes with CAP_SYS_NICE in the effective set, whatever the limit', () => {
    expect(mayRaiseThreads({ platform: 'linux', status: status('0000000000800000'), limits: limits('0'), mainNice: () => 0 })).toBe(true);
    expect(mayRaiseThreads({ platform: 'linux', status: status('000001fffeffffff'), limits: limits('0'), mainNice: () => 0 })).toBe(true);
  });

  it("without it, says yes only when RLIMIT_NICE reaches the main thread's nice value", () => {
    // A container's usual set: no CAP_SYS_NICE (bit 23), the limit 0.
    const noNice = status('00000000a80425fb');
    expect(mayRaiseThreads({ platform: 'linux', status: noNice, limits: limits('0'), mainNice: () => 0 })).toBe(false);
    expect(mayRaiseThreads({ platform: 'linux', status: noNice, limits: limits('20'), mainNice: () => 0 })).toBe(true);
    expect(mayRaiseThreads({ platform: 'linux', status: noNice, limits: limits('15'), mainNice: () => 0 })).toBe(false);
    expect(mayRaiseThreads({ platform: 'linux', status: noNice, limits: limits('15'), mainNice: () => 5 })).toBe(true);
    expect(mayRaiseThreads({ platform: 'linux', status: noNice, limits: limits('unlimited'), mainNice: () => 0 })).toBe(true);
  });

  it('says no off Linux, and when /proc cannot be read or says nothing', () => {
    expect(mayRaiseThreads({ platform: 'darwin', status: status('0000000000800000') })).toBe(false);
    expect(mayRaiseThreads({ platform: 'linux', status: () => { throw new Error('ENOENT'); } })).toBe(false);
    expect(mayRaiseThreads({ platform: 'linux', status: () => 'Name:\tnode\n', limits: () => '' })).toBe(false);
  });
});

describe('AdaptivePriority', () => {
  it('starts lowered and goes back to normal on the first saturated interval', () => {
    const machine = new AdaptivePriority();
    expect(machine.state).toBe('lowered');
    expect(machine.observe(0.5)).toBeUndefined();
    expect(machine.observe(0.89)).toBeUndefined();
    expect(machine.observe(0.9)).toBe('normal');
    expect(machine.observe(1)).toBeUndefined();
  });

  it('lowers again only after enough calm intervals in a row', () => {
    const machine = new AdaptivePriority({ calmIntervals: 3 });
    machine.observe(0.95);
    expect([0.7, 0.75].map((u) => machine.observe(u))).toEqual([undefined, undefined]);
    // Busier than calm: the count starts over.
    expect(machine.observe(0.8)).toBeUndefined();
    expect([0.2, 0.3].map((u) => machine.observe(u))).toEqual([undefined, undefined]);
    expect(machine.observe(0.1)).toBe('lowered');
    expect(machine.state).toBe('lowered');
  });

  it('takes its thresholds from the settings', () => {
    const machine = new AdaptivePriority({ saturated: 0.6, idleEnough: 0.1, calmIntervals: 1 });
    expect(machine.observe(0.6)).toBe('normal');
    expect(machine.observe(0.2)).toBeUndefined();
    expect(machine.observe(0.1)).toBe('lowered');
  });
});

describe('controlBackgroundThreads', () => {
  afterEach(() => void vi.useRealTimers());
  const threads = (set: number[]) => ({ platform: 'linux' as const, taskDir: taskDir(['10', '11']), mainThread: 10, getPriority: () => 0, setPriority: (_id: number, p: number) => void set.push(p) });

  it('low: lowers the threads once and watches nothing', () => {
    vi.useFakeTimers();
    const set: number[] = [];
    let read = 0;
    const control = controlBackgroundThreads('low', { ...threads(set), utilization: () => (read++, { idle: 0, active: 0, utilization: 1 }) });
    vi.advanceTimersByTime(10_000);
    control.stop();
    expect(set).toEqual([19]);
    expect(read).toBe(0);
  });

  it("adaptive: lowers them, puts them back while the loop is saturated, lowers them again after calm, until stopped", () => {
    vi.useFakeTimers();
    const set: number[] = [];
    const changes: string[] = [];
    const intervals = [0.5, 0.95, 0.99, 0.3, 0.3, 0.95, 0.2, 0.2];
    let i = 0;
    const utilization = (now?: { utilization: number }) => (now ? { idle: 0, active: 0, utilization: intervals[i++] ?? 0 } : { idle: 0, active: 0, utilization: 0 });
    const control = controlBackgroundThreads('adaptive', { ...threads(set), intervalMs: 100, calmIntervals: 2, utilization, onChange: (state) => void changes.push(state) });
    expect(set).toEqual([19]);
    vi.advanceTimersByTime(800);
    expect(changes).toEqual(['normal', 'lowered', 'normal', 'lowered']);
    expect(set).toEqual([19, 0, 19, 0, 19]);
    control.stop();
    vi.advanceTimersByTime(1000);
    expect(i).toBe(8);
  });
});
