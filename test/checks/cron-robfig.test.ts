/**
 * cronScheduleError against the parser the CronFederatedHPA controller really runs: robfig/cron v3
 * (Debian's golang-github-robfig-cron-dev), built from test/checks/robfig/main.go. Every schedule
 * of cron-corpus.ts must get the same verdict from both, except the one deliberate difference
 * below. Without Go the comparison is skipped with the reason in its title (CI sets
 * FLEETGATE_GO_TESTS_REQUIRED=1 so it fails instead).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cronScheduleError } from '../../src/checks/cron.js';
import { askGoProgram, buildGoProgram, goUnavailable } from '../../scripts/go-lib.mjs';
import { scheduleCorpus } from './cron-corpus.js';
import { goReference } from '../go-reference.js';

const SOURCE = fileURLToPath(new URL('./robfig/main.go', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const reference = goReference('test/checks/cron-robfig', 'cron schedules agree with robfig/cron', goUnavailable(['github.com/robfig/cron'], ['golang-go', 'golang-github-robfig-cron-dev']));

/** robfig's verdict on each schedule: undefined when it parses, else its error message. */
function robfigVerdicts(schedules: readonly string[]): (string | undefined)[] {
  reference.assertAvailable();
  const lines = askGoProgram(buildGoProgram(SOURCE, 'robfig-cron', ROOT), schedules);
  return lines.map((line) => (line === 'ok' ? undefined : line.replace(/^err /, '')));
}

describe.skipIf(reference.skip)(reference.title, () => {
  it('gives every schedule of the corpus robfig\'s verdict', () => {
    const corpus = scheduleCorpus();
    const robfig = robfigVerdicts(corpus);
    const disagreements = corpus.flatMap((schedule, i) => {
      const ours = cronScheduleError(schedule);
      if ((ours === undefined) === (robfig[i] === undefined)) return [];
      return [`${JSON.stringify(schedule)}: robfig ${robfig[i] ?? 'accepts'}; fleetgate ${ours ?? 'accepts'}`];
    });
    expect(corpus.length).toBeGreaterThan(5000);
    expect(disagreements).toEqual([]);
  });

  it('differs on purpose only for a TZ= or CRON_TZ= prefix, which the timeZone field replaces', () => {
    const prefixed = ['TZ=UTC 0 * * * *', 'CRON_TZ=Europe/Berlin 0 9 * * 1-5', 'CRON_TZ=UTC @daily'];
    expect(robfigVerdicts(prefixed)).toEqual([undefined, undefined, undefined]);
    for (const schedule of prefixed) expect(cronScheduleError(schedule)).toContain('use the timeZone field');
  });
});
