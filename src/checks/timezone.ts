/** IANA time zone names, checked with luxon (which uses the runtime's ICU data). */
import { lazyRequire } from '../lazy.js';
import { memoizeVerdict } from './memo.js';

// The CommonJS build: cron-parser loads that one too, so the process holds one luxon, not two.
const luxon = lazyRequire<typeof import('luxon')>('luxon');

/**
 * Returns why `zone` is not an IANA time zone name, or undefined when it is.
 * ICU matches names case-insensitively but the controller (Go's time.LoadLocation)
 * does not, so every segment must start upper-case as in the IANA database.
 * Asking ICU builds an Intl.DateTimeFormat (tens of µs); the zones in use are few.
 */
export const timeZoneError: (zone: string) => string | undefined = memoizeVerdict(check, { entries: 1024 });

function check(zone: string): string | undefined {
  if (zone === '') return 'must be an IANA time zone name such as "Europe/Berlin", or omitted';
  if (zone === 'Local') return 'must be an explicit IANA time zone name; "Local" depends on where the controller runs';
  if (!luxon().IANAZone.isValidZone(zone) || !hasIanaCase(zone)) return `unknown time zone ${zone}`;
  return undefined;
}

/**
 * ICU resolves a zone to its canonical ID in the database's spelling; a name that differs from
 * that ID only in case is a mis-cased canonical name. Aliases (`US/Eastern`) resolve to another
 * ID, so for them only the shape is checked: every segment starts upper-case, and no IANA name
 * has a run of five capitals (`US/EASTERN`).
 */
function hasIanaCase(zone: string): boolean {
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  if (canonical.toLowerCase() === zone.toLowerCase()) return canonical === zone;
  return zone.split('/').every((segment) => /^[A-Z]/.test(segment)) && !/[A-Z]{5}/.test(zone);
}
