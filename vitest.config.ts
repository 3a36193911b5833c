import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'threads',
    // Hang guards, not speed checks (speed is measured in bench/): on a loaded shared machine the
    // tests that start processes, build Go references or compile schemas run several times slower.
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
