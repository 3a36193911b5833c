/**
 * A deep copy of a decoded JSON value, as structuredClone makes it (a value met twice, or one
 * that holds itself, is copied once), but with its own stack: structuredClone recurses, and
 * overflowed at about 2,000 levels of nesting, a few kilobytes of JSON that the API server's
 * decoder accepts. Anything other than arrays and plain objects (a Date in an object built in
 * code) is left to structuredClone, which throws for what it cannot copy (a function).
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const copies = new Map<object, unknown>();
  const root = shallowCopy(value, copies);
  const pending: object[] = [value];
  while (pending.length > 0) {
    const original = pending.pop()!;
    const copy = copies.get(original) as Record<string, unknown>;
    for (const key of Object.keys(original)) {
      const item = (original as Record<string, unknown>)[key];
      let itemCopy: unknown = item;
      if (typeof item === 'object' && item !== null) {
        itemCopy = copies.get(item);
        if (itemCopy === undefined) {
          itemCopy = shallowCopy(item, copies);
          if (isContainer(item)) pending.push(item);
        }
      } else if (typeof item === 'function' || typeof item === 'symbol') {
        itemCopy = structuredClone(item); // throws, as it would for the whole value
      }
      // A key "__proto__" (JSON.parse makes it an own property) must stay a property, not become the prototype.
      if (key === '__proto__') Object.defineProperty(copy, key, { value: itemCopy, writable: true, enumerable: true, configurable: true });
      else copy[key] = itemCopy;
    }
  }
  return root as T;
}

const isContainer = (value: object): boolean => {
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** An empty array or object to fill in (registered before its items, so cycles close), or a whole copy of anything else. */
function shallowCopy(value: object, copies: Map<object, unknown>): unknown {
  const copy = Array.isArray(value) ? new Array(value.length) : isContainer(value) ? {} : structuredClone(value);
  copies.set(value, copy);
  return copy;
}
