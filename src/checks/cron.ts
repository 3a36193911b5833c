/**
 * Cron schedules exactly as the CronFederatedHPA controller runs them: robfig/cron's
 * standard parser (five fields; ranges, steps, lists, `?`, month and day names; the
 * descriptors `@yearly` … `@hourly` and `@every <duration>`). cron-parser does the
 * field parsing; the checks here only close the gaps where it accepts more than robfig
 * (seconds or year fields, `L`/`W`/`#`/`H`, day-of-week 7), lacks a robfig form, or
 * refuses one (a day of month no listed month has).
 */
import { lazyRequire } from '../lazy.js';
import { memoizeVerdict } from './memo.js';

const cronParser = lazyRequire<typeof import('cron-parser')>('cron-parser');

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const MONTHS = new Set(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']);
const DAYS = new Set(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']);
const FIELD_NAMES = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;
/** Go's time.ParseDuration syntax: `300ms`, `1.5h`, `2h45m`, and a bare `0`. */
const GO_DURATION = /^[+-]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;
const GO_DURATION_UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * Returns why `schedule` is not a schedule the controller can run, or undefined when it is.
 * Re-validating an unchanged object (every UPDATE) does not re-parse its schedules.
 */
export const cronScheduleError: (schedule: string) => string | undefined = memoizeVerdict(check);

function check(schedule: string): string | undefined {
  const trimmed = schedule.trim();
  if (trimmed === '') return 'empty schedule';
  if (/^(CRON_)?TZ=/.test(trimmed)) return 'a time zone prefix (TZ= or CRON_TZ=) is not allowed in the schedule; use the timeZone field';
  // robfig matches descriptors exactly, with no surrounding whitespace; five fields may be padded.
  if (trimmed.startsWith('@')) return descriptorError(schedule);
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) {
    return `expected exactly 5 fields (minute hour day-of-month month day-of-week), found ${fields.length}`;
  }
  for (let i = 0; i < 5; i++) {
    const problem = tokenError(fields[i]!, i);
    if (problem) return `${FIELD_NAMES[i]} field "${fields[i]}": ${problem}`;
  }
  try {
    cronParser().CronExpressionParser.parse(fields.join(' '), { strict: false });
  } catch (err) {
    const message = (err as Error).message;
    // cron-parser checks this after every field has passed; robfig does not, and runs
    // `0 0 31 2 *` as a schedule that never fires.
    if (message === IMPOSSIBLE_DAY_OF_MONTH) return undefined;
    return message;
  }
  return undefined;
}

const IMPOSSIBLE_DAY_OF_MONTH = 'Invalid explicit day of month definition';

function descriptorError(schedule: string): string | undefined {
  if (DESCRIPTORS.has(schedule)) return undefined;
  // robfig: the prefix `@every ` (one space), then the rest must parse as a Go duration.
  if (schedule.startsWith('@every ')) {
    const duration = schedule.slice('@every '.length);
    if (!GO_DURATION.test(duration)) return `"${duration}" is not a duration (e.g. 90s, 5m, 1h30m)`;
    if (durationNanos(duration) <= 0) return '@every needs a positive duration';
    return undefined;
  }
  return `unrecognized descriptor "${schedule}"; supported: ${[...DESCRIPTORS].join(', ')}, @every <duration>`;
}

function durationNanos(duration: string): number {
  let total = 0;
  for (const m of duration.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(m[1]) * GO_DURATION_UNIT_NS[m[2]!]!;
  return duration.startsWith('-') ? -total : total;
}

/**
 * Each comma-separated item is `range[/step]`: the range is `*`, `?`, a value or `value-value`,
 * where a value is a number or (month and day-of-week fields) a three-letter name; the step
 * is a number. Bounds and step sizes are left to cron-parser, which enforces robfig's.
 */
function tokenError(field: string, position: number): string | undefined {
  for (const item of field.split(',')) {
    const [range = '', step, ...extra] = item.split('/');
    if (extra.length) return `"${item}" has more than one step`;
    if (step !== undefined && !/^\d+$/.test(step)) return `step "${step}" must be a number`;
    if (range === '*' || range === '?') continue;
    for (const token of range.split('-')) {
      if (token === '') continue;
      if (/^\d+$/.test(token)) {
        // cron-parser reads 7 as Sunday; robfig's day-of-week range ends at 6.
        if (position === 4 && Number(token) > 6) return `day of week ${token} is out of range 0-6`;
        continue;
      }
      const lower = token.toLowerCase();
      if (position === 3 && MONTHS.has(lower)) continue;
      if (position === 4 && DAYS.has(lower)) continue;
      return `"${token}" is not supported (only numbers, *, ?, ranges, steps, lists${position >= 3 ? ' and names' : ''})`;
    }
  }
  return undefined;
}
