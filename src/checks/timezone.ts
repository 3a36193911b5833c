/** IANA time zone names, checked with luxon (which uses the runtime's ICU data). */
import { IANAZone } from 'luxon';

// Asking ICU builds an Intl.DateTimeFormat (tens of µs); the set of zones in use is small.
const cache = new Map<string, string | undefined>();
const CACHE_LIMIT = 1024;

/**
 * Returns why `zone` is not an IANA time zone name, or undefined when it is.
 * ICU matches names case-insensitively but the controller (Go's time.LoadLocation)
 * does not, so every segment must start upper-case as in the IANA database.
 */
export function timeZoneError(zone: string): string | undefined {
  if (cache.has(zone)) return cache.get(zone);
  const result = check(zone);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(zone, result);
  return result;
}

function check(zone: string): string | undefined {
  if (zone === '') return 'must be an IANA time zone name such as "Europe/Berlin", or omitted';
  if (zone === 'Local') return 'must be an explicit IANA time zone name; "Local" depends on where the controller runs';
  if (!IANAZone.isValidZone(zone) || !zone.split('/').every((segment) => /^[A-Z]/.test(segment))) {
    return `unknown time zone ${zone}`;
  }
  return undefined;
}
