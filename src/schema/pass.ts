/**
 * The schema pass: runs a kind's validator (validators.ts) and turns ajv's error objects into
 * causes, here and nowhere else, at the field paths the schema walk gives (pointer.ts); nulls
 * the API server would drop are reported for nulls.ts to read away.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { type Cause, type Field } from '../engine/field.js';
import { forbidden, invalid, notSupported, required, tooLong, tooMany } from '../engine/field-error.js';
import { FieldPath } from '../engine/path.js';
import { formatChecks } from './formats.js';
import { compile } from './validators.js';
import { ERRORS_KEPT } from './compiler.js';
import { isRequiredProperty, sectionOfPointer, valueAt, walkAt } from './pointer.js';
import { isFieldOfObject } from './nulls.js';
import { valueLeftAsStored, type SectionRole } from '../engine/ratchet.js';
import { CAUSES_RECORDED } from '../engine/rule.js';

export interface SchemaResult {
  readonly causes: readonly Cause[];
  /** Paths of fields the schema does not know. */
  readonly unknownFields: readonly string[];
  /** The same, as path values (the schema's walk has their steps). */
  readonly unknownFieldPaths: readonly FieldPath[];
  /** Causes in values an UPDATE leaves as they were stored (see `stored` of checkSchema). */
  readonly kept: readonly Cause[];
  /**
   * Where the object holds null in an optional field the schema gives a type (a property, or
   * a map's value), as keys from the root. The API server drops such nulls before it validates
   * (apiextensions' PruneNonNullableNullsWithoutDefaults; Go decoding reads them as unset), so
   * they are no mistake: they have no cause, and the object is judged as if they were absent.
   */
  readonly nulls: readonly (readonly string[])[];
  /**
   * Set when the pass stopped early, having found CAUSES_RECORDED causes that deny the object
   * (neither kept nor in a section that does not decide): the rest would change nothing but the cost.
   */
  readonly truncated?: boolean;
  /** Set when mistakes in sections left as stored went unread past CAUSES_RECORDED of them (warnings lost). */
  readonly keptSkipped?: boolean;
  /** Set when mistakes outside what a status write judges went unread past CAUSES_RECORDED of them. */
  readonly ignoredSkipped?: boolean;
  /** Set when unknown fields in sections that decide went unlisted past CAUSES_RECORDED of them. */
  readonly unknownFieldsSkipped?: boolean;
  /**
   * Set when the validator kept fewer errors than it found (ERRORS_KEPT) and none of those it kept
   * refuses the write (they were in sections left as stored, or outside a status write): the rest
   * went unread, so the write cannot be judged (see notJudgedCause).
   */
  readonly unjudged?: boolean;
}

/**
 * The answer for every valid object, shared: nothing to allocate on the common path. Its arrays
 * are readonly by type rather than frozen: V8 iterates a frozen array on a slower path.
 */
const VALID: SchemaResult = { causes: [], unknownFields: [], unknownFieldPaths: [], kept: [], nulls: [] };

/**
 * Runs the schema pass, with `validateFn` compiled from `schema` (by default, compiled here).
 * With `stored` (the object an UPDATE replaces), a value that breaks the schema but is exactly as
 * stored is not this write's mistake: its cause goes to `kept`, as Kubernetes' CRD validation
 * ratchets unchanged values. A missing required field is never kept.
 */
export function checkSchema(
  schema: object,
  data: unknown,
  validateFn: ValidateFunction = compile(schema),
  stored?: unknown,
  sectionRole?: (section: string) => SectionRole,
): SchemaResult {
  if (validateFn(data)) return VALID;
  const errors = validateFn.errors ?? [];
  // A precompiled validator keeps the first ERRORS_KEPT errors and counts more when it found more (compiler.ts: keepFirstErrors, stopLoopsPastTheBound).
  const found = (validateFn as { errorCount?: number }).errorCount ?? errors.length;
  return toCauses(schema, data, errors, found > errors.length, stored, sectionRole);
}

export type { SectionRole };

/** The top-level field an error is in (see sectionOf), from its pointer alone. */
function sectionOfError(e: ErrorObject): string {
  const path = e.instancePath;
  if (path === '') {
    if (e.keyword === 'required') return (e.params as { missingProperty: string }).missingProperty;
    if (e.keyword === 'additionalProperties') return (e.params as { additionalProperty: string }).additionalProperty;
    return '';
  }
  return sectionOfPointer(path);
}

