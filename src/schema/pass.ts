/**
 * The schema pass. Validators come precompiled with the build (see
 * schema-compiler.ts) or, when running from source, are compiled once per schema;
 * ajv's error objects are turned into causes here and nowhere else.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { unescapeToken } from 'rfc6902/pointer.js';
import { forbidden, invalid, notSupported, required, tooLong, tooMany, type Cause, type Field } from '../engine/field.js';
import { FieldPath } from '../engine/path.js';
import { ajvFormats, formatChecks } from './formats.js';
import { GENERATED_VALIDATORS, compileSchema, schemaHash } from './compiler.js';
import { memoizeVerdict, ownCopy } from '../checks/memo.js';
import { isRecord } from '../util/is.js';
import { valueLeftAsStored, type SectionRole } from '../engine/ratchet.js';
import { CAUSES_RECORDED } from '../engine/rule.js';

interface Precompiled {
  validators: Record<string, ValidateFunction>;
  schemaHashes: Record<string, string>;
}

/** How the precompiled module is read: `require` in production, a stand-in in tests. */
export type ModuleReader = (request: string) => unknown;

/** The build's precompiled validators, or null when running from source (or the build did not make them). */
function loadPrecompiled(read: ModuleReader): Precompiled | null {
  const request = `./${GENERATED_VALIDATORS}`;
  let factory: ((formats: typeof ajvFormats) => Record<string, ValidateFunction>) & { schemaHashes: Record<string, string> };
  try {
    factory = read(request) as typeof factory;
  } catch (err) {
    // Only the module itself missing means "not built"; anything it fails to load is an error.
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'MODULE_NOT_FOUND' && e.message.split('\n', 1)[0]!.includes(request)) return null;
    throw new Error(`cannot load the precompiled validators (${GENERATED_VALIDATORS}): ${e.message.split('\n', 1)[0]}; rebuild with npm run build`, { cause: err });
  }
  return { validators: factory(ajvFormats), schemaHashes: factory.schemaHashes };
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles a schema once; later calls with the same schema object reuse the validator. */
export function compile(schema: object, owner?: string): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = compileSchema(schema, owner);
    compiled.set(schema, fn);
  }
  return fn;
}

/**
 * A kindValidator over the precompiled module `read` gives (read at the first use, once): the
 * process has one, below; tests make their own.
 */
export function kindValidatorReading(read: ModuleReader): (rules: { kind: string; schema: object }) => ValidateFunction {
  let precompiled: Precompiled | null | undefined;
  /** A precompiled module that exists but cannot load is an error on every use, not re-read each time. */
  let loadFailure: unknown;
  const byKind = new WeakMap<object, ValidateFunction>();
  return (rules) => {
    let fn = byKind.get(rules);
    if (!fn) {
      if (loadFailure !== undefined) throw loadFailure;
      if (precompiled === undefined) {
        try {
          precompiled = loadPrecompiled(read);
        } catch (err) {
          loadFailure = err;
          throw err;
        }
      }
      const candidate = precompiled?.validators[rules.kind];
      fn = candidate && precompiled!.schemaHashes[rules.kind] === schemaHash(rules.schema) ? candidate : compile(rules.schema, rules.kind);
      byKind.set(rules, fn);
    }
    return fn;
  };
}

/**
 * The validator of a served kind: the precompiled one when the build made it from this very
 * schema (a build that stopped half way, or a watch that rebuilt only the rules, leaves a
 * stale one), otherwise one compiled here. Decided once per kind.
 */
// The build writes the module beside the package's entry point (dist/src/), one folder up.
export const kindValidator = kindValidatorReading(createRequire(new URL('../index.js', import.meta.url)));

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
  return toCauses(schema, data, validateFn.errors ?? [], stored, sectionRole);
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
  const end = path.indexOf('/', 1);
  return unescapePointer(end < 0 ? path.slice(1) : path.slice(1, end));
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
  return walkAt(rootSchema, pointer).path.toString();
}

const ROOT_WALK = (rootSchema: object): Walk => ({ path: FieldPath.root, schema: rootSchema as JsonSchema, segments: [] });
const walkAt = (rootSchema: object, pointer: string): Walk => (pointer === '' ? ROOT_WALK(rootSchema) : walkOf(rootSchema)(pointer));

/** The same mistakes recur at the same places; the walk through the schema is done once per place. */
function walkOf(rootSchema: object): (pointer: string) => Walk {
  let walk = walks.get(rootSchema);
  if (!walk) {
    // The keys are pieces of the pointer, which may hold a key cut from a whole file: they are kept as copies.
    // A walk keeps about twice its pointer (path and keys), and there is a cache per kind: 1,024
    // places keep the worst case (pointers of 512 characters) near 2 MiB a kind, 3.3 MiB when
    // every key is in a script outside Latin-1 (two bytes a character).
    walk = memoizeVerdict(
      (pointer: string) => walkSegments(rootSchema, pointer.slice(1).split('/').map((segment) => ownCopy(unescapePointer(segment)))),
      { entries: WALKS_KEPT },
    );
    walks.set(rootSchema, walk);
  }
  return walk;
}

interface Walk {
  /** The field path, made of the segments below: its text is rendered when a cause asks for it. */
  path: FieldPath;
  schema: JsonSchema | undefined;
  /**
   * The pointer's keys, unescaped. Kept with the walk, the same strings serve every read of the
   * data at this place: V8 turns a key into its property-name form once, where a key cut from
   * the pointer anew would need that on every read.
   */
  segments: readonly string[];
}

