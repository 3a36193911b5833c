/**
 * validate(): one object in, every cause and warning out. The order is the data
 * path: identify the kind → schema pass → metadata → the kind's rules → context
 * rules through the injected lookups.
 */
import { causeKey, invalid, keptWarning, notSupported, renderList, required, sectionOf, type Cause, type Warning } from './field.js';
import { checkSchema, kindValidator, readNulls, unknownFieldCause, type SchemaResult, type SectionRole } from './schema.js';
import { checkMetadata, checkMetadataUpdate } from './metadata.js';
import { DEFAULT_GROUP_DOMAIN, apiVersion, rulesFor, supportedKinds } from '../rules/index.js';
import { addCause, addWarning, recordWarning, UNKNOWN_SECTION, MAX_CAUSES, MAX_WARNINGS, MORE_WARNINGS, storedObject, type KindRules, type Lookups, type MaybePromise, type Operation, type RuleContext, type RuleOptions } from './rule.js';
import { isRecord } from './is.js';
import { inObjectOrder } from './object-order.js';
import { deletionProtectionCause } from './deletion-protection.js';
import { sameJson } from './json-equal.js';
import { applyDefaults } from './defaults.js';
import { permanentIdOf } from '../rules/_shared/permanent-id.js';

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
 * Validates one object of a served kind. Returns synchronously unless a lookup
 * answers with a Promise; `await` works either way.
 */
export function validate(object: unknown, options?: ValidateOptions & { lookups?: undefined }): ValidationResult;
export function validate(object: unknown, options?: ValidateOptions): MaybePromise<ValidationResult>;
export function validate(object: unknown, options: ValidateOptions = NO_OPTIONS): MaybePromise<ValidationResult> {
  return options.operation === 'DELETE' ? judgeDelete(object, options) : judge(object, options, true);
}

/**
 * A DELETE: the object deleted, the stored one (an AdmissionReview's DELETE carries it as
 * oldObject, and no object), judged by deletion protection alone.
 */
function judgeDelete(object: unknown, options: ValidateOptions): ValidationResult {
  const deleted = options.oldObject ?? object;
  const cause = deletionProtectionCause(deleted);
  return cause ? { allowed: false, causes: [cause], warnings: [], warningDetails: [] } : { allowed: true, causes: [], warnings: [], warningDetails: [] };
}

/** validate(), on its first reading of the object or on the one after nulls were read (see withNullsRead). */
function judge(object: unknown, options: ValidateOptions, firstReading: boolean): MaybePromise<ValidationResult> {
  const operation = options.operation ?? 'CREATE';
  const ctx: RuleContext = {
    operation,
    oldObject: options.oldObject,
    subResource: options.subResource ?? '',
    groupDomain: options.groupDomain ?? DEFAULT_GROUP_DOMAIN,
    options,
    causes: [],
    warnings: [],
  };
  if (operation === 'CONNECT') return finish(ctx, object);
  if (ctx.subResource !== '' && ctx.subResource !== 'status') {
    addWarning(ctx, '', `subresource ${JSON.stringify(ctx.subResource)} not judged: fleetgate judges the objects and their status subresource`);
    return finish(ctx, object);
  }

  if (!isRecord(object)) {
    addCause(ctx, invalid('', object === undefined ? null : object, 'must be a Kubernetes object (a JSON object with apiVersion, kind and metadata)'));
    return finish(ctx, object);
  }
  const rules = rulesFor(object.kind);
  if (!rules) {
    const kind = object.kind;
    if (kind === undefined || kind === null || kind === '') addCause(ctx, required('kind', `supported values: ${renderList(supportedKinds)}`));
    else addCause(ctx, notSupported('kind', kind, supportedKinds));
    return finish(ctx, object);
  }
  const expectedApiVersion = apiVersion(rules, ctx.groupDomain);
  // A missing, empty or non-string apiVersion is the schema pass's (Required, or a type): one cause per mistake.
  if (typeof object.apiVersion === 'string' && object.apiVersion !== '' && object.apiVersion !== expectedApiVersion) {
    addCause(ctx, notSupported('apiVersion', object.apiVersion, [expectedApiVersion]));
  }

  const statusOnly = ctx.subResource === 'status';
  const stored = storedObject(ctx);
  if (operation === 'UPDATE' && !stored) addWarning(ctx, '', UPDATE_NOT_CHECKED);
  const leftAsStored = stored && sectionsLeftAsStored(rules, object, stored);
  if (leftAsStored) ctx.leftAsStored = leftAsStored;
  const schema = checkSchema(rules.schema, object, kindValidator(rules), stored, sectionRoles(statusOnly, leftAsStored));
  // Unknown fields past the bound are causes with strict, warnings without.
  const unknownCausesSkipped = schema.unknownFieldsSkipped && options.strict;
  if (schema.truncated || unknownCausesSkipped) (ctx.droppedFrom ??= new Set()).add(UNKNOWN_SECTION);
  if (schema.keptSkipped || (schema.unknownFieldsSkipped && !unknownCausesSkipped)) ctx.warningsDropped = true;
  // A stored object from the API server holds no null the schema reports; one from a test file may.
  if (firstReading && (schema.nulls.length || (stored && holdsNull(stored)))) {
    const reread = withNullsRead(rules, object, schema.nulls, stored, options);
    if (reread) return judge(reread.object, reread.options, false);
  }
  const schemaCauses = statusOnly ? schema.causes.filter((c) => inStatusWrite(c.field)) : schema.causes;
  for (const cause of schemaCauses) {
    // No metadata at all is reported as Kubernetes reports it, by the name it lacks (checkMetadata).
    if (!(cause.field === 'metadata' && object.metadata == null)) addCause(ctx, cause);
  }
  for (const cause of statusOnly ? schema.kept.filter((c) => inStatusWrite(c.field)) : schema.kept) {
    recordWarning(ctx, keptWarning(cause));
  }
  const unknownFields = statusOnly ? schema.unknownFields.filter(inStatusWrite) : schema.unknownFields;
  for (const path of unknownFields) {
    if (options.strict) addCause(ctx, unknownFieldCause(path));
    else addWarning(ctx, path, `unknown field "${path}"`);
  }

  checkMetadata(rules, object.metadata, ctx);
  // A bad value kept as stored is still bad: the rules may trip over it (see runRules).
  runRules(rules, object, stored, ctx, schema.causes.length === 0 && schema.kept.length === 0 && !schema.truncated && !schema.keptSkipped && !schema.ignoredSkipped);

  if (statusOnly || !rules.validateWithLookups) return finish(ctx, object);
  if (rules.lookupsApply && !rules.lookupsApply(object)) return finish(ctx, object);
  if (!options.lookups) {
    addWarning(ctx, '', lookupsNotSupplied(rules));
    return finish(ctx, object);
  }
  if (rules.lookupFunction && !options.lookups[rules.lookupFunction]) {
    addWarning(ctx, '', `${rules.lookupsNeeded ?? 'context rules'} not checked: the lookups have no ${rules.lookupFunction}`);
    return finish(ctx, object);
  }
  const pending = rules.validateWithLookups(object, options.lookups, ctx);
  return pending instanceof Promise ? pending.then(() => finish(ctx, object)) : finish(ctx, object);
}

