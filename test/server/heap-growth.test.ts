import { describe, expect, it } from 'vitest';
import { boundOldGenerationGrowth, collectGarbage, collectGarbageMeasured, collectWhenIdle, OLD_GENERATION_GROWTH_PERCENT } from '../../src/server/heap.js';

describe('the served process bounds its old generation', () => {
  it("sets V8's heap growth factor when the command line sets none", () => {
    const set: string[] = [];
    expect(boundOldGenerationGrowth(['--enable-source-maps'], (flags) => set.push(flags))).toBe(true);
    expect(set).toEqual([`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`]);
  });

  it("leaves the operator's own setting alone, in either spelling", () => {
    for (const own of ['--heap-growing-percent=200', '--heap_growing_percent=20']) {
      const set: string[] = [];
      expect(boundOldGenerationGrowth([own], (flags) => set.push(flags))).toBe(false);
      expect(set).toEqual([]);
    }
  });

  it('sets a flag this V8 knows', async () => {
    // V8 ignores an unknown flag silently; the name set must be one `node --v8-options` lists.
    const set: string[] = [];
    boundOldGenerationGrowth([], (flags) => set.push(flags));
    const name = set[0]?.split('=')[0] ?? '';
    const { execFileSync } = await import('node:child_process');
    expect(name).not.toBe('');
    expect(execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' })).toContain(`  ${name} (`);
  });
});

describe('a full collection where a pause costs nothing', () => {
  it('collects garbage at once, without leaving a global gc behind', () => {
    let junk: unknown[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `x${i}` }));
    expect(junk.length).toBe(300_000);
    junk = undefined;
    const before = process.memoryUsage().heapUsed;
    collectGarbage();
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 10 * 2 ** 20);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('reads the heap before and after the collection it runs', () => {
    let junk: unknown[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `x${i}` }));
    expect(junk.length).toBe(300_000);
    const figures = collectGarbageMeasured(() => {
      junk = undefined;
      collectGarbage();
    });
    expect(figures.heapUsedMiB.after).toBeLessThan(figures.heapUsedMiB.before - 10);
    expect(figures.youngGenerationMiB.before).toBeGreaterThan(0);
    expect(figures.youngGenerationMiB.after).toBeGreaterThan(0);
    // A collection that frees nothing leaves the figures as they were, give or take what reading them allocates.
    const none = collectGarbageMeasured(() => undefined);
    expect(Math.abs(none.heapUsedMiB.after - none.heapUsedMiB.before)).toBeLessThan(1);
  });

  it('waits for an idle window: none while busy, one collection once idle, then no more', async () => {
    let cpu = 0;
    let collections = 0;
    // Busy for the first two windows (a full window of CPU each), idle after.
    let windows = 0;
    const idle = collectWhenIdle({ windowMs: 20, idleShare: 0.1, cpuMs: () => (windows++ < 3 ? (cpu += 20) : cpu), collect: () => collections++ });
    expect(await idle.done).toBe(true);
    expect(collections).toBe(1);
    expect(windows).toBe(4);
    await new Promise((r) => setTimeout(r, 100));
    expect(collections).toBe(1);
  });

  it('gives up after its tries while the process stays busy, and stops when told', async () => {
    let cpu = 0;
    let collections = 0;
    const busy = collectWhenIdle({ windowMs: 10, tries: 3, cpuMs: () => (cpu += 10), collect: () => collections++ });
    expect(await busy.done).toBe(false);
    const stopped = collectWhenIdle({ windowMs: 10, cpuMs: () => 0, collect: () => collections++ });
    stopped.stop();
    expect(await stopped.done).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(collections).toBe(0);
  });
});
