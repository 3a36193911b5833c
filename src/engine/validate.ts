/**
 * The engine's judgement of one object whose kind the caller decoded (src/decode, src/admission):
 * schema pass → metadata → the kind's rules → context rules through the injected lookups →
 * the causes in object order. The kind's rules come in as an argument: the engine knows no registry.
 */
import { FieldPath, keptWarning, sectionOf, shortText, warningAt, type Cause, type Field, type Warning } from './field.js';
import { notSupported, rendered, withoutRepeats } from './field-error.js';
import { checkSchema, notJudgedCause, unknownFieldCause, type SchemaResult } from '../schema/pass.js';
import { kindValidator } from '../schema/validators.js';
import { readNulls } from '../schema/nulls.js';
import { checkMetadata, checkMetadataUpdate } from './metadata.js';
import { addCause, addWarning, apiVersion, recordWarning, groupDomainOf, UNKNOWN_SECTION, MAX_CAUSES, MAX_WARNINGS, MORE_WARNINGS, type KindRules, type Lookups, type MaybePromise, type Operation, type RuleContext, type RuleOptions } from './rule.js';
import { isRecord } from '../util/is.js';
import { holdsNull } from '../util/holds-null.js';
import { inObjectOrder } from './object-order.js';
import { deletionProtectionCause } from './deletion-protection.js';
import { sectionRoles, sectionsLeftAsStored, statusLeftAsStored } from './ratchet.js';

export interface ValidateOptions extends RuleOptions {
  /**
   * CREATE (default) or UPDATE judge `object` by every rule. DELETE judges the object being
   * deleted, `oldObject` (or `object` when there is none), by Karmada's deletion protection
   * alone, whatever its kind. CONNECT is always allowed.
   */
  operation?: Operation;
  /** The stored object: the one an UPDATE replaces, or a DELETE removes. */
  oldObject?: unknown;
  /** `status` for writes to the status subresource; a write to any other is not judged (allowed, with a warning). */
  subResource?: string;
  /** Domain suffix of the API groups; default `karmada.io`. */
  groupDomain?: string;
  /** Reads of other objects for the context rules; without them those rules are skipped with a warning. */
  lookups?: Lookups;
  /** Report unknown fields as errors instead of warnings. */
  strict?: boolean;
}

export interface ValidationResult {
  allowed: boolean;
  /** Each mistake once, in the order of the fields they name in the object (keys as it lists them, items by index). */
  causes: Cause[];
  /** What the API server passes on to kubectl as warnings. */
  warnings: string[];
  /** The same warnings, in the same order, each with the field it is about (see Warning). */
  warningDetails: Warning[];
  /**
   * Set when the object has more causes than a result lists (MAX_CAUSES, 1,000): `causes` are
   * the first found, in object order. Such an object is always refused.
   */
  truncated?: true;
}


/**
 * How to read the stored object as the webhook defaulted the write: the stored object with
 * fleetgate's defaults filled in, as the mutating webhook filled them into the write (see
 * sectionsLeftAsStored). Asked at most once.
 */
export type StoredWithDefaults = (stored: Record<string, unknown>, object: Record<string, unknown>) => Record<string, unknown>;

/**
 * Judges one object of the kind `rules` describe (the caller decoded the kind: validate(),
 * review()). Returns synchronously unless a lookup answers with a Promise. Without
 * `storedWithDefaults`, an UPDATE's stored object is read as it is.
 */
