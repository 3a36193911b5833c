import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import {
  boundOldGenerationGrowth,
  capYoungGeneration,
  collectGarbage,
  collectGarbageMeasured,
  collectWhenIdle,
  collectYoungGeneration,
  OLD_GENERATION_GROWTH_PERCENT,
  YOUNG_GENERATION_CAP_BYTES,
  YOUNG_GENERATION_SHRUNK_BYTES,
  youngGenerationSizedByOperator,
} from '../../src/server/heap.js';

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

const MiB = 2 ** 20;

describe("the served process caps V8's young generation", () => {
  /** capYoungGeneration over a young generation of `size` MiB, with the flags it sets and a way to run its after-collection check. */
  function capped(startMiB: number) {
    let size = startMiB * MiB;
    const set: string[] = [];
    let afterCollection = () => undefined as void;
    let observing = false;
    const cap = capYoungGeneration(8 * MiB, {
      size: () => size,
      setFlags: (flags) => set.push(flags),
      observeCollections: (callback) => {
        afterCollection = callback;
        observing = true;
        return () => (observing = false);
      },
    });
    const collected = (mib: number) => {
      size = mib * MiB;
      afterCollection();
    };
    return { cap, set, collected, observing: () => observing };
  }

  it('lets it grow by V8\'s factor below the cap, stops it at the cap, and lets it grow again once V8 shrank it', () => {
    const { set, collected } = capped(1);
    expect(set).toEqual([]);
    collected(2);
    collected(4);
    expect(set).toEqual([]);
    collected(8);
    expect(set).toEqual(['--semi-space-growth-factor=1']);
    collected(8);
    collected(16); // one step past it, in a turn that outgrew it twice: held, not grown further
    expect(set).toEqual(['--semi-space-growth-factor=1']);
    collected(2);
    expect(set).toEqual(['--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
  });

  it('holds it at once when it starts at the cap, and stop() hands V8 its default back', () => {
    const { cap, set, observing } = capped(8);
    expect(set).toEqual(['--semi-space-growth-factor=1']);
    expect(observing()).toBe(true);
    cap.stop();
    expect(observing()).toBe(false);
    expect(set).toEqual(['--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
  });

  it('stop() below the cap sets nothing', () => {
    const { cap, set } = capped(1);
    cap.stop();
    expect(set).toEqual([]);
  });

  it('is the size --max-semi-space-size=4 gives', () => {
    expect(YOUNG_GENERATION_CAP_BYTES).toBe(8 * MiB);
  });

  it("stays out of the way of the operator's own sizing, on the command line or in NODE_OPTIONS", () => {
    expect(youngGenerationSizedByOperator(['--max-semi-space-size=4'], '')).toBe(true);
    expect(youngGenerationSizedByOperator([], '--enable-source-maps --max_semi_space_size=2')).toBe(true);
    expect(youngGenerationSizedByOperator([], '--min-semi-space-size=1')).toBe(true);
    expect(youngGenerationSizedByOperator(['--semi-space-growth-factor=4'], '')).toBe(true);
    expect(youngGenerationSizedByOperator(['--enable-source-maps'], '--max-old-space-size=200')).toBe(false);
    expect(youngGenerationSizedByOperator([], '')).toBe(false);
  });

  it('sets a flag this V8 knows', async () => {
    const { set, collected } = capped(1);
    collected(8);
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

  it('waits for an idle window: none while busy, one collection once idle, then no more once settled', async () => {
    let cpu = 0;
    let collections = 0;
    // Busy for the first two windows (a full window of CPU each), idle after.
    let windows = 0;
    const idle = collectWhenIdle({ windowMs: 20, idleShare: 0.1, cpuMs: () => (windows++ < 3 ? (cpu += 20) : cpu), collect: () => collections++, settled: () => true });
    expect(await idle.done).toBe(true);
    expect(collections).toBe(1);
    expect(windows).toBe(4);
    await new Promise((r) => setTimeout(r, 100));
    expect(collections).toBe(1);
  });

  it('collects again in the next idle windows until settled, then stops', async () => {
    let collections = 0;
    const idle = collectWhenIdle({ windowMs: 10, cpuMs: () => 0, collect: () => collections++, settled: () => collections >= 3 });
    expect(await idle.done).toBe(true);
    expect(collections).toBe(3);
    await new Promise((r) => setTimeout(r, 60));
    expect(collections).toBe(3);
  });

  it('gives up after its tries while the process stays busy or the collections do not settle, and stops when told', async () => {
    let cpu = 0;
    let collections = 0;
    const busy = collectWhenIdle({ windowMs: 10, tries: 3, cpuMs: () => (cpu += 10), collect: () => collections++ });
    expect(await busy.done).toBe(false);
    expect(collections).toBe(0);
    const unsettled = collectWhenIdle({ windowMs: 10, tries: 3, cpuMs: () => 0, collect: () => collections++, settled: () => false });
    expect(await unsettled.done).toBe(false);
    expect(collections).toBe(3);
    const stopped = collectWhenIdle({ windowMs: 10, cpuMs: () => 0, collect: () => collections++ });
    stopped.stop();
    expect(await stopped.done).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(collections).toBe(3);
  });

  it('settles by default once the young generation is small again', () => {
    expect(YOUNG_GENERATION_SHRUNK_BYTES).toBeLessThan(4 * 2 ** 20);
    expect(YOUNG_GENERATION_SHRUNK_BYTES).toBeGreaterThanOrEqual(2 ** 20);
  });
});

/**
 * A function V8 optimized for objects of a hidden class that nothing alive uses any more (as the
 * objects JSON.parse makes of the warm-up's reviews, gone once it is over), and a check whether it is
 * still optimized. The class gets a key of its own, so no other object in this process shares it.
 */
function optimizedForGoneObjects(): () => boolean {
  setFlagsFromString('--allow-natives-syntax');
  try {
    const key = `k${Math.random().toString(36).slice(2)}`;
    // Natives syntax parses only in code compiled while the flag is on.
    return new Function(`
      const read = (o) => o.alpha + o.beta.length + o.${key};
      let objects = Array.from({ length: 200 }, (_, i) => JSON.parse('{"alpha":' + i + ',"beta":"x' + i + '","${key}":1}'));
      %PrepareFunctionForOptimization(read);
      for (const o of objects) read(o);
      %OptimizeFunctionOnNextCall(read);
      read(objects[0]);
      objects = undefined;
      const optimized = () => (%GetOptimizationStatus(read) & 16) !== 0;
      optimized(); // compiled now, while natives syntax parses
      return optimized;
    `)() as () => boolean;
  } finally {
    setFlagsFromString('--no-allow-natives-syntax');
  }
}

describe("the idle collection keeps V8's optimized code", () => {
  it('a function optimized for objects nobody holds stays optimized through repeated idle collections', async () => {
    const optimized = optimizedForGoneObjects();
    expect(optimized()).toBe(true);
    // The default collection, in four idle windows.
    const idle = collectWhenIdle({ windowMs: 5, tries: 4, cpuMs: () => 0, settled: () => false });
    expect(await idle.done).toBe(false);
    expect(optimized()).toBe(true);
    for (let i = 0; i < 4; i++) collectYoungGeneration();
    expect(optimized()).toBe(true);
  });

  it('where full collections discard it (the check above can fail)', () => {
    const optimized = optimizedForGoneObjects();
    expect(optimized()).toBe(true);
    for (let i = 0; i < 4; i++) collectGarbage();
    expect(optimized()).toBe(false);
  });
});
