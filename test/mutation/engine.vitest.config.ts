import { defineConfig } from 'vitest/config';

/**
 * The suites that judge the engine alone, for `npm run test:mutation:engine`: a run of about half
 * an hour on one core, scoped to src/decode/object.ts and the engine files the rules do not own
 * (engine.stryker.json). The memos are off as in the full run (see vitest.config.ts).
 */
export default defineConfig({
  test: {
    include: [
      'test/{validate,defaults,causes-order,deletion-protection,warnings,field,field-error}.test.ts',
      'test/rules/{update-ratcheting,permanent-id,work-mutation}.test.ts',
      'test/limits.test.ts',
    ],
    setupFiles: ['test/mutation/no-memo.ts'],
    env: { FLEETGATE_MEMO_OFF: '1' },
    // The bounds in limits.test.ts validate objects of thousands of mistakes, slower uncached.
    testTimeout: 30_000,
    pool: 'threads',
  },
});
