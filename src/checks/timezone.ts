/** IANA time zone names, checked with luxon (which uses the runtime's ICU data). */
import { IANAZone } from 'luxon';

/**
 * Returns why `zone` is not an IANA time zone name, or undefined when it is.
 * ICU matches names case-insensitively but the controller (Go's time.LoadLocation)
 * does not, so every segment must start upper-case as in the IANA database.
 */
export function timeZoneError(zone: string): string | undefined {
  if (zone === '') return 'must be an IANA time zone name such as "Europe/Berlin", or omitted';
  if (zone === 'Local') return 'must be an explicit IANA time zone name; "Local" depends on where the controller runs';
  if (!IANAZone.isValidZone(zone) || !zone.split('/').every((segment) => /^[A-Z]/.test(segment))) {
    return `unknown time zone ${zone}`;
  }
  return undefined;
}
