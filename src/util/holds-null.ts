import { GAVE_UP, TREE_DEPTH, TREE_OBJECTS } from './json-tree.js';

/**
 * Whether a null is anywhere in a value. Decoded JSON is a tree of modest depth, so it is first
 * walked by plain recursion, arrays by index, with no set of the objects seen: every UPDATE's stored
 * object is walked whole, and that set and a stack of pending values made the walk about six times
 * slower. A walk deeper than TREE_DEPTH or through more than TREE_OBJECTS objects (a value that
 * refers to itself or shares parts, a library caller's, never decoded JSON) is given up and done
 * again with its own stack, each object looked into once, so that one ends too.
 *
 * The recursive walk reads an array's items, not other properties an array may have been given:
 * what it is for, telling whether the schema pass could find a null to read away (see
 * SchemaResult.nulls), reads no others either.
 */
export function holdsNull(value: unknown): boolean {
  const verdict = walkTree(value, 0, TREE_OBJECTS);
  return verdict === GAVE_UP ? holdsNullInGraph(value) : verdict === FOUND;
}

const FOUND = -1;

/** The objects the walk may still look into (0 or more) when no null is in `node`, FOUND, or GAVE_UP. */
function walkTree(node: unknown, depth: number, budget: number): number {
  if (node === null) return FOUND;
  if (typeof node !== 'object') return budget;
  if (--budget < 0 || depth >= TREE_DEPTH) return GAVE_UP;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length && budget >= 0; i++) budget = walkTree(node[i], depth + 1, budget);
    return budget;
  }
  for (const key in node) {
    budget = walkTree((node as Record<string, unknown>)[key], depth + 1, budget);
    if (budget < 0) return budget;
  }
  return budget;
}

/** The walk with its own stack, each object looked into once. */
function holdsNullInGraph(value: unknown): boolean {
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
