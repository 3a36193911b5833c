/**
 * The one Ajv instance. Schemas are compiled once per kind; ajv's error objects are
 * turned into causes here and nowhere else.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { child, forbidden, index, invalid, key, notSupported, required, tooLong, tooMany, type Cause } from './field.js';
import * as names from './checks/names.js';
import { QUANTITY_FORMAT_MESSAGE, isQuantity } from './checks/quantity.js';
import { cronScheduleError } from './checks/cron.js';
import { timeZoneError } from './checks/timezone.js';

// ajv-formats ships CommonJS with a default export that ESM sees one level down.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
  formats: string[],
) => Ajv;

/**
 * Formats used by the kind schemas. Each returns the problem as a message, so the
 * cause says exactly what is wrong; ajv only needs the yes/no.
 */
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

// Not `verbose`: it slows every validation down, while the error path can resolve what it needs from the paths.
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, validateFormats: true });
addFormats(ajv, ['date-time', 'byte']);
for (const [name, check] of Object.entries(formatChecks)) {
  if (name === 'date-time' || name === 'byte') continue;
  ajv.addFormat(name, { type: 'string', validate: (v: string) => check(v) === undefined });
}
// Editor-facing annotations that carry no validation.
ajv.addKeyword({ keyword: 'x-kubernetes-preserve-unknown-fields' });

const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles a schema once; later calls with the same schema object reuse the validator. */
export function compile(schema: object): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

export interface SchemaResult {
  causes: Cause[];
  /** Paths of fields the schema does not know. */
  unknownFields: string[];
}

/** Runs the schema pass. */
export function checkSchema(schema: object, data: unknown): SchemaResult {
  const validateFn = compile(schema);
  if (validateFn(data)) return { causes: [], unknownFields: [] };
  return toCauses(schema, data, validateFn.errors ?? []);
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
};

/** Turns a JSON pointer into a field path, rendering map keys as `[key]` and struct fields as `.name`. */
export function pointerToPath(rootSchema: object, pointer: string): string {
  if (pointer === '') return '';
  let schema: JsonSchema | undefined = rootSchema as JsonSchema;
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = unescapePointer(raw);
    if (schema?.items && /^\d+$/.test(segment)) {
      path = index(path, Number(segment));
      schema = schema.items;
    } else if (schema?.properties && segment in schema.properties) {
      path = child(path, segment);
      schema = schema.properties[segment];
    } else if (schema?.patternProperties) {
      path = key(path, segment);
      schema = Object.values(schema.patternProperties)[0];
    } else if (schema && typeof schema.additionalProperties === 'object') {
      path = key(path, segment);
      schema = schema.additionalProperties;
    } else {
      path = /^\d+$/.test(segment) ? index(path, Number(segment)) : child(path, segment);
      schema = undefined;
    }
  }
  return path;
}

function describeType(type: string | string[] | undefined): string {
  if (Array.isArray(type)) return type.join(' or ');
  return type ?? 'unknown';
}

const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** The value a JSON pointer (ajv's instancePath, or a schemaPath without its leading '#') points at. */
function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[unescapePointer(raw)];
  }
  return node;
}

/** Whether the keyword at `schemaPath` (`#/.../properties/<name>/<keyword>`) sits on a required property of its object. */
function isRequiredProperty(rootSchema: object, schemaPath: string): boolean {
  const match = /^#(.*)\/properties\/([^/]+)\/[^/]+$/.exec(schemaPath);
  if (!match) return false;
  const owner = resolvePointer(rootSchema, match[1]!) as { required?: unknown } | undefined;
  return Array.isArray(owner?.required) && owner.required.includes(unescapePointer(match[2]!));
}