const walks = new WeakMap<object, (pointer: string) => Walk>();
/** Places remembered per kind: the mistakes people make recur at far fewer. */
const WALKS_KEPT = 1024;

/**
 * Walks the schema along the data at an instance path (ajv's instancePath): the field path
 * it names, and the schema that applies there (undefined once the data leaves the schema).
 * Not through ajv's schemaPath, which is relative to whichever function ajv compiled: the
 * causes do not depend on how the validator was split.
 */
function walkSegments(rootSchema: object, segments: readonly string[]): Walk {
  let schema: JsonSchema | undefined = rootSchema as JsonSchema;
  let path = FieldPath.root;
  for (const segment of segments) {
    if (schema?.items && /^\d+$/.test(segment)) {
      path = path.index(Number(segment));
      schema = schema.items;
    } else if (schema?.properties && segment in schema.properties) {
      path = path.child(segment);
      schema = schema.properties[segment];
    } else if (schema?.patternProperties) {
      path = path.key(segment);
      schema = Object.values(schema.patternProperties)[0];
    } else if (schema && typeof schema.additionalProperties === 'object') {
      path = path.key(segment);
      schema = schema.additionalProperties;
    } else {
      path = /^\d+$/.test(segment) ? path.index(Number(segment)) : path.child(segment);
      schema = undefined;
    }
  }
  return { path, schema, segments };
}

function describeType(type: string | string[] | undefined): string {
  if (Array.isArray(type)) return type.join(' or ');
  return type ?? 'unknown';
}

const unescapePointer = (segment: string) => (segment.includes('~') ? unescapeToken(segment) : segment);

/** The value at the place keys from the root (a walk's segments) describe. */
function valueAt(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    // Read as ajv reads it, inherited values included, but for a map key "__proto__" the object
    // lacks: that read is Object.prototype, which compares equal to {}.
    if (segment === '__proto__' && !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The schema that applies to the value at an instance path. */
const schemaAt = (rootSchema: object, instancePath: string): JsonSchema | undefined => walkAt(rootSchema, instancePath).schema;

/** Whether the value at `instancePath` is a property its object's schema requires. */
function isRequiredProperty(rootSchema: object, instancePath: string): boolean {
  const slash = instancePath.lastIndexOf('/');
  if (slash < 0) return false;
  const owner = schemaAt(rootSchema, instancePath.slice(0, slash)) as { required?: unknown; properties?: object } | undefined;
  const name = unescapePointer(instancePath.slice(slash + 1));
  return Boolean(owner?.properties && name in owner.properties) && Array.isArray(owner?.required) && owner.required.includes(name);
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
function toCauses(rootSchema: object, data: unknown, errors: ErrorObject[], stored: unknown, sectionRole: ((section: string) => SectionRole) | undefined): SchemaResult {
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
  const causes = all.length > 1 ? withoutEchoes(all, mistypedPaths) : all;
  const more = truncated || keptSkipped || ignoredSkipped || unknownFieldsSkipped ? { truncated, keptSkipped, ignoredSkipped, unknownFieldsSkipped } : undefined;
  if (keptPaths.size === 0) return { causes, unknownFields, unknownFieldPaths, kept: [], nulls, ...more };
  // A Required cause is at the missing field's path, which no kept value has.
  return { causes: causes.filter((c) => !keptPaths.has(c.field)), unknownFields, unknownFieldPaths, kept: causes.filter((c) => keptPaths.has(c.field)), nulls, ...more };
}

const isObjectMetaMapValue = (place: readonly string[]): boolean =>
  place.length === 3 && place[0] === 'metadata' && (place[1] === 'labels' || place[1] === 'annotations');

/** Whether the place a walk describes is a field of an object (a property or a map's value), not a list's item or the root. */
const isFieldOfObject = (root: unknown, walk: Walk): boolean => walk.segments.length > 0 && isRecord(valueAt(root, walk.segments.slice(0, -1)));

/**
 * A copy of `object` with the nulls at `places` (keys from the root, as SchemaResult.nulls gives
 * them) read as the API server reads them: removed, but for a label's or an annotation's value,
 * which ObjectMeta's Go decoding reads as '' (so its key is still judged). Only the objects on
 * the way to a null are copied; the rest is shared.
 */
export function readNulls(object: Record<string, unknown>, places: readonly (readonly string[])[]): Record<string, unknown> {
  const copies = new Map<object, Record<string, unknown>>();
  const copyOf = (node: object): Record<string, unknown> => {
    let copy = copies.get(node);
    if (!copy) copies.set(node, (copy = (Array.isArray(node) ? [...node] : { ...node }) as Record<string, unknown>));
    return copy;
  };
  const root = copyOf(object);
  for (const place of places) {
    let original: Record<string, unknown> = object;
    let copy = root;
    for (const key of place.slice(0, -1)) {
      original = original[key] as Record<string, unknown>;
      copy = copy[key] = copyOf(original);
    }
    const key = place[place.length - 1]!;
    if (isObjectMetaMapValue(place)) copy[key] = '';
    else delete copy[key];
  }
  return root;
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

/** The cause reported for an unknown field when unknown fields are errors. */
export function unknownFieldCause(path: Field): Cause {
  return forbidden(path, 'unknown field');
}

