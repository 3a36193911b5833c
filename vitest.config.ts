import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The install tests (npm installs into temporary projects, a git clone that builds itself) load both
 * cores for minutes: they run as a second group, after the rest, so no other test shares the machine
 * with them.
 */
const INSTALLING = ['test/install.test.ts', 'test/docker.test.ts'];

export default defineConfig({
  test: {
    pool: 'threads',
    // Hang guards, not speed checks (speed is measured in bench/): on a loaded shared machine the
    // tests that start processes, build Go references or compile schemas run several times slower.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...INSTALLING] } },
      { extends: true, test: { name: 'install', include: INSTALLING, sequence: { groupOrder: 1 } } },
    ],
  },
});