function toCauses(rootSchema: object, data: unknown, errors: ErrorObject[]): SchemaResult {
  const causes: Cause[] = [];
  const unknownFields: string[] = [];
  for (const e of errors) {
    const path = pointerToPath(rootSchema, e.instancePath);
    // schemaPath is `#/.../<keyword>`; its parent is the schema that holds the keyword.
    const parent = (resolvePointer(rootSchema, e.schemaPath.slice(1).replace(/\/[^/]*$/, '')) ?? {}) as JsonSchema;
    const value = resolvePointer(data, e.instancePath);
    switch (e.keyword) {
      case 'required':
        causes.push(required(child(path, (e.params as { missingProperty: string }).missingProperty)));
        break;
      case 'additionalProperties':
        unknownFields.push(child(path, (e.params as { additionalProperty: string }).additionalProperty));
        break;
      case 'type':
        // `field:` with no value is null in YAML: for a required field that is a missing value.
        if (value === null && isRequiredProperty(rootSchema, e.schemaPath)) causes.push(required(path));
        else causes.push(invalid(path, value, `must be of type ${describeType((e.params as { type: string | string[] }).type)}`));
        break;
      case 'enum':
        // An empty required enum field is missing, as for any required string (Kubernetes reports `Required value`).
        if (value === '' && isRequiredProperty(rootSchema, e.schemaPath)) causes.push(required(path));
        else causes.push(notSupported(path, value, (e.params as { allowedValues: unknown[] }).allowedValues.map(String)));
        break;
      case 'const':
        causes.push(notSupported(path, value, [String((e.params as { allowedValue: unknown }).allowedValue)]));
        break;
      case 'minimum':
      case 'maximum':
        if (parent.minimum !== undefined && parent.maximum !== undefined) {
          causes.push(invalid(path, value, `must be between ${parent.minimum} and ${parent.maximum}, inclusive`));
        } else if (e.keyword === 'minimum') {
          causes.push(invalid(path, value, `must be greater than or equal to ${parent.minimum}`));
        } else {
          causes.push(invalid(path, value, `must be less than or equal to ${parent.maximum}`));
        }
        break;
      case 'minLength': {
        const limit = (e.params as { limit: number }).limit;
        causes.push(limit === 1 ? required(path) : invalid(path, value, `must be at least ${limit} characters`));
        break;
      }
      case 'maxLength':
        causes.push(tooLong(path, (e.params as { limit: number }).limit));
        break;
      case 'minItems': {
        const limit = (e.params as { limit: number }).limit;
        causes.push(limit === 1 ? required(path, 'must have at least one item') : invalid(path, value, `must have at least ${limit} items`));
        break;
      }
      case 'maxItems':
        causes.push(tooMany(path, Array.isArray(value) ? value.length : 0, (e.params as { limit: number }).limit));
        break;
      case 'format': {
        const format = (e.params as { format: string }).format;
        const check = formatChecks[format];
        causes.push(invalid(path, value, (typeof value === 'string' && check?.(value)) || `must be a valid ${format}`));
        break;
      }
      default:
        causes.push(invalid(path, value, e.message ?? 'is invalid'));
    }
  }
  // An empty required string fails minLength and usually its format too; the Required cause says it all.
  const requiredPaths = new Set(causes.filter((c) => c.type === 'FieldValueRequired').map((c) => c.field));
  let kept = requiredPaths.size ? causes.filter((c) => c.type === 'FieldValueRequired' || !requiredPaths.has(c.field)) : causes;
  // A value of the wrong type also fails the enum of its field (`syncMode: 5`); the type cause says it all.
  const mistypedPaths = new Set(errors.filter((e) => e.keyword === 'type').map((e) => pointerToPath(rootSchema, e.instancePath)));
  if (mistypedPaths.size) kept = kept.filter((c) => c.type !== 'FieldValueNotSupported' || !mistypedPaths.has(c.field));
  return { causes: kept, unknownFields };
}

/** The cause reported for an unknown field when unknown fields are errors. */
export function unknownFieldCause(path: string): Cause {
  return forbidden(path, 'unknown field');
}

