import { describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_CAP_BYTES } from '../../src/server/heap.js';
import { built, startServe } from './serve-child.js';

/** The young generation's size as the server's /metrics reports it (prom-client reads V8's heap spaces at each scrape). */
async function youngGenerationOf(server: ReturnType<typeof startServe>): Promise<number> {
  const { probePort } = await server.line('fleetgate webhook serving');
  const text = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
  const found = /^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m.exec(text);
  if (!found) throw new Error('no nodejs_heap_space_size_total_bytes{space="new"} in /metrics');
  return Number(found[1]);
}

describe.skipIf(!built)("fleetgate serve's young generation (runs dist/, which npm test builds first)", { timeout: 60_000 }, () => {
  // The warm-up's 1,800 reviews grow an uncapped young generation past the cap: the second test shows it.
  it('stays at the cap through the warm-up', async () => {
    const server = startServe(['--warm-up=true']);
    await server.line('warmed up in', 30_000);
    expect(await youngGenerationOf(server)).toBeLessThanOrEqual(YOUNG_GENERATION_CAP_BYTES);
  });

  it('is left to V8 when the operator sizes it in NODE_OPTIONS', async () => {
    const server = startServe(['--warm-up=true'], { env: { NODE_OPTIONS: '--max-semi-space-size=16' } });
    await server.line('warmed up in', 30_000);
    expect(await youngGenerationOf(server)).toBeGreaterThan(YOUNG_GENERATION_CAP_BYTES);
  });
});
