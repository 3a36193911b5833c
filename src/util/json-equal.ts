import { GAVE_UP, TREE_DEPTH, TREE_OBJECTS } from './json-tree.js';

/**
 * Whether two JSON values are equal: the same primitive, arrays of equal items in the same
 * order, or objects with the same keys holding equal values. Numbers compare by value (`-0`
 * equals `0`, as Go's reflect.DeepEqual has it for decoded JSON).
 *
 * The walk keeps its own stack: an UPDATE brings the object and its stored version decoded
 * apart, so they share nothing, and util.isDeepStrictEqual, which recurses, overflowed the call
 * stack at about 1,200 levels of nesting, a few kilobytes of JSON. A pair of objects already
 * being compared counts as equal, so values that refer to themselves (a library caller's, never
 * decoded JSON) end too.
 *
 * Decoded JSON is a tree of modest depth, so a pair is first compared by plain recursion, with no
 * map or set of the pairs seen: on an UPDATE, which compares each section of the object with the
 * stored one, those took most of the comparison's time. A walk that goes deeper than TREE_DEPTH or
 * meets more than TREE_OBJECTS pairs of objects (nesting as deep as above, a value that refers to
 * itself or shares parts) is given up and done again the way described above.
 *
 * With `nullFieldsAbsent`, a field holding null counts as absent, as the API server reads the
 * nulls of a typed field (see SchemaResult.nulls): for telling whether a write changed a section.
 */
export function sameJson(a: unknown, b: unknown, nullFieldsAbsent = false): boolean {
  const verdict = compareTrees(a, b, nullFieldsAbsent, 0, TREE_OBJECTS);
  return verdict === GAVE_UP ? sameJsonGraph(a, b, nullFieldsAbsent) : verdict !== DIFFERENT;
}

const DIFFERENT = -1;

/**
 * The recursive walk: the pairs of objects it may still compare (the budget, 0 or more) when `a`
 * and `b` are equal, DIFFERENT when they are not, GAVE_UP past TREE_DEPTH or the budget. Each
 * difference it reports is one sameJsonGraph finds too, so only GAVE_UP needs that walk.
 */
function compareTrees(x: unknown, y: unknown, nullFieldsAbsent: boolean, depth: number, budget: number): number {
  if (x === y || (Number.isNaN(x) && Number.isNaN(y))) return budget;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return DIFFERENT;
  const isArray = Array.isArray(x);
  if (isArray !== Array.isArray(y)) return DIFFERENT;
  if (--budget < 0 || depth >= TREE_DEPTH) return GAVE_UP;
  if (isArray) {
    const ys = y as unknown[];
    if (x.length !== ys.length) return DIFFERENT;
    for (let i = 0; i < x.length && budget >= 0; i++) budget = compareTrees(x[i], ys[i], nullFieldsAbsent, depth + 1, budget);
    return budget;
  }
  const xs = x as Record<string, unknown>;
  const ys = y as Record<string, unknown>;
  const keys = Object.keys(xs);
  if (nullFieldsAbsent ? presentCount(xs, keys) !== presentCount(ys, Object.keys(ys)) : keys.length !== Object.keys(ys).length) return DIFFERENT;
  for (let i = 0; i < keys.length && budget >= 0; i++) {
    const key = keys[i]!;
    const value = xs[key];
    if (nullFieldsAbsent && value === null) continue;
    if (!Object.hasOwn(ys, key)) return DIFFERENT;
    budget = compareTrees(value, ys[key], nullFieldsAbsent, depth + 1, budget);
  }
  return budget;
}

/** How many of `keys` hold something other than null. */
function presentCount(object: Record<string, unknown>, keys: readonly string[]): number {
  let present = 0;
  for (const key of keys) if (object[key] !== null) present++;
  return present;
}

/** The walk with its own stack and the pairs being compared: any depth, values that refer to themselves. */
function sameJsonGraph(a: unknown, b: unknown, nullFieldsAbsent: boolean): boolean {
  const pending: unknown[] = [a, b];
  let compared: Map<object, Set<object>> | undefined;
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    const isArray = Array.isArray(x);
    if (isArray !== Array.isArray(y)) return false;

    compared ??= new Map();
    let partners = compared.get(x);
    if (partners?.has(y)) continue;
    if (!partners) compared.set(x, (partners = new Set()));
    partners.add(y);

    if (isArray) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], ys[i]);
      continue;
    }
    const xs = x as Record<string, unknown>;
    const ys = y as Record<string, unknown>;
    const keysOf = nullFieldsAbsent ? presentKeys : Object.keys;
    const keys = keysOf(xs);
    if (keys.length !== keysOf(ys).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(ys, key)) return false;
      pending.push(xs[key], ys[key]);
    }
  }
  return true;
}

const presentKeys = (object: Record<string, unknown>): string[] => Object.keys(object).filter((key) => object[key] !== null);