const NO_OPTIONS: ValidateOptions = Object.freeze({});

/** The warning on an object of this kind validated without lookups: its context rules were not checked. */
export const lookupsNotSupplied = (rules: KindRules): string => `${rules.lookupsNeeded ?? 'context rules'} not checked: no lookups were supplied`;

/** What each section's mistakes do to this write (see SectionRole); undefined when every section decides. */
function sectionRoles(statusOnly: boolean, leftAsStored: ((section: string) => boolean) | undefined): ((section: string) => SectionRole) | undefined {
  if (!statusOnly && !leftAsStored) return undefined;
  return (section) => {
    if (statusOnly && section !== 'status' && !ALWAYS_JUDGED.has(section)) return 'ignored';
    return leftAsStored?.(section) ? 'kept' : 'decides';
  };
}

/**
 * Whether an UPDATE leaves a section (spec, status, or an interpreter webhook configuration's
 * webhooks) as stored. Such a write is not refused for what the section holds: each cause there
 * becomes a warning (see addCause). A controller removing its finalizer, or adding a label, must
 * not be stopped by a rule the stored object predates (Karmada stored it under rules looser
 * than fleetgate's). Judged per section, not per value: a rule that relates values (a duplicate,
 * a sum) may blame one the write left alone for a change elsewhere in the section.
 *
 * fleetgate's mutating webhook fills its defaults into the write first (as the API server fills a
 * CRD's defaults into both objects): a section that differs from the stored one only by them is
 * left as stored too. The defaulted copy is made on the first section that differs.
 */
function sectionsLeftAsStored(rules: KindRules, object: Record<string, unknown>, stored: Record<string, unknown>): (section: string) => boolean {
  const asStored = new Map<string, boolean>();
  let storedDefaulted: Record<string, unknown> | undefined;
  const isAsStored = (section: string): boolean => {
    if (!Object.hasOwn(stored, section)) return false;
    // A null, where the API server would have dropped it (a rule's timeZone: null), changes nothing.
    if (sameJson(object[section], stored[section], true)) return true;
    storedDefaulted ??= defaultedCopy(rules, stored, object);
    return Object.hasOwn(storedDefaulted, section) && sameJson(object[section], storedDefaulted[section], true);
  };
  return (section) => {
    if (ALWAYS_JUDGED.has(section)) return false;
    let same = asStored.get(section);
    if (same === undefined) asStored.set(section, (same = isAsStored(section)));
    return same;
  };
}

/**
 * The object, and the stored one, as the API server reads the nulls the schema pass found in
 * them (see SchemaResult.nulls), or undefined when there are none. Rare, so the whole pass is
 * simply run again on what this gives, once.
 */
