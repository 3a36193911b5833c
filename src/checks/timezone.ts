/**
 * IANA time zone names, exactly as the controller's Go `time.LoadLocation` reads them: a
 * zone or link of the IANA database (the `tzdata` package), in its spelling, that luxon
 * (the runtime's ICU data) can also use.
 */
import { lazyRequire } from '../util/lazy.js';
import { memoizeVerdict } from './memo.js';
import { shortText } from '../engine/field.js';

// The CommonJS build: cron-parser loads that one too, so the process holds one luxon, not two.
const luxon = lazyRequire<typeof import('luxon')>('luxon');
/** About 200 KB of JSON, read on the first zone a process checks. */
const ianaDatabase = lazyRequire<{ zones: Record<string, unknown> }>('tzdata');

/**
 * Returns why `zone` is not an IANA time zone name, or undefined when it is.
 * ICU alone is too lenient: it matches names case-insensitively and knows names that are
 * not IANA's (`PST`, `IST`, `SystemV/EST5EDT`), none of which Go can load.
 * Asking ICU builds an Intl.DateTimeFormat (tens of µs); the zones in use are few.
 */
export const timeZoneError: (zone: string) => string | undefined = memoizeVerdict(check, { entries: 1024 });

function check(zone: string): string | undefined {
  if (zone === '') return 'must be an IANA time zone name such as "Europe/Berlin", or omitted';
  if (zone === 'Local') return 'must be an explicit IANA time zone name; "Local" depends on where the controller runs';
  if (!Object.hasOwn(ianaDatabase().zones, zone) || !luxon().IANAZone.isValidZone(zone)) return `unknown time zone ${shortText(zone)}`;
  return undefined;
}
