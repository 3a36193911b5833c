import { describe, expect, it } from 'vitest';
import { areaShares, sharesTable, WEBHOOK_AREAS, type Area, type CpuProfile } from '../bench/profile-areas.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

/**
 * root ─ (idle)
 *      ├ decodeJson (fleetgate's app, as built in a checkout)
 *      └ review ─ schemaPass ─ parse (native, no script)
 * Samples 1 ms apart: idle, decodeJson, review, schemaPass, parse, idle, decodeJson, and a last one
 * whose time is unknown.
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('decodeJson', 'file:///work/wt/x/dist/src/server/app.js', 39) },
    { id: 4, callFrame: frame('review', 'file:///tmp/base/dist/src/admission/review.js', 31), children: [5] },
    { id: 5, callFrame: frame('schemaPass', 'file:///work/wt/x/dist/src/engine/validate.js', 95), children: [6] },
    { id: 6, callFrame: frame('parse') },
  ],
  startTime: 0,
  samples: [2, 3, 4, 5, 6, 2, 3, 3],
  timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

const areas: Area[] = [
  { name: 'decode', frame: /^decodeJson src\/server\// },
  { name: 'review', frame: /^review src\/admission\// },
  { name: '  schema', frame: /^schemaPass src\/engine\// },
  { name: 'native parse', frame: /^parse $/ },
];

describe('areaShares', () => {
  it('shares the busy time among the areas on each sample’s stack, callers included, idle left out', () => {
    const { busyMs, shares } = areaShares(profile, areas);
    // Busy: decodeJson, review, schemaPass, parse, decodeJson (the last sample's time is unknown).
    expect(busyMs).toBe(5);
    expect(shares).toEqual([2 / 5, 3 / 5, 2 / 5, 1 / 5]);
  });

  it('counts only the last seconds when asked', () => {
    // The profile ends at 7 ms: the last 2.5 ms hold the samples at 5 ms (idle), 6 ms and 7 ms (decodeJson).
    const { busyMs, shares } = areaShares(profile, areas, 0.0025);
    expect(busyMs).toBe(1);
    expect(shares).toEqual([1, 0, 0, 0]);
  });

  it("matches the webhook's own areas in a build's paths, wherever the checkout is", () => {
    const { shares } = areaShares(profile, WEBHOOK_AREAS);
    const share = (name: string) => shares[WEBHOOK_AREAS.findIndex((a) => a.name.includes(name))];
    expect(share('JSON.parse of the body')).toBe(2 / 5);
    expect(share('review()')).toBe(3 / 5);
    expect(share('the schema pass')).toBe(2 / 5);
    expect(share("the kind's rules")).toBe(0);
  });
});

describe('sharesTable', () => {
  it('prints a column per profile, nested areas indented', () => {
    const table = sharesTable(['a', 'b'], [areaShares(profile, areas), areaShares(profile, areas, 0.0025)], areas);
    expect(table.split('\n')).toEqual([
      '| area (inclusive share of the busy time) | a | b |',
      '|---|---|---|',
      '| decode | 40.0 % | 100.0 % |',
      '| review | 60.0 % | 0.0 % |',
      '| &nbsp;&nbsp;schema | 40.0 % | 0.0 % |',
      '| native parse | 20.0 % | 0.0 % |',
      '| busy ms counted | 5 | 1 |',
    ]);
  });
});