export function judgeObject(rules: KindRules, object: Record<string, unknown>, options: ValidateOptions, storedWithDefaults?: StoredWithDefaults): MaybePromise<ValidationResult> {
  const operation = options.operation ?? 'CREATE';
  const statusOnly = options.subResource === 'status';
  let stored = operation === 'UPDATE' && isRecord(options.oldObject) ? options.oldObject : undefined;
  // The schema pass; once more only where it found nulls to read away (reread), which is rare.
  let leftAsStored = stored && leftAsStoredOf(object, stored, storedWithDefaults);
  let schema = schemaPass(rules, object, stored, leftAsStored, statusOnly);
  // A stored object from the API server holds no null the schema reports; one from a test file may.
  if (schema.nulls.length || (stored && holdsNull(stored))) {
    const read = reread(rules, object, schema, stored, statusOnly, storedWithDefaults);
    if (read) ({ object, stored, schema, leftAsStored } = read);
  }
  const ctx = newContext(operation, stored ?? options.oldObject, options);
  if (leftAsStored) ctx.leftAsStored = leftAsStored;

  const expectedApiVersion = apiVersion(rules, ctx.groupDomain);
  // A missing, empty or non-string apiVersion is the schema pass's (Required, or a type): one cause per mistake.
  if (typeof object.apiVersion === 'string' && object.apiVersion !== '' && object.apiVersion !== expectedApiVersion) {
    addCause(ctx, notSupported(API_VERSION, object.apiVersion, [expectedApiVersion]));
  }
  if (operation === 'UPDATE' && !stored) addWarning(ctx, FieldPath.root, UPDATE_NOT_CHECKED);
  const wellFormed = recordSchema(ctx, object, schema, statusOnly, options.strict === true);
  checkMetadata(rules, object.metadata, ctx);
  // A bad value kept as stored is still bad: the rules may trip over it (see runRules).
  runRules(rules, object, stored, ctx, wellFormed);
  const pending = statusOnly ? undefined : runContextRules(rules, object, options.lookups, ctx);
  return pending ? finishAfter(pending, ctx, object) : finish(ctx, object);
}

/**
 * finish() once the context rules' lookups answer. A function of its own: a closure in
 * judgeObject would make every judgement allocate a context for the locals it captures.
 */
const finishAfter = (pending: Promise<void>, ctx: RuleContext, object: Record<string, unknown>): Promise<ValidationResult> => pending.then(() => finish(ctx, object));

/** A judgement's context: what the rules read, and where they record what they find. */
function newContext(operation: Operation, oldObject: unknown, options: ValidateOptions): RuleContext {
  return { operation, oldObject, subResource: options.subResource ?? '', groupDomain: groupDomainOf(options.groupDomain), options, causes: [], warnings: [] };
}

/**
 * Judges nothing: a result with one cause, or with one warning (for what the caller decoded
 * as not fleetgate's to judge).
 */
export function judgedOnly(found: { cause?: Cause; warning?: string }): ValidationResult {
  const ctx = newContext('CREATE', undefined, NO_OPTIONS);
  if (found.cause) addCause(ctx, found.cause);
  if (found.warning) addWarning(ctx, FieldPath.root, found.warning);
  return finish(ctx, undefined);
}

/**
 * A DELETE: the object deleted, the stored one (an AdmissionReview's DELETE carries it as
 * oldObject, and no object), judged by deletion protection alone.
 */
export function judgeDelete(deleted: unknown): ValidationResult {
  const cause = deletionProtectionCause(deleted);
  return cause ? { allowed: false, causes: [rendered(cause)], warnings: [], warningDetails: [] } : { allowed: true, causes: [], warnings: [], warningDetails: [] };
}

interface Read {
  object: Record<string, unknown>;
  stored: Record<string, unknown> | undefined;
  schema: SchemaResult;
  leftAsStored: ((section: string) => boolean) | undefined;
}

/**
 * The schema pass once more, on the object (and the stored one) as the API server reads their
 * nulls: a null the first pass found in an optional field is dropped (see SchemaResult.nulls);
 * undefined when neither holds one. Rare, so simply run again.
 */
function reread(rules: KindRules, object: Record<string, unknown>, first: SchemaResult, stored: Record<string, unknown> | undefined, statusOnly: boolean, storedWithDefaults: StoredWithDefaults | undefined): Read | undefined {
  const storedNulls = stored ? checkSchema(rules.schema, stored, kindValidator(rules)).nulls : [];
  if (first.nulls.length === 0 && storedNulls.length === 0) return undefined;
  const readObject = first.nulls.length ? readNulls(object, first.nulls) : object;
  const readStored = storedNulls.length ? readNulls(stored!, storedNulls) : stored;
  const leftAsStored = readStored && leftAsStoredOf(readObject, readStored, storedWithDefaults);
  return { object: readObject, stored: readStored, schema: schemaPass(rules, readObject, readStored, leftAsStored, statusOnly), leftAsStored };
}

