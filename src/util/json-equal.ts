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
 * With `nullFieldsAbsent`, a field holding null counts as absent, as the API server reads the
 * nulls of a typed field (see SchemaResult.nulls): for telling whether a write changed a section.
 */
export function sameJson(a: unknown, b: unknown, nullFieldsAbsent = false): boolean {
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
