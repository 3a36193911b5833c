import { defineConfig } from 'vitest/config';

/**
 * The suites that judge the rules and the engine, for `npm run test:mutation`. Left out: the
 * Go reference comparisons (they need Go and compile programs), the precompiled-validator and
 * package tests (they read dist/), the memo tests (the memos are off here), the server and CLI.
 * Tests elsewhere that count what a memo saves skip themselves when FLEETGATE_MEMO_OFF is set.
 */
export default defineConfig({
  test: {
    include: [
      'test/rules/**/*.test.ts',
      'test/checks/{metadata,names,quantity,cron,timezone,schema,date-time,endpoint,go-url}.test.ts',
      'test/admission/review.test.ts',
      'test/{field,field-error,causes-order,registry,validate,defaults,limits,warnings,deletion-protection}.test.ts',
    ],
    setupFiles: ['test/mutation/no-memo.ts'],
    // Read by tests that count what a memo saves (test/checks/cron.test.ts): they skip themselves.
    env: { FLEETGATE_MEMO_OFF: '1' },
    // The bounds in limits.test.ts validate objects of thousands of mistakes, slower uncached.
    testTimeout: 30_000,
    pool: 'threads',
  },
});
