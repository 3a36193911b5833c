/**
 * The policy test-suite file (`fleetgate-test.yaml`, documented in test/policies/README.md) as a
 * JSON schema, checked by ajv as the kinds are. Each property's `description` completes "… must
 * be" in the problem reported when a value breaks it, and its `title` says what a missing
 * required one is (see problems.ts); what a schema cannot say (a repeated case name, an UPDATE
 * without its stored object) the reader checks.
 */
import type { CauseType } from '../../engine/field.js';

/** A cause's type as a suite may name it: Kubernetes' short names, or the API's. */
export const CAUSE_TYPES: Readonly<Record<string, CauseType>> = (() => {
  const short: Record<string, CauseType> = {
    Required: 'FieldValueRequired',
    Invalid: 'FieldValueInvalid',
    Duplicate: 'FieldValueDuplicate',
    NotSupported: 'FieldValueNotSupported',
    Forbidden: 'FieldValueForbidden',
    TooLong: 'FieldValueTooLong',
    TooMany: 'FieldValueTooMany',
  };
  return { ...short, ...Object.fromEntries(Object.values(short).map((t) => [t, t])) };
})();

export const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE'] as const;
export const PATCH_OPS = ['add', 'replace', 'test', 'remove', 'move', 'copy'] as const;
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const EXAMPLE_UUID = '00000000-0000-4000-8000-000000000000';

const list = (values: readonly string[]) => values.join(', ');
const BOOLEAN = { type: 'boolean', description: 'true or false' } as const;
const NON_EMPTY_STRING = { type: 'string', minLength: 1 } as const;

const patchOperation = {
  type: 'object',
  description: 'a mapping',
  properties: {
    op: { enum: PATCH_OPS, description: `one of ${list(PATCH_OPS)}` },
    path: { type: 'string', pattern: '^(/.*)?$', description: 'a JSON Pointer such as /spec/taints/0/effect' },
    value: {},
    from: { type: 'string', pattern: '^(/.*)?$', description: 'a JSON Pointer such as /spec/taints/0/effect' },
  },
  additionalProperties: false,
  required: ['op'],
} as const;

const patch = (what: string) => ({ type: 'array', items: patchOperation, description: what }) as const;

const expectedCause = {
  type: 'object',
  description: 'a mapping',
  properties: {
    field: { type: 'string', title: 'a path such as spec.taints[0].effect' },
    type: {
      enum: Object.keys(CAUSE_TYPES),
      title: 'e.g. Required or FieldValueRequired',
      description: `one of ${list(Object.keys(CAUSE_TYPES).filter((t) => !t.startsWith('FieldValue')))} (or the API names, FieldValueRequired, ...)`,
    },
    message: NON_EMPTY_STRING,
  },
  additionalProperties: false,
  required: ['field', 'type'],
} as const;

const expectation = {
  type: 'object',
  description: 'a mapping',
  properties: {
    allowed: BOOLEAN,
    causes: {
      type: 'array',
      minItems: 1,
      items: expectedCause,
      description: 'a non-empty list of {field, type}; leave it out to accept any denial',
    },
    warnings: {
      type: 'array',
      items: NON_EMPTY_STRING,
      description: 'a list of non-empty strings (each must occur in some warning; [] means none)',
    },
    defaults: patch('a list of JSON Patch operations ({op, path, value})'),
  },
  additionalProperties: false,
} as const;

const testCase = {
  type: 'object',
  description: 'a mapping',
  properties: {
    name: NON_EMPTY_STRING,
    object: {
      anyOf: [NON_EMPTY_STRING, { type: 'object' }],
      title: 'a file path relative to the suite, or the object inline',
      description: 'a file path or an inline object',
    },
    patch: patch('a list of JSON Patch operations ({op, path, value})'),
    operation: { enum: OPERATIONS, description: `one of ${list(OPERATIONS)}` },
    oldObject: { anyOf: [NON_EMPTY_STRING, { type: 'object' }], description: 'a file path or an inline object' },
    subResource: { const: 'status', description: '"status" (the only subresource these kinds have)' },
    context: {
      anyOf: [NON_EMPTY_STRING, { type: 'array', minItems: 1, items: NON_EMPTY_STRING }],
      description: 'a file or folder path, or a list of them',
    },
    strict: BOOLEAN,
    groupDomain: NON_EMPTY_STRING,
    allowNoExecuteTaintPolicy: BOOLEAN,
    // The date-time format timestamps in objects are held to: every field in range, February 30 included.
    now: { type: 'string', format: 'date-time', description: 'an RFC 3339 time such as 2026-01-01T00:00:00Z' },
    // Lower case, as crypto.randomUUID and Go's uuid write them.
    uuid: { type: 'string', pattern: UUID_PATTERN, description: `a UUID in lower case, such as ${EXAMPLE_UUID}` },
    expect: expectation,
  },
  additionalProperties: false,
  required: ['name', 'object', 'expect'],
} as const;

/** The name the build's precompiled validators give the suite schema's, beside the kinds'. */
export const SUITE_VALIDATOR = 'fleetgate-test-suite';

export const SUITE_SCHEMA = {
  type: 'object',
  description: 'a mapping',
  properties: {
    description: { type: 'string' },
    cases: { type: 'array', minItems: 1, items: testCase, title: 'a list of test cases', description: 'a non-empty list' },
  },
  additionalProperties: false,
  required: ['cases'],
} as const;

/** The subschemas of a schema as JSON: what problems.ts walks along an instance path. */
export interface SchemaNode {
  type?: string;
  title?: string;
  description?: string;
  minLength?: number;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: readonly SchemaNode[];
}

/** The suite schema as the validator loader takes a schema: precompiled by the build, compiled here from source. */
export const SUITE: { readonly kind: string; readonly schema: object } = { kind: SUITE_VALIDATOR, schema: SUITE_SCHEMA };
