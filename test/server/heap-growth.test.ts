import { describe, expect, it } from 'vitest';
import { boundOldGenerationGrowth, OLD_GENERATION_GROWTH_PERCENT } from '../../src/server/heap.js';

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
