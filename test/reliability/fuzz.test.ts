/**
 * The input fuzzer of bench/reliability, in short, on every test run: a fixed seed, 5,000 library
 * inputs and a few hundred webhook requests, so a regression of the kind it finds fails CI. The
 * full run is `npm run reliability:fuzz` (docs/reliability.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createCA } from '../../certs/tinyca.js';
import { serve, type RunningServer } from '../../src/server/serve.js';
import { fuzzLibrary, libraryInputs } from '../../bench/reliability/library-fuzz.js';
import { fuzzWebhook } from '../../bench/reliability/webhook-fuzz.js';
import { servingCertDir } from '../server/cert-dir.js';

const SEED = 20261128;

describe('the input fuzzer, short', () => {
  it('finds no exception, internal error, prototype pollution, hang or long text in 5,000 library inputs', () => {
    const inputs = libraryInputs(SEED);
    const figures = fuzzLibrary({ seed: SEED, from: 0, to: 5_000, deadlineMs: 10_000 }, inputs);
    expect(figures.failures).toEqual([]);
    expect(figures).toMatchObject({ inputs: 5_000, exceptions: 0, internalErrors: 0, prototypePollution: 0, hangs: 0, longTexts: 0 });
    // The run is the one described: the systematic sweep is part of it, and every input made four calls.
    expect(figures.sweepCases).toBe(1_000);
    expect(figures.calls).toBe(20_000);
  }, 120_000);

  describe('against the webhook', () => {
    const ca = createCA();
    let server: RunningServer;
    beforeAll(async () => {
      server = await serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(ca), logger: pino({ level: 'silent' }) });
    });
    afterAll(() => server.close());

    it('gets no 5xx, hang, failure or malformed answer for 400 generated requests', async () => {
      const figures = await fuzzWebhook({ host: '127.0.0.1', port: server.port, ca: ca.certPem }, { seed: SEED, from: 0, to: 400, concurrency: 8, deadlineMs: 10_000, stalls: 0 });
      expect(figures.failures).toEqual([]);
      expect(figures).toMatchObject({ requests: 400, http5xx: 0, reviewInternalErrors: 0, malformed: 0, hangs: 0, transportErrors: 0 });
      // Both kinds of answer came: reviews (200) and refusals of what is no review (4xx).
      expect(figures.byStatus['200']).toBeGreaterThan(100);
      expect(Object.keys(figures.byStatus).some((status) => status.startsWith('4'))).toBe(true);
    }, 120_000);
  });
});