function withNullsRead(
  rules: KindRules,
  object: Record<string, unknown>,
  objectNulls: SchemaResult['nulls'],
  stored: Record<string, unknown> | undefined,
  options: ValidateOptions,
): { object: Record<string, unknown>; options: ValidateOptions } | undefined {
  const storedNulls = stored ? checkSchema(rules.schema, stored, kindValidator(rules)).nulls : [];
  if (objectNulls.length === 0 && storedNulls.length === 0) return undefined;
  return {
    object: objectNulls.length ? readNulls(object, objectNulls) : object,
    options: storedNulls.length ? { ...options, oldObject: readNulls(stored!, storedNulls) } : options,
  };
}

/** Whether a null is anywhere in a value; each object is looked into once, so one that refers to itself ends too. */
function holdsNull(value: unknown): boolean {
  const pending: unknown[] = [value];
  const seen = new Set<object>();
  while (pending.length) {
    const node = pending.pop();
    if (node === null) return true;
    if (typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    for (const key in node) pending.push((node as Record<string, unknown>)[key]);
  }
  return false;
}

const UPDATE_NOT_CHECKED = 'update rules (immutable fields) not checked: no oldObject (the stored object) was given';

/** Fields a status write may change: status and metadata (a field named `metadataFoo` is neither). */
const inStatusWrite = (field: string): boolean => {
  const section = sectionOf(field);
  return section === 'status' || section === 'metadata' || field === 'apiVersion' || field === 'kind';
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
  // An UPDATE that leaves the status as stored (every main-resource write of a kind with a status
  // subresource: the API server restores it before webhooks see it) is not judged on it.
  if (rules.validateStatus && !(old && sameJson(object.status, old.status))) {
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

/** Sections every write is judged on, whatever it leaves as stored. */
const ALWAYS_JUDGED = new Set(['', 'apiVersion', 'kind', 'metadata']);

/**
 * The stored object with fleetgate's defaults filled in, as the mutating webhook filled them into
 * the write; as it is when it cannot be copied (a function in it: no JSON). A permanent id the
 * stored object lacks is the one the write carries, which that webhook gave it in this request: a
 * fresh UUID would make every section it reaches (a Work's manifests) look changed.
 */
function defaultedCopy(rules: KindRules, stored: Record<string, unknown>, object: Record<string, unknown>): Record<string, unknown> {
  const label = rules.permanentIdLabel;
  const id = label === undefined ? undefined : permanentIdOf(object, label);
  try {
    return applyDefaults(stored, { operation: 'UPDATE', ...(id !== undefined ? { uuid: () => id } : {}) }).object;
  } catch {
    return stored;
  }
}

/** The result of judging `object`: causes in the order of their fields in it (see object-order.ts). */
function finish(ctx: RuleContext, object: unknown): ValidationResult {
  const warningDetails = listedWarnings(ctx);
  // Most objects have none: no call to map for them.
  const warnings = warningDetails.length === 0 ? [] : warningDetails.map(messageOf);
  const causes = ctx.causes;
  if (causes.length === 0 && !ctx.droppedFrom) return { allowed: true, causes, warnings, warningDetails };
  if (causes.length === 1 && !ctx.droppedFrom) return { allowed: false, causes, warnings, warningDetails };
  const listed = withoutRepeats(inObjectOrder(causes, object));
  if (listed.length <= MAX_CAUSES && !ctx.droppedFrom) return { allowed: false, causes: listed, warnings, warningDetails };
  return { allowed: false, causes: listed.slice(0, MAX_CAUSES), warnings, warningDetails, truncated: true };
}

const messageOf = (warning: Warning): string => warning.message;

/** The warnings a result lists: each text once (the first found, with its field), up to the bound. */
function listedWarnings(ctx: RuleContext): Warning[] {
  if (ctx.warnings.length < 2 && !ctx.warningsDropped) return ctx.warnings;
  const seen = new Set<string>();
  const warnings: Warning[] = [];
  for (const w of ctx.warnings) {
    if (seen.has(w.message)) continue;
    seen.add(w.message);
    warnings.push(w);
  }
  if (warnings.length <= MAX_WARNINGS && !ctx.warningsDropped) return warnings;
  return [...warnings.slice(0, MAX_WARNINGS), { field: '', message: MORE_WARNINGS }];
}

const FEW_CAUSES = 16;

/** The same cause reported twice (by the schema and a rule, say) is listed once. */
export function withoutRepeats(causes: Cause[]): Cause[] {
  if (causes.length > FEW_CAUSES) {
    const seen = new Set<string>();
    return causes.filter((c) => {
      const id = causeKey(c);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }
  // Few causes (the usual case) compare pairwise, without building a key for each.
  let kept: Cause[] | undefined;
  for (let i = 0; i < causes.length; i++) {
    const c = causes[i]!;
    let repeat = false;
    for (let j = 0; j < i && !repeat; j++) {
      const d = causes[j]!;
      repeat = d.field === c.field && d.type === c.type && d.message === c.message;
    }
    if (repeat) kept ??= causes.slice(0, i);
    else kept?.push(c);
  }
  return kept ?? causes;
}
