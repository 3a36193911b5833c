/**
 * The string formats the kind schemas use. Each check returns the problem as a
 * message, so a cause says exactly what is wrong; ajv only needs the yes/no, in the
 * shape `ajvFormats` gives it. The runtime compiler and the precompiled validators
 * both take their formats from here.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Format } from 'ajv';
import * as names from './checks/names.js';
import { QUANTITY_FORMAT_MESSAGE, isQuantity } from './checks/quantity.js';
import { cronScheduleError } from './checks/cron.js';
import { timeZoneError } from './checks/timezone.js';

export const formatChecks: Record<string, (value: string) => string | undefined> = {
  'dns1123-label': names.dns1123Label,
  'dns1123-subdomain': names.dns1123Subdomain,
  'dns1035-label': names.dns1035Label,
  'qualified-name': names.qualifiedName,
  'label-value': names.labelValue,
  'path-segment-name': names.pathSegmentName,
  'cluster-name': names.clusterName,
  'port-name': names.portName,
  'fqdn': names.fullyQualifiedDomainName,
  'ip': names.ipAddress,
  'dns-hostname': names.dnsHostname,
  'camel-case': names.camelCase,
  'camel-case-with-domain': names.camelCaseWithDomain,
  'group-version': names.groupVersion,
  'quantity': (v) => (isQuantity(v) ? undefined : QUANTITY_FORMAT_MESSAGE),
  'cron-schedule': cronScheduleError,
  'iana-time-zone': timeZoneError,
  'date-time': () => 'must be an RFC 3339 date-time such as "2026-01-02T15:04:05Z"',
  'byte': () => 'must be base64-encoded data',
};

/** Every format as ajv takes it: ajv-formats' own for the two standard ones, the checks above for the rest. */
export const ajvFormats: Record<string, Format> = Object.fromEntries(
  Object.entries(formatChecks).map(([name, check]) => [
    name,
    name === 'date-time' || name === 'byte' ? fullFormats[name] : { type: 'string', validate: (v: string) => check(v) === undefined },
  ]),
);
