/**
 * Timestamps against Go's time.Parse(time.RFC3339), which is how metav1.Time reads every
 * timestamp of an object (test/checks/gostdlib/main.go, built with Debian's Go). A timestamp
 * fleetgate admits must be one the control plane's components can read; fleetgate refuses one
 * they read only where RFC 3339, which the spec names, does not allow it (below). Without Go
 * this is skipped with the reason in its title (CI sets FLEETGATE_GO_TESTS_REQUIRED=1 so it fails instead).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ajvFormats } from '../../src/schema/formats.js';
import { askGoProgram, buildGoProgram, goUnavailable } from '../../scripts/go-lib.mjs';
import { goReference } from '../go-reference.js';

const SOURCE = fileURLToPath(new URL('./gostdlib/main.go', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const reference = goReference('test/checks/date-time-go', "date-time agrees with Go's time.Parse(time.RFC3339)", goUnavailable([], ['golang-go']));
const dateTime = (ajvFormats['date-time'] as { validate: (v: string) => boolean }).validate;

const DATES = ['2024-02-29', '2023-02-29', '2026-04-31', '2026-12-31', '0000-01-01', '9999-12-31', '2026-00-10', '2026-13-10', '2026-01-00', '2026-1-10', '20260-01-10', '2026/01/10'];
const SEPARATORS = ['T', 't', ' ', 'TT', '_'];
const TIMES = ['00:00:00', '23:59:59', '24:00:00', '12:60:00', '12:00:60', '23:59:60', '1:00:00', '12:00', '12:00:00.5', '12:00:00,5', '12:00:00.', '12:00:00.123456789123', '12:00:00.+1'];
const ZONES = ['Z', 'z', '', '+00:00', '-00:00', '+23:59', '+00:01', '+13:01', '+24:00', '+01:60', '+25:00', '+0100', '+01', '+1:00', ' Z', 'Z ', 'UTC', '+01:00:00'];

function corpus(): string[] {
  const values = new Set<string>();
  for (const date of DATES) for (const sep of SEPARATORS) for (const time of TIMES) for (const zone of ZONES) values.add(`${date}${sep}${time}${zone}`);
  for (const v of ['', 'T', '2026-11-22', '12:00:00Z', ' 2026-11-22T12:00:00Z', '2026-11-22T12:00:00Z\n', '２０２６-11-22T12:00:00Z']) values.add(v);
  return [...values];
}

/**
 * RFC 3339 allows no comma before the fraction, no one-digit hour and no offset past 23:59,
 * which Go reads (`12:00:00,5`, `T1:00:00`, `+24:00`, `+01:60`); the spec names RFC 3339, so
 * fleetgate refuses them.
 */
const notRfc3339 = (v: string): boolean =>
  /\d,\d/.test(v) || /T\d:/.test(v) || /[+-](2[4-9]|[3-9]\d):\d\d$/.test(v) || /[+-]\d\d:[6-9]\d$/.test(v);

describe.skipIf(reference.skip)(reference.title, () => {
  it('admits only timestamps Go reads, and refuses one Go reads only where RFC 3339 does not allow it', () => {
    reference.assertAvailable();
    const values = corpus();
    const go = askGoProgram(buildGoProgram(SOURCE, 'go-stdlib', ROOT), values, ['-mode', 'time']);
    const disagreements = values.flatMap((value, i) => {
      const ours = dateTime(value);
      const goReads = go[i] === 'ok';
      if (ours === goReads || (goReads && notRfc3339(value))) return [];
      return [`${JSON.stringify(value)}: Go ${go[i]}; fleetgate ${ours ? 'admits' : 'refuses'}`];
    });
    expect(values.length).toBeGreaterThan(10_000);
    expect(disagreements).toEqual([]);
  });
});
