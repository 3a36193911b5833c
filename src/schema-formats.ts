/**
 * The string formats the kind schemas use. Each check returns the problem as a
 * message, so a cause says exactly what is wrong; ajv only needs the yes/no, in the
 * shape `ajvFormats` gives it. The runtime compiler and the precompiled validators
 * both take their formats from here.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Format, FormatDefinition } from 'ajv';
import * as names from './checks/names.js';
import { QUANTITY_FORMAT_MESSAGE, isQuantity } from './checks/quantity.js';
import { cronScheduleError } from './checks/cron.js';
import { timeZoneError } from './checks/timezone.js';
import { memoizeVerdict } from './checks/memo.js';

export const formatChecks: Record<string, (value: string) => string | undefined> = {
  'dns1123-label': names.dns1123Label,
  'dns1123-subdomain': names.dns1123Subdomain,
  'dns1035-label': names.dns1035Label,
  'qualified-name': names.qualifiedName,
  'label-value': names.labelValue,
  'path-segment-name': names.pathSegmentName,
  'cluster-name': names.clusterName,
  // Empty is "no name" (a backend port given by number), as Kubernetes reads it.
  'port-name': (v) => (v === '' ? undefined : names.portName(v)),
  'fqdn': names.fullyQualifiedDomainName,
  'ip': names.ipAddress,
  'dns-hostname': names.dnsHostname,
  'camel-case': names.camelCase,
  'camel-case-with-domain': names.camelCaseWithDomain,
  'group-version': names.groupVersion,
  // The same few spellings ('1', '500m', '4Gi') fill every resource list: one lookup each.
  'quantity': memoizeVerdict((v) => (isQuantity(v) ? undefined : QUANTITY_FORMAT_MESSAGE)),
  'cron-schedule': cronScheduleError,
  'iana-time-zone': timeZoneError,
  'date-time': () => 'must be an RFC 3339 date-time such as "2026-01-02T15:04:05Z"',
  'byte': () => 'must be base64-encoded data',
};

/**
 * The form the API server writes timestamps in (`2026-01-02T15:04:05Z`, fractions and
 * offsets allowed) with every field in range, days of the month included. It accepts
 * only what ajv-formats' date-time accepts, so asking it first changes no verdict; it
 * spares the common case ajv-formats' split and three regular expressions. Read by
 * character code at fixed places: a regular expression cost several times as much.
 */
export function isCanonicalDateTime(v: string): boolean {
  if (v.length < 20 || !isDigitAt(v, 0) || !isDigitAt(v, 1) || !isDigitAt(v, 2) || !isDigitAt(v, 3)) return false;
  if (v.charCodeAt(4) !== DASH || v.charCodeAt(7) !== DASH || v.charCodeAt(10) !== UPPER_T || v.charCodeAt(13) !== COLON || v.charCodeAt(16) !== COLON) return false;
  const month = twoDigits(v, 5);
  const day = twoDigits(v, 8);
  if (month < 1 || month > 12 || day < 1 || day > 31 || !inRange(twoDigits(v, 11), 23) || !inRange(twoDigits(v, 14), 59) || !inRange(twoDigits(v, 17), 59)) return false;
  let at = 19;
  if (v.charCodeAt(at) === DOT) {
    const fractionFrom = ++at;
    while (isDigitAt(v, at)) at++;
    if (at === fractionFrom) return false;
  }
  const zone = v.charCodeAt(at);
  if (zone === UPPER_Z) {
    if (at + 1 !== v.length) return false;
  } else if (zone === PLUS || zone === DASH) {
    if (at + 6 !== v.length || v.charCodeAt(at + 3) !== COLON || !inRange(twoDigits(v, at + 1), 23) || !inRange(twoDigits(v, at + 4), 59)) return false;
  } else return false;
  if (day <= 28) return true;
  const year = twoDigits(v, 0) * 100 + twoDigits(v, 2);
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month]!);
}

const [DASH, COLON, DOT, PLUS, UPPER_T, UPPER_Z, ZERO] = ['-', ':', '.', '+', 'T', 'Z', '0'].map((c) => c.charCodeAt(0)) as [number, number, number, number, number, number, number];
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
/** Past the end, charCodeAt is NaN, which no comparison passes. */
const isDigitAt = (v: string, at: number) => {
  const d = v.charCodeAt(at) - ZERO;
  return d >= 0 && d <= 9;
};
/** The number the two ASCII digits at `at` write, or -1. */
const twoDigits = (v: string, at: number) => (isDigitAt(v, at) && isDigitAt(v, at + 1) ? (v.charCodeAt(at) - ZERO) * 10 + v.charCodeAt(at + 1) - ZERO : -1);
const inRange = (n: number, max: number) => n >= 0 && n <= max;

/**
 * Base64 as ajv-formats' byte format reads it (groups of four alphabet characters, the
 * last group padded with one or two `=`), said as a flat character class and a length:
 * the same strings, without the backtracking that costs a long caBundle dearly.
 */
const BASE64_CHARACTERS = /^[A-Za-z0-9+/]*={0,2}$/;
export const isBase64 = (value: string): boolean => value.length % 4 === 0 && BASE64_CHARACTERS.test(value);

/**
 * RFC 3339's grammar (section 5.6) as the control plane reads it: metav1.Time parses with Go's
 * time.Parse(time.RFC3339), which wants `T` and `Z` in upper case (RFC 3339 allows either) and
 * no leap second. ajv-formats also takes a space for the `T`, offsets such as `+0100` and `+01`,
 * and `23:59:60`. test/checks/date-time-go.test.ts holds this to Go's parser.
 */
const RFC3339_SHAPE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:[0-5]\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

const fullDateTime = fullFormats['date-time'] as FormatDefinition<string> & { validate: (v: string) => boolean };
/** The canonical form first; otherwise RFC 3339's shape, with ajv-formats for the ranges of its fields. */
const dateTime: FormatDefinition<string> = {
  ...fullDateTime,
  validate: (v: string) => isCanonicalDateTime(v) || (RFC3339_SHAPE.test(v) && fullDateTime.validate(v)),
};

/** Every format as ajv takes it: ajv-formats' own for the two standard ones, the checks above for the rest. */
export const ajvFormats: Record<string, Format> = Object.fromEntries(
  Object.entries(formatChecks).map(([name, check]) => [
    name,
    name === 'date-time' ? dateTime : name === 'byte' ? { type: 'string', validate: isBase64 } : { type: 'string', validate: (v: string) => check(v) === undefined },
  ]),
);