function describeType(type: string | string[] | undefined): string {
  if (Array.isArray(type)) return type.join(' or ');
  return type ?? 'unknown';
}

/** An enum's values as strings; the enum is the schema's own array, so the answer is kept with it. */
const stringLists = new WeakMap<readonly unknown[], string[]>();
function asStrings(values: readonly unknown[]): string[] {
  let strings = stringLists.get(values);
  if (!strings) stringLists.set(values, (strings = values.map(String)));
  return strings;
}

/**
 * The causes of ajv's errors. `sectionRole` names the sections whose mistakes cannot refuse the
 * write (outside a status write; left as stored by an UPDATE): past CAUSES_RECORDED of those,
 * the rest are not read, and past CAUSES_RECORDED causes that do refuse it, nothing more is.
 */
function toCauses(rootSchema: object, data: unknown, errors: ErrorObject[], moreFound: boolean, stored: unknown, sectionRole: ((section: string) => SectionRole) | undefined): SchemaResult {
  const all: Cause[] = [];
  const unknownFields: string[] = [];
  const unknownFieldPaths: FieldPath[] = [];
  const nulls: string[][] = [];
  const keptPaths = new Set<string>();
  let mistypedPaths: Set<string> | undefined;
  let denying = 0;
  let truncated = false;
  // Those that cannot refuse it have a bound each, so that one kind cannot crowd out the other's.
  let keptRead = 0;
  let keptSkipped = false;
  let ignoredRead = 0;
  let ignoredSkipped = false;
  let decidingUnknownFields = 0;
  let unknownFieldsSkipped = false;
  for (const e of errors) {
    if (denying >= CAUSES_RECORDED) {
      truncated = true;
      break;
    }
    const role = sectionRole === undefined ? 'decides' : sectionRole(sectionOfError(e));
    const deciding = role === 'decides';
    if (role === 'kept' && ++keptRead > CAUSES_RECORDED) {
      keptSkipped = true;
      continue;
    }
    if (role === 'ignored' && ++ignoredRead > CAUSES_RECORDED) {
      ignoredSkipped = true;
      continue;
    }
    const causesBefore = all.length;
    const walk = walkAt(rootSchema, e.instancePath);
    const path = walk.path;
    if (e.keyword === 'required') {
      const cause = required(path.child((e.params as { missingProperty: string }).missingProperty));
      all.push(cause);
      if (deciding) denying++;
      continue;
    }
    if (e.keyword === 'additionalProperties') {
      // Those that cannot refuse the write are bounded above; those that can, here: past the bound they only
      // add warnings, or, with strict, causes to an object refused for the ones listed.
      if (!deciding || ++decidingUnknownFields <= CAUSES_RECORDED) {
        const unknown = path.child((e.params as { additionalProperty: string }).additionalProperty);
        unknownFieldPaths.push(unknown);
        unknownFields.push(unknown.toString());
      } else unknownFieldsSkipped = true;
      continue;
    }
    const value = valueAt(data, walk.segments);
    // `field:` with no value is null in YAML: for a required field that is a missing value, never
    // kept, whichever of the field's keywords (type, enum) ajv reports it under.
    const missing = value === null && isRequiredProperty(rootSchema, e.instancePath);
    if (stored !== undefined && !missing && valueLeftAsStored(value, valueAt(stored, walk.segments))) keptPaths.add(path.toString());
    switch (e.keyword) {
      case 'type':
        (mistypedPaths ??= new Set()).add(path.toString());
        if (missing) {
          // A list that must not be empty says so, as for `[]`.
          const at = walk.schema as { minItems?: number } | undefined;
          all.push((at?.minItems ?? 0) >= 1 ? required(path, 'must have at least one item') : required(path));
        } else if (value === null && isFieldOfObject(data, walk)) {
          nulls.push([...walk.segments]);
        } else all.push(invalid(path, value, `must be of type ${describeType((e.params as { type: string | string[] }).type)}`));
        break;
      case 'enum':
        // An empty required enum field is missing, as for any required string (Kubernetes reports `Required value`).
        if (value === '' && isRequiredProperty(rootSchema, e.instancePath)) all.push(required(path));
        else all.push(notSupported(path, value, asStrings((e.params as { allowedValues: unknown[] }).allowedValues)));
        break;
      case 'const':
        all.push(notSupported(path, value, [String((e.params as { allowedValue: unknown }).allowedValue)]));
        break;
      case 'minimum':
      case 'maximum': {
        // The failing bound is ajv's; the schema is asked only whether there is another one.
        const limit = (e.params as { limit: number }).limit;
        const at = walk.schema;
        const minimum = e.keyword === 'minimum' ? limit : at?.minimum;
        const maximum = e.keyword === 'maximum' ? limit : at?.maximum;
        if (minimum !== undefined && maximum !== undefined) {
          all.push(invalid(path, value, `must be between ${minimum} and ${maximum}, inclusive`));
        } else if (e.keyword === 'minimum') {
          all.push(invalid(path, value, `must be greater than or equal to ${minimum}`));
        } else {
          all.push(invalid(path, value, `must be less than or equal to ${maximum}`));
        }
        break;
      }
      case 'minLength': {
        const limit = (e.params as { limit: number }).limit;
        all.push(limit === 1 ? required(path) : invalid(path, value, `must be at least ${limit} characters`));
        break;
      }
      case 'maxLength':
        all.push(tooLong(path, (e.params as { limit: number }).limit));
        break;
      case 'minItems': {
        const limit = (e.params as { limit: number }).limit;
        all.push(limit === 1 ? required(path, 'must have at least one item') : invalid(path, value, `must have at least ${limit} items`));
        break;
      }
      case 'maxItems':
        all.push(tooMany(path, Array.isArray(value) ? value.length : 0, (e.params as { limit: number }).limit));
        break;
      case 'format': {
        const format = (e.params as { format: string }).format;
        const check = formatChecks[format];
        all.push(invalid(path, value, (typeof value === 'string' && check?.(value)) || `must be a valid ${format}`));
        break;
      }
      default:
        all.push(invalid(path, value, `does not satisfy the schema's ${e.keyword}`));
    }
    if (deciding && all.length > causesBefore && !keptPaths.has(path.toString())) denying++;
  }
  // The validator kept fewer errors than it found, and the pass read them all: it needed more.
  const unread = moreFound && !truncated;
  if (unread) truncated = true;
  // Only mistakes that cannot refuse the write were read: what the unread ones would do is unknown.
  const unjudged = unread && denying === 0;
  const causes = all.length > 1 ? withoutEchoes(all, mistypedPaths) : all;
  const more = truncated || keptSkipped || ignoredSkipped || unknownFieldsSkipped ? { truncated, keptSkipped, ignoredSkipped, unknownFieldsSkipped, ...(unjudged ? { unjudged } : {}) } : undefined;
  if (keptPaths.size === 0) return { causes, unknownFields, unknownFieldPaths, kept: [], nulls, ...more };
  // A Required cause is at the missing field's path, which no kept value has.
  return { causes: causes.filter((c) => !keptPaths.has(c.field)), unknownFields, unknownFieldPaths, kept: causes.filter((c) => keptPaths.has(c.field)), nulls, ...more };
}

/** The causes without those that only repeat another mistake at the same field. */
function withoutEchoes(causes: Cause[], mistypedPaths: ReadonlySet<string> | undefined): Cause[] {
  // An empty required string fails minLength and usually its format too; the Required cause says it all.
  const requiredPaths = new Set(causes.filter((c) => c.type === 'FieldValueRequired').map((c) => c.field));
  let kept = requiredPaths.size ? causes.filter((c) => c.type === 'FieldValueRequired' || !requiredPaths.has(c.field)) : causes;
  // A value of the wrong type also fails the enum of its field (`syncMode: 5`); the type cause says it all.
  if (mistypedPaths) kept = kept.filter((c) => c.type !== 'FieldValueNotSupported' || !mistypedPaths.has(c.field));
  return kept;
}

/** The cause that refuses a write the schema pass could not judge (SchemaResult.unjudged). */
export function notJudgedCause(): Cause {
  return forbidden(FieldPath.root, `not judged: the schema pass found more than ${ERRORS_KEPT} mistakes and read the first ${ERRORS_KEPT}, none of which refuses this write`);
}

/** The cause reported for an unknown field when unknown fields are errors. */
export function unknownFieldCause(path: Field): Cause {
  return forbidden(path, 'unknown field');
}

