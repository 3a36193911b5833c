/**
 * Cron schedules exactly as the CronFederatedHPA controller runs them: gocron v1 hands each
 * schedule to robfig/cron v3's standard parser (five fields; ranges, steps, lists, `?`, month
 * and day names; the descriptors `@yearly` … `@hourly` and `@every <duration>`).
 *
 * The tokenizing below follows robfig's, quirks included, because its quirks decide what runs:
 * surrounding space is trimmed (Go's idea of space), empty list items are dropped, a `*` or `?`
 * ignores anything after a hyphen, numbers may carry a `+`. cron-parser then judges each list
 * item on its own (bounds, names, steps); the checks here only close the gaps where it accepts
 * more than robfig (seconds or year fields, `L`/`W`/`#`/`H`, day-of-week 7, numbers past int64)
 * or refuses what robfig runs (a day of month no listed month has, an item repeated in a list).
 * test/checks/cron-robfig.test.ts holds all of this to robfig's own parser.
 */
import { lazyRequire } from '../util/lazy.js';
import { memoizeVerdict } from './memo.js';

const cronParser = lazyRequire<typeof import('cron-parser')>('cron-parser');

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const MONTHS = new Set(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']);
const DAYS = new Set(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']);
const FIELD_NAMES = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;
const DAY_OF_WEEK = 4;
const MONTH = 3;

/** Go's unicode.IsSpace, which strings.Fields and strings.TrimSpace use (JavaScript's \s differs on U+0085 and U+FEFF). */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const GO_SPACES = new RegExp(`${GO_SPACE}+`);
const IS_GO_SPACE = new RegExp(`^${GO_SPACE}$`);

/**
 * Go's strings.TrimSpace. Not a pattern anchored at the end (`\s+$`): that is retried at every
 * space of a run, and a schedule of 20,000 spaces then cost seconds.
 */
function goTrimSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && IS_GO_SPACE.test(text[start]!)) start++;
  while (end > start && IS_GO_SPACE.test(text[end - 1]!)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
/** What strconv.Atoi reads: an optional sign and ASCII digits (robfig then refuses a negative). */
const GO_UINT = /^\+?\d+$/;
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Returns why `schedule` is not a schedule the controller can run, or undefined when it is.
 * Re-validating an unchanged object (every UPDATE) does not re-parse its schedules.
 */
export const cronScheduleError: (schedule: string) => string | undefined = memoizeVerdict(check);

function check(schedule: string): string | undefined {
  const spec = goTrimSpace(schedule);
  if (spec === '') return 'empty schedule';
  // gocron would run the schedule in this zone and ignore the rule's timeZone field.
  if (/^(CRON_)?TZ=/.test(spec)) return 'a time zone prefix (TZ= or CRON_TZ=) is not allowed in the schedule; use the timeZone field';
  if (spec.startsWith('@')) return descriptorError(spec);
  const fields = spec.split(GO_SPACES);
  if (fields.length !== 5) {
    return `expected exactly 5 fields (minute hour day-of-month month day-of-week), found ${fields.length}`;
  }
  for (let i = 0; i < 5; i++) {
    const problem = fieldError(fields[i]!, i);
    if (problem) return `${FIELD_NAMES[i]} field "${fields[i]}": ${problem}`;
  }
  return undefined;
}

function descriptorError(spec: string): string | undefined {
  if (DESCRIPTORS.has(spec)) return undefined;
  // robfig: the prefix `@every ` (one space), then the rest must parse as a Go duration.
  if (spec.startsWith('@every ')) {
    const duration = spec.slice('@every '.length);
    return goDurationNanos(duration) === undefined ? `"${duration}" is not a duration (e.g. 90s, 5m, 1h30m)` : undefined;
  }
  return `unrecognized descriptor "${spec}"; supported: ${[...DESCRIPTORS].join(', ')}, @every <duration>`;
}

/** True for `@every` with a duration under one second, which the controller runs every second. */
export function runsEverySecond(schedule: string): boolean {
  return schedule.includes('@every ') && everyUnderOneSecond(schedule);
}

const everyUnderOneSecond = memoizeVerdict((schedule: string): boolean => {
  const spec = goTrimSpace(schedule);
  if (!spec.startsWith('@every ')) return false;
  const nanos = goDurationNanos(spec.slice('@every '.length));
  return nanos !== undefined && nanos < 1_000_000_000n;
});

/** A list; robfig drops empty items, so `1,,2` is `1,2` and a field of commas alone never matches. */
function fieldError(field: string, position: number): string | undefined {
  if (!field.includes(',')) return field === '' ? undefined : itemError(field, position);
  // Each item is judged once: a list may repeat one item a million times, and the work then
  // grows with the distinct items, of which valid ones are few (a field's ranges and steps).
  for (const item of new Set(field.split(','))) {
    if (item === '') continue;
    const problem = itemError(item, position);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * One list item, `range[/step]`: the range is `*`, `?`, a value or `value-value`, where a value is
 * a number or (month and day-of-week fields) a three-letter name. cron-parser judges the item alone,
 * rewritten plainly, so that it neither refuses repeats across a list nor reads a `+` it lacks.
 */
function itemError(item: string, position: number): string | undefined {
  const [range = '', step, ...extraSteps] = item.split('/');
  if (extraSteps.length) return `"${item}" has more than one step`;
  if (step !== undefined && !isGoUint(step)) return `step "${step}" must be a number`;
  const [low = '', ...highs] = range.split('-');
  const everything = low === '*' || low === '?'; // robfig ignores what follows: `*-5` is `*`
  if (!everything) {
    if (highs.length > 1) return `"${range}" has more than one hyphen`;
    for (const value of [low, ...highs]) {
      const problem = valueError(value, position);
      if (problem) return problem;
    }
  }
  const plainRange = everything ? '*' : [low, ...highs].map(plainValue).join('-');
  const fields = ['*', '*', '*', '*', '*'];
  fields[position] = step === undefined ? plainRange : `${plainRange}/${verdictStep(step)}`;
  return cronParserError(fields.join(' '));
}

/**
 * The step as far as cron-parser's verdict goes: it refuses 0 and accepts any other, naming
 * neither in its messages. Asked about `0-59/1` for every `0-59/n`, it is asked once.
 */
const verdictStep = (step: string): string => (BigInt(step) === 0n ? '0' : '1');

/**
 * cron-parser's verdict on an expression of one list item. A call costs some 30 µs, and items
 * repeat, within a list (`1,1,1`) and across the rules of a fleet: each is asked about once.
 * With steps read as 0 or 1 and names in lower case, the items that pass number some ten
 * thousand (most of them minute ranges): the cache holds them all.
 */
const cronParserError = memoizeVerdict((expression: string): string | undefined => {
  try {
    cronParser().CronExpressionParser.parse(expression, { strict: false });
  } catch (err) {
    const message = (err as Error).message;
    // cron-parser checks this after every field has passed; robfig does not, and runs
    // `0 0 31 2 *` as a schedule that never fires.
    if (message === IMPOSSIBLE_DAY_OF_MONTH) return undefined;
    return message;
  }
  return undefined;
}, { entries: 16_384 });

const IMPOSSIBLE_DAY_OF_MONTH = 'Invalid explicit day of month definition';

function valueError(value: string, position: number): string | undefined {
  if (value === '') return 'a range needs a value on both sides of "-"';
  if (isGoUint(value)) {
    // cron-parser reads 7 as Sunday; robfig's day-of-week range ends at 6.
    if (position === DAY_OF_WEEK && BigInt(value) > 6n) return `day of week ${value} is out of range 0-6`;
    return undefined;
  }
  const lower = value.toLowerCase();
  if (position === MONTH && MONTHS.has(lower)) return undefined;
  if (position === DAY_OF_WEEK && DAYS.has(lower)) return undefined;
  return `"${value}" is not supported (only numbers, *, ?, ranges, steps, lists${position >= MONTH ? ' and names' : ''})`;
}

function isGoUint(text: string): boolean {
  return GO_UINT.test(text) && BigInt(text) <= INT64_MAX;
}

/** Numbers without sign or leading zeros; names in lower case (cron-parser's messages give their numbers). */
function plainValue(value: string): string {
  return GO_UINT.test(value) ? BigInt(value).toString() : value.toLowerCase();
}

const UNIT_NANOS = new Map<string, bigint>([
  ['ns', 1n], ['us', 1_000n], ['µs', 1_000n], ['μs', 1_000n], ['ms', 1_000_000n], ['s', 1_000_000_000n], ['m', 60_000_000_000n], ['h', 3_600_000_000_000n],
]);
const TWO_TO_63 = 1n << 63n;

/**
 * Go's time.ParseDuration (`300ms`, `-1.5h`, `2h45m`, a bare `0`), in nanoseconds, or undefined
 * where Go reports an error: a missing or unknown unit, or more than about 292 years. A port of
 * Go's own loop, overflow checks and float64 fractions included, so the verdict matches at the edges.
 */
export function goDurationNanos(text: string): bigint | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const part = /^(\d*)(?:\.(\d*))?([^\d.]*)/.exec(rest)!;
    const [consumed, whole = '', fraction, unit = ''] = part;
    if (whole === '' && !fraction) return undefined; // neither digits before nor after a point
    const unitNanos = UNIT_NANOS.get(unit);
    if (unitNanos === undefined) return undefined;
    let value = BigInt(whole || '0');
    if (value > TWO_TO_63 || value > TWO_TO_63 / unitNanos) return undefined;
    value *= unitNanos;
    if (fraction) {
      const { digits, scale } = leadingFraction(fraction);
      if (digits > 0n) {
        value += BigInt(Math.trunc(Number(digits) * (Number(unitNanos) / scale)));
        if (value > TWO_TO_63) return undefined;
      }
    }
    total += value;
    if (total > TWO_TO_63) return undefined;
    rest = rest.slice(consumed.length);
  }
  if (negative) return -total;
  return total > INT64_MAX ? undefined : total;
}

/** Go's leadingFraction: digits past what fits in int64 are dropped, not an error. */
function leadingFraction(fraction: string): { digits: bigint; scale: number } {
  let digits = 0n;
  let scale = 1;
  for (const c of fraction) {
    const next = digits * 10n + BigInt(c);
    if (digits > INT64_MAX / 10n || next > TWO_TO_63) break;
    digits = next;
    scale *= 10;
  }
  return { digits, scale };
}
