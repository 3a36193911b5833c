/**
 * The string formats the kind schemas use. Each check returns the problem as a
 * message, so a cause says exactly what is wrong; ajv only needs the yes/no, in the
 * shape `ajvFormats` gives it. The runtime compiler and the precompiled validators
 * both take their formats from here.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Format, FormatDefinition } from 'ajv';
import * as names from '../checks/names.js';
import { QUANTITY_FORMAT_MESSAGE, isQuantity } from '../checks/quantity.js';
import { cronScheduleError } from '../checks/cron.js';
import { timeZoneError } from '../checks/timezone.js';
import { memoizeVerdict } from '../checks/memo.js';

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
 * offsets allowed) with every field in range, days of the month included: the whole
 * date-time format (see dateTime below).
 */
const CANONICAL_DATE_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
/** The number written by the two (or four) ASCII digits at `at`; the regular expression has placed them. */
const twoDigits = (v: string, at: number) => (v.charCodeAt(at) - 48) * 10 + v.charCodeAt(at + 1) - 48;

export function isCanonicalDateTime(value: string): boolean {
  // test() and fixed offsets: no match array and no substrings on the hot path.
  if (!CANONICAL_DATE_TIME.test(value)) return false;
  const day = twoDigits(value, 8);
  if (day <= 28) return true;
  const month = twoDigits(value, 5);
  const year = twoDigits(value, 0) * 100 + twoDigits(value, 2);
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month]!);
}

/**
 * Base64 as ajv-formats' byte format reads it (groups of four alphabet characters, the
 * last group padded with one or two `=`), said as a flat character class and a length:
 * the same strings, without the backtracking that costs a long caBundle dearly.
 */
const BASE64_CHARACTERS = /^[A-Za-z0-9+/]*={0,2}$/;
export const isBase64 = (value: string): boolean => value.length % 4 === 0 && BASE64_CHARACTERS.test(value);

/**
 * RFC 3339's grammar (section 5.6) as the control plane reads it: metav1.Time parses with Go's
 * time.Parse(time.RFC3339), which wants `T` and `Z` in upper case (RFC 3339 allows either), every
 * field in range and no leap second. That is exactly the canonical form above. ajv-formats also
 * takes a space for the `T`, offsets such as `+0100`, and, through its leap-second rule, an hour
 * of 24 or a minute of 60 whose offset brings it to 23:59 UTC (`24:00:00+00:01`), which Go
 * refuses. test/checks/date-time-go.test.ts holds this to Go's parser. ajv-formats' definition
 * still supplies the comparison that formatMinimum and formatMaximum use.
 */
const dateTime: FormatDefinition<string> = { ...(fullFormats['date-time'] as FormatDefinition<string>), validate: isCanonicalDateTime };

/** Every format as ajv takes it: ajv-formats' own for the two standard ones, the checks above for the rest. */
export const ajvFormats: Record<string, Format> = Object.fromEntries(
  Object.entries(formatChecks).map(([name, check]) => [
    name,
    name === 'date-time' ? dateTime : name === 'byte' ? { type: 'string', validate: isBase64 } : { type: 'string', validate: (v: string) => check(v) === undefined },
  ]),
);
