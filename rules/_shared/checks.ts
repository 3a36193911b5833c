/**
 * Semantic checks shared by several kinds. Rules run even when the schema pass
 * found problems (so every cause is reported at once), which is why they read
 * values through these defensive accessors instead of trusting the types.
 */
import { child, index, key, type Cause } from '../../src/engine/field.js';
import { duplicate, required, forbidden } from '../../src/engine/field-error.js';
import { checkLabels } from '../../src/engine/metadata.js';
import { addCause, addWarning, type RuleContext } from '../../src/engine/rule.js';
import { addUnlessStored } from '../../src/engine/ratchet.js';
import { isRecord } from '../../src/util/is.js';
import { INT32_MAX, INT32_MIN } from './schema.js';
import { FieldPath } from '../../src/engine/path.js';

export { child, index, key, isRecord };

/** The value if it is an array, otherwise an empty one. */
export const list = <T = unknown>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
/** The value if it is a plain object, otherwise an empty one. */
export const record = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
export const isString = (v: unknown): v is string => typeof v === 'string';
export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
/** An integer the schema's int32 type admits; anything else is the schema's to report. */
export const isInt32 = (v: unknown): v is number => isInt(v) && v >= INT32_MIN && v <= INT32_MAX;

export const add = addCause;
export { addWarning };

export { addUnlessStored };

/**
 * Reports every item whose key was already seen, at the later item. Missing keys
 * (undefined, null, '') never count. Strings, numbers and booleans are compared as
 * they are (the string '1' and the number 1 differ); a list of strings (a compound key)
 * element by element; other keys by their JSON.
 */
export function checkUnique<T>(ctx: RuleContext, items: readonly T[], keyOf: (item: T) => unknown, report: (item: T, i: number) => Cause): void {
  forEachRepeat(items, keyOf, (item, i) => addCause(ctx, report(item, i)));
}

/**
 * Warns of each item whose key was listed before, naming where: for lists where a repeat
 * changes nothing and neither the spec nor Karmada forbids one. Items without a key (undefined
 * or '') are skipped: those are the schema's or a rule's to report.
 */
export function warnRepeats<T>(ctx: RuleContext, items: readonly T[], path: FieldPath, keyOf: (item: T) => string | undefined, describe: (item: T) => string): void {
  forEachRepeat(items, keyOf, (item, i, first) => addWarning(ctx, index(path, i), `${index(path, i)}: ${describe(item)} is already listed at ${index(path, first)}`));
}

/**
 * Calls `onRepeat` for each item whose key was already seen, with the index of the item that
 * had it first. Undefined, null and '' are no key. Keys compare as checkUnique says.
 */
function forEachRepeat<T>(items: readonly T[], keyOf: (item: T) => unknown, onRepeat: (item: T, i: number, first: number) => void): void {
  if (items.length < 2) return;
  // Most lists are short: comparing with the earlier keys is cheaper than building a Map.
  const firstOf = items.length <= SHORT_LIST ? undefined : new Map<unknown, number>();
  // Short lists: each key seen, and the index of the item that had it first.
  const earlier: unknown[] = [];
  const earlierAt: number[] = [];
  let byJson: Map<string, object> | undefined;
  for (let i = 0; i < items.length; i++) {
    let k = keyOf(items[i]!);
    if (k === undefined || k === null || k === '') continue;
    if (!firstOf && isStringList(k)) {
      // A short list's compound keys compare in place: no JSON text per item.
      const at = earlier.findIndex((e) => isStringList(e) && sameStrings(e, k as readonly string[]));
      if (at >= 0) {
        onRepeat(items[i]!, i, earlierAt[at]!);
      } else {
        earlier.push(k);
        earlierAt.push(i);
      }
      continue;
    }
    if (typeof k === 'object' && k !== null) {
      // Equal JSON, one token: identity comparison then does the rest.
      const json = JSON.stringify(k);
      byJson ??= new Map();
      let token = byJson.get(json);
      if (!token) byJson.set(json, (token = {}));
      k = token;
    }
    if (firstOf) {
      const first = firstOf.get(k);
      if (first === undefined) firstOf.set(k, i);
      else onRepeat(items[i]!, i, first);
    } else if (earlier.includes(k)) {
      // includes() finds NaN, as a Map does; indexOf() would not.
      onRepeat(items[i]!, i, earlierAt[earlier.findIndex((e) => e === k || Object.is(e, k))]!);
    } else {
      earlier.push(k);
      earlierAt.push(i);
    }
  }
}