/** The schema pass over `object`, judging a section's mistakes as what they do to this write (see sectionRoles). */
const schemaPass = (rules: KindRules, object: Record<string, unknown>, stored: Record<string, unknown> | undefined, leftAsStored: ((section: string) => boolean) | undefined, statusOnly: boolean): SchemaResult =>
  checkSchema(rules.schema, object, kindValidator(rules), stored, sectionRoles(statusOnly, leftAsStored));

/**
 * Which sections an UPDATE leaves as stored, the stored object read with the webhook's defaults
 * where the caller says how. Apart from judgeObject, whose every call would otherwise allocate
 * a context for the closures' captures, CREATE or not.
 */
function leftAsStoredOf(object: Record<string, unknown>, stored: Record<string, unknown>, withDefaults: StoredWithDefaults | undefined): (section: string) => boolean {
  return sectionsLeftAsStored(object, stored, withDefaults ? () => withDefaults(stored, object) : () => stored);
}

/** The schema pass's findings, recorded as causes and warnings; whether it found the object well formed. */
function recordSchema(ctx: RuleContext, object: Record<string, unknown>, schema: SchemaResult, statusOnly: boolean, strict: boolean): boolean {
  // Unknown fields past the bound are causes with strict, warnings without.
  const unknownCausesSkipped = schema.unknownFieldsSkipped && strict;
  if (schema.truncated || unknownCausesSkipped) (ctx.droppedFrom ??= new Set()).add(UNKNOWN_SECTION);
  if (schema.keptSkipped || (schema.unknownFieldsSkipped && !unknownCausesSkipped)) ctx.warningsDropped = true;
  if (schema.unjudged) addCause(ctx, notJudgedCause());
  const schemaCauses = statusOnly ? schema.causes.filter((c) => inStatusWrite(c.path ?? c.field)) : schema.causes;
  for (const cause of schemaCauses) {
    // No metadata at all is reported as Kubernetes reports it, by the name it lacks (checkMetadata).
    if (!(cause.field === 'metadata' && object.metadata == null)) addCause(ctx, cause);
  }
  for (const cause of statusOnly ? schema.kept.filter((c) => inStatusWrite(c.path ?? c.field)) : schema.kept) {
    recordWarning(ctx, keptWarning(cause));
  }
  const unknownFields = statusOnly ? schema.unknownFieldPaths.filter(inStatusWrite) : schema.unknownFieldPaths;
  for (const path of unknownFields) {
    if (strict) addCause(ctx, unknownFieldCause(path));
    // The field names it in full; the text shows what a warning can (the API server cuts a long one at 256 characters).
    else addWarning(ctx, path, `unknown field "${shortText(`${path}`)}"`);
  }
  return schema.causes.length === 0 && schema.kept.length === 0 && !schema.truncated && !schema.keptSkipped && !schema.ignoredSkipped;
}

/**
 * The context rules, through the lookups; a Promise when a lookup answers with one. Without the
 * lookups they need, they are skipped with a warning that says so.
 */
function runContextRules(rules: KindRules, object: Record<string, unknown>, lookups: Lookups | undefined, ctx: RuleContext): Promise<void> | undefined {
  if (!rules.validateWithLookups) return undefined;
  if (rules.lookupsApply && !rules.lookupsApply(object)) return undefined;
  if (!lookups) {
    addWarning(ctx, FieldPath.root, lookupsNotSupplied(rules));
    return undefined;
  }
  if (rules.lookupFunction && !lookups[rules.lookupFunction]) {
    addWarning(ctx, FieldPath.root, `${rules.lookupsNeeded ?? 'context rules'} not checked: the lookups have no ${rules.lookupFunction}`);
    return undefined;
  }
  const pending = rules.validateWithLookups(object, lookups, ctx);
  return pending instanceof Promise ? pending : undefined;
}

export const NO_OPTIONS: ValidateOptions = Object.freeze({});

