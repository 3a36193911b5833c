import { describe, expect, it, vi } from 'vitest';
import { createRequire } from 'node:module';
import { cronScheduleError, runsEverySecond } from '../../src/checks/cron.js';

/** robfig/cron's standard parser, which the CronFederatedHPA controller schedules with. */
describe('cronScheduleError', () => {
  const valid: [string, string][] = [
    ['every minute', '* * * * *'],
    ['fixed time', '30 8 * * *'],
    ['field maxima', '59 23 31 12 6'],
    ['field minima', '0 0 1 1 0'],
    ['ranges', '0 9-17 * * 1-5'],
    ['steps on *', '*/15 * * * *'],
    ['steps on a range', '0-30/10 9 * * *'],
    ['N/step means N-max/step', '5/15 * * * *'],
    ['a step larger than the field', '*/90 * * * *'],
    ['a day-of-week step of 7', '0 0 * * */7'],
    ['lists', '0 0,12 * * *'],
    ['lists of ranges and steps', '0,30 8-10,14-16/2 * * *'],
    ['month names', '0 0 1 jan,JUL *'],
    ['month name ranges', '0 0 1 jan-mar *'],
    ['day names', '0 9 * * mon-fri'],
    ['day names in any case', '0 9 * * SUN,Sat'],
    ['? for day of month', '0 0 ? * 1'],
    ['? for day of week', '0 0 1 * ?'],
    ['leading zeros', '05 08 * * *'],
    ['surrounding and repeated whitespace', '  0\t9  * * *  '],
    ['31st of a month that has one', '0 0 31 1,3 *'],
    ['@yearly', '@yearly'],
    ['@annually', '@annually'],
    ['@monthly', '@monthly'],
    ['@weekly', '@weekly'],
    ['@daily', '@daily'],
    ['@midnight', '@midnight'],
    ['@hourly', '@hourly'],
    ['@every seconds', '@every 90s'],
    ['@every compound duration', '@every 1h30m'],
    ['@every fractional hours', '@every 1.5h'],
    ['@every milliseconds', '@every 300ms'],
    ['@every microseconds (µ)', '@every 1500000µs'],
    // robfig checks each field's range only: a day the month never has is a schedule that never fires.
    ['February 31st', '0 0 31 2 *'],
    ['February 30th', '0 0 30 2 *'],
    ['April 31st', '0 0 31 4 *'],
    // robfig's quirks, which decide what the controller runs (cron-robfig.test.ts checks them all).
    ['the same value twice in a list', '0 9 * * 1-5,5'],
    ['overlapping list items', '0,*/15 * * * *'],
    ['an empty list item (dropped)', '1,,2 * * * *'],
    ['a leading comma', '0 9 ,1 * *'],
    ['a plus sign', '+5 * * * *'],
    ['anything after *- (ignored)', '*-5 * * * *'],
    ['a step of an ignored range', '?-x/2 * * * *'],
    ['the largest step', '*/9223372036854775807 * * * *'],
    ['descriptor with trailing tab', '@daily\t'],
    ['@every with trailing space', '@every 5m '],
    ['Go-only space (U+0085) between fields', '0\u00859 * * *'],
    ['ideographic space between fields', '0\u30009 * * *'],
    ['@every zero (run every second)', '@every 0s'],
    ['@every negative (run every second)', '@every -5m'],
    ['@every with a plus', '@every +1h'],
    ['@every 1. hours', '@every 1.h'],
    ['@every the longest duration', '@every 2562047h47m16.854775807s'],
    ['@every the shortest duration', '@every -9223372036854775808ns'],
    ['@every the shortest duration, in parts', '@every -2562047h47m16.854775808s'],
    ['@every the shortest duration, with a fraction', '@every -9223372036854775.808us'],
    ['@every a fraction longer than int64 (extra digits dropped)', `@every 0.${'1'.repeat(400)}s`],
  ];
  it.each(valid)('accepts %s: %j', (_name, schedule) => expect(cronScheduleError(schedule)).toBeUndefined());

  const invalid: [string, string][] = [
    ['empty', ''],
    ['blank', '   '],
    ['four fields', '* * * *'],
    ['six fields (seconds)', '0 0 0 * * *'],
    ['seven fields (year)', '0 0 0 * * * 2026'],
    ['minute 60', '60 * * * *'],
    ['hour 24', '* 24 * * *'],
    ['day of month 0', '0 0 0 * *'],
    ['day of month 32', '0 0 32 * *'],
    ['month 0', '0 0 1 0 *'],
    ['month 13', '0 0 1 13 *'],
    ['day of week 7', '0 0 * * 7'],
    ['day of week range to 7', '0 0 * * 1-7'],
    ['reversed range', '5-1 * * * *'],
    ['reversed name range', '0 0 1 dec-jan *'],
    ['step 0', '*/0 * * * *'],
    ['step that is not a number', '0 0 */mon * *'],
    ['a month name as a step', '0 0 1 */feb *'],
    ['a month name outside the month field', '0 0 * * jan'],
    ['two steps', '1/2/3 * * * *'],
    ['missing step start', '/5 * * * *'],
    ['names outside month and day fields', 'mon * * * *'],
    ['full day names', '0 0 * * monday'],
    ['L', '0 0 L * *'],
    ['W', '0 0 15W * *'],
    ['#', '0 0 * * 1#2'],
    ['H (hash)', 'H * * * *'],
    ['a letter', 'a * * * *'],
    ['TZ= prefix', 'TZ=UTC 0 * * * *'],
    ['CRON_TZ= prefix', 'CRON_TZ=Europe/Berlin 0 * * * *'],
    ['TZ= prefix before a descriptor', 'TZ=UTC @daily'],
    ['unknown descriptor', '@5minutes'],
    ['gronx-only descriptor', '@everysecond'],
    ['descriptor in the wrong case', '@Daily'],
    ['@every without duration', '@every'],
    ['@every with a non-duration', '@every soon'],
    ['@every with a unitless number', '@every 5'],
    ['@every with a space inside the duration', '@every 1h 30m'],
    ['@every with two spaces', '@every  5m'],
    ['@every days (not a Go unit)', '@every 1d'],
    ['day of month past 31, in February too', '0 0 32 2 *'],
    ['month past 12 with a late day', '0 0 31 13 *'],
    ['a range without its end', '5- * * * *'],
    ['a range without its start', '-5 * * * *'],
    ['two hyphens', '1-2-3 * * * *'],
    ['a negative step', '*/-2 * * * *'],
    ['a step past int64', '*/9223372036854775808 * * * *'],
    ['a byte-order mark, which Go does not call space', '\ufeff0 9 * * *'],
    ['@every with a tab', '@every\t5m'],
    ['@every with an exponent', '@every 1e3s'],
    ['@every with a point and no digits', '@every .h'],
    ['@every past int64 nanoseconds', '@every 2562047h47m16.854775808s'],
    ['@every past int64 by a fraction of an hour', '@every 2562047.9h'],
    ['@every negative past int64, in parts', '@every -2562047h2562047h'],
    ['@every with a unit named like an Object property', '@every 5constructor'],
  ];
  it.each(invalid)('rejects %s: %j', (_name, schedule) => expect(cronScheduleError(schedule)).toEqual(expect.any(String)));

  it('explains the common mistakes', () => {
    expect(cronScheduleError('0 0 0 * * *')).toBe('expected exactly 5 fields (minute hour day-of-month month day-of-week), found 6');
    expect(cronScheduleError('0 0 * * 7')).toBe('day of week field "7": day of week 7 is out of range 0-6');
    expect(cronScheduleError('0 0 L * *')).toContain('"L" is not supported');
    expect(cronScheduleError('jan * * * *')).toBe('minute field "jan": "jan" is not supported (only numbers, *, ?, ranges, steps, lists)');
    expect(cronScheduleError('0 0 1 */feb *')).toBe('month field "*/feb": step "feb" must be a number');
    expect(cronScheduleError('TZ=UTC 0 * * * *')).toContain('use the timeZone field');
    expect(cronScheduleError('@every soon')).toContain('"soon" is not a duration');
    expect(cronScheduleError('@every 2562048h')).toBe('"2562048h" is not a duration (e.g. 90s, 5m, 1h30m)');
    expect(cronScheduleError('1-2-3 * * * *')).toBe('minute field "1-2-3": "1-2-3" has more than one hyphen');
    expect(cronScheduleError('5- * * * *')).toBe('minute field "5-": a range needs a value on both sides of "-"');
    expect(cronScheduleError('@5minutes')).toBe('unrecognized descriptor "@5minutes"; supported: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>');
    expect(cronScheduleError('   ')).toBe('empty schedule');
    expect(cronScheduleError('0 0 1 mon *')).toBe('month field "mon": "mon" is not supported (only numbers, *, ?, ranges, steps, lists and names)');
    expect(cronScheduleError('0 9 * * * CRON_TZ=UTC')).toBe('expected exactly 5 fields (minute hour day-of-month month day-of-week), found 6');
  });

  it('knows which @every schedules the controller raises to one second', () => {
    for (const schedule of ['@every 0s', '@every -5m', '@every 999ms', ' @every 0.5s ']) expect(runsEverySecond(schedule)).toBe(true);
    for (const schedule of ['@every 1s', '@every 1h', '@daily', '* * * * *', '@every soon']) expect(runsEverySecond(schedule)).toBe(false);
    for (const schedule of ['@every +1h', '@every 0.5m', 'x @every 0s']) expect(runsEverySecond(schedule)).toBe(false);
  });

  it('trims and splits long runs of space in one pass', () => {
    // Trimming by a pattern anchored at the end retried it at every space: 20,000 spaces took 1.8 s,
    // four times that for each doubling. This takes milliseconds. (The test timeout is the guard.)
    const spaces = ' '.repeat(200_000);
    expect(cronScheduleError(`x${spaces}x`)).toBe('expected exactly 5 fields (minute hour day-of-month month day-of-week), found 2');
    expect(cronScheduleError(`${spaces}0 0${spaces}* * *${spaces}`)).toBeUndefined();
    expect(runsEverySecond(`${spaces}@every 0s${spaces}`)).toBe(true);
  });

  it('asks cron-parser once about an item a list repeats', () => {
    // Each item cost a cron-parser call, some 30 µs: a list of a million ones took half a minute.
    expect(cronScheduleError(`${'1,'.repeat(1_000_000)}1 * * * *`)).toBeUndefined();
    expect(cronScheduleError(`${'1-5,'.repeat(500_000)}60 * * * *`)).toMatch(/^minute field ".*": Constraint error, got value 60 expected range 0-59$/);
  });

  // Counts what the verdict cache saves: skipped where the caches are off (the mutation run).
  it.skipIf(process.env.FLEETGATE_MEMO_OFF)('asks cron-parser once about items that differ only in their step or the case of a name', () => {
    // Each distinct item was a call of some 25 µs: a MiB of distinct steps took seconds.
    const { CronExpressionParser } = createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser');
    const parse = vi.spyOn(CronExpressionParser, 'parse');
    try {
      const steps = Array.from({ length: 5000 }, (_, i) => `0-59/${i + 7}`).join(',');
      const names = ['jan', 'JAN', 'Jan', 'jAN', 'JaN'].map((m) => `${m}-Mar/${m.length + 1}`).join(',');
      expect(cronScheduleError(`${steps} 0 1 ${names} *`)).toBeUndefined();
      expect(parse.mock.calls.length).toBeLessThanOrEqual(2);
      // The verdicts themselves do not depend on either.
      expect(cronScheduleError('0-59/0 * * * *')).toBe('minute field "0-59/0": Constraint error, cannot repeat at every 0 time.');
      expect(cronScheduleError('* * * MAR-jan/5 *')).toBe('month field "MAR-jan/5": Invalid range: 3-1, min(3) > max(1)');
    } finally {
      parse.mockRestore();
    }
  });

  it('answers the same for a repeated schedule (cached)', () => {
    expect(cronScheduleError('0 0 L * *')).toBe(cronScheduleError('0 0 L * *'));
    expect(cronScheduleError('@daily')).toBeUndefined();
    expect(cronScheduleError('@daily')).toBeUndefined();
  });
});