const SHORT_LIST = 16;

const isStringList = (v: unknown): v is readonly string[] => Array.isArray(v) && v.every(isString);
const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);

/** One key for several strings, each prefixed with its length, so no two different tuples share a key whatever their text. */
export function tupleKey(...parts: readonly string[]): string {
  let key = '';
  for (const part of parts) key += `${part.length}:${part}`;
  return key;
}

/**
 * A flat record as comparable text, independent of key order (anything else as its JSON).
 * Undefined for a value JSON cannot write out: nested too deeply (JSON.stringify recurses), or,
 * from a library caller, holding a BigInt or itself. Such a value matches nothing, so it is
 * judged as new; the schema keeps it out of storage anyway.
 */
export function fingerprint(value: unknown): string | undefined {
  try {
    return JSON.stringify(isRecord(value) ? Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : value);
  } catch {
    return undefined;
  }
}

/** The fingerprints of stored entries, to tell which entries a write leaves as they were; none, no set built. */
export const fingerprints = (values: readonly unknown[]): Fingerprints =>
  values.length ? new Set(values.map(fingerprint).filter((f) => f !== undefined)) : NO_FINGERPRINTS;

/** Asked with a fingerprint that may be undefined, which no set holds. */
export type Fingerprints = ReadonlySet<string | undefined>;

const NO_FINGERPRINTS: Fingerprints = new Set();

/** The spec a status rule compares with: a status write cannot change it, so there it is the stored object's. */
export const judgedSpec = (object: unknown, ctx: RuleContext): Record<string, unknown> =>
  record(record(ctx.subResource === 'status' && isRecord(ctx.oldObject) ? ctx.oldObject : object).spec);

/** Condition lists are maps keyed by `type`: a type may appear once. */
export function checkConditions(ctx: RuleContext, conditions: unknown, path: FieldPath): void {
  checkUnique(ctx, list(conditions), (c) => record(c).type, (c, i) => duplicate(child(index(path, i), 'type'), record(c).type));
}

export function checkLabelSelector(ctx: RuleContext, selector: unknown, path: FieldPath): void {
  const s = record(selector);
  checkLabels(ctx, record(s.matchLabels), child(path, 'matchLabels'));
  list(s.matchExpressions).forEach((expr, i) => {
    checkRequirementValues(ctx, expr, index(child(path, 'matchExpressions'), i));
  });
}

/** In/NotIn need values; Exists/DoesNotExist must have none (as for node and label selectors). */
export function checkRequirementValues(ctx: RuleContext, requirement: unknown, path: FieldPath): void {
  const r = record(requirement);
  const values = list(r.values);
  if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 0) {
    add(ctx, required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
  }
  if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length > 0) {
    add(ctx, forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  }
}

export function checkClusterAffinity(ctx: RuleContext, affinity: unknown, path: FieldPath): void {
  const a = record(affinity);
  const fieldSelector = record(a.fieldSelector);
  list(fieldSelector.matchExpressions).forEach((expr, i) => {
    // Cluster field selectors only know In and NotIn; the schema reports any other operator.
    const operator = record(expr).operator;
    if (operator === 'In' || operator === 'NotIn') checkRequirementValues(ctx, expr, index(child(child(path, 'fieldSelector'), 'matchExpressions'), i));
  });
  if (a.labelSelector !== undefined) checkLabelSelector(ctx, a.labelSelector, child(path, 'labelSelector'));
}

/** Taints are unique by key and effect. */
export function checkTaintsUnique(ctx: RuleContext, taints: unknown, path: FieldPath): void {
  checkUnique(
    ctx,
    list(taints),
    (t) => {
      const r = record(t);
      return isString(r.key) && isString(r.effect) ? [r.key, r.effect] : undefined;
    },
    (t, i) => {
      const r = record(t);
      return duplicate(index(path, i), { key: r.key, effect: r.effect }, 'taints must be unique by key and effect pair');
    },
  );
}