/** The warning on an object of this kind validated without lookups: its context rules were not checked. */
export const lookupsNotSupplied = (rules: KindRules): string => `${rules.lookupsNeeded ?? 'context rules'} not checked: no lookups were supplied`;

const API_VERSION = FieldPath.of('apiVersion');

const UPDATE_NOT_CHECKED = 'update rules (immutable fields) not checked: no oldObject (the stored object) was given';

/** Fields a status write may change: status and metadata (a field named `metadataFoo` is neither). */
const inStatusWrite = (field: Field): boolean => {
  const section = sectionOf(field);
  const text = String(field);
  return section === 'status' || section === 'metadata' || text === 'apiVersion' || text === 'kind';
};

/**
 * The kind's own rules. They read defensively, but if the schema pass already
 * found the object malformed, a rule tripping over it adds nothing the user needs;
 * on a well-formed object a throw is a bug and propagates.
 */
function runRules(rules: KindRules, object: Record<string, unknown>, old: Record<string, unknown> | undefined, ctx: RuleContext, wellFormed: boolean): void {
  const statusOnly = ctx.subResource === 'status';
  // Each step is guarded on its own, so one tripping over a malformed object does not skip the next.
  if (!statusOnly && rules.validate) {
    try {
      rules.validate(object, ctx);
    } catch (err) {
      if (wellFormed) throw err;
    }
  }
  if (rules.validateStatus && !statusLeftAsStored(object, old)) {
    try {
      rules.validateStatus(object, ctx);
    } catch (err) {
      if (wellFormed) throw err;
    }
  }
  if (!old) return;
  try {
    checkMetadataUpdate(rules, object.metadata, old.metadata, ctx);
  } catch (err) {
    if (wellFormed) throw err;
  }
  if (!statusOnly && rules.validateUpdate) {
    try {
      rules.validateUpdate(object, old, ctx);
    } catch (err) {
      if (wellFormed) throw err;
    }
  }
}

/**
 * The result of judging `object`: causes and warnings in the order of their fields in it (see
 * object-order.ts). Here the causes are rendered: the ones listed, once each.
 */
function finish(ctx: RuleContext, object: unknown): ValidationResult {
  const warningDetails = listedWarnings(ctx, object);
  // Most objects have none: no call to map for them.
  const warnings = warningDetails.length === 0 ? [] : warningDetails.map(messageOf);
  const causes = ctx.causes;
  if (causes.length === 0 && !ctx.droppedFrom) return { allowed: true, causes, warnings, warningDetails };
  if (causes.length === 1 && !ctx.droppedFrom) return { allowed: false, causes: renderAll(causes), warnings, warningDetails };
  const listed = withoutRepeats(inObjectOrder(causes, object));
  if (listed.length <= MAX_CAUSES && !ctx.droppedFrom) return { allowed: false, causes: renderAll(listed), warnings, warningDetails };
  return { allowed: false, causes: renderAll(listed.slice(0, MAX_CAUSES)), warnings, warningDetails, truncated: true };
}

/** Each cause rendered, in place: the lists here are the judgement's own, made for this result. */
function renderAll(causes: Cause[]): Cause[] {
  for (let i = 0; i < causes.length; i++) causes[i] = rendered(causes[i]!);
  return causes;
}

const messageOf = (warning: Warning): string => warning.message;

/** The warnings a result lists: each text once (the first found, with its field), in object order, up to the bound. */
function listedWarnings(ctx: RuleContext, object: unknown): Warning[] {
  if (ctx.warnings.length < 2 && !ctx.warningsDropped) return ctx.warnings;
  const seen = new Set<string>();
  const warnings: Warning[] = [];
  for (const w of ctx.warnings) {
    if (seen.has(w.message)) continue;
    seen.add(w.message);
    warnings.push(w);
  }
  const listed = inObjectOrder(warnings, object);
  if (listed.length <= MAX_WARNINGS && !ctx.warningsDropped) return listed;
  return [...listed.slice(0, MAX_WARNINGS), warningAt(FieldPath.root, MORE_WARNINGS)];
}

