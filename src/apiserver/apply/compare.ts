/**
 * What changed between two versions of an object, field by field, as structured-merge-diff
 * compares them for ownership: fields added, removed and modified. A granular map or list that
 * appears or disappears counts itself too (`.spec` is added when a write creates the spec);
 * an atomic value counts only itself.
 */
import { isRecord } from '../../util/is.js';
import { sameJson } from '../../util/json-equal.js';
import { FieldSet, type Path } from './field-set.js';
import { listItemElement } from './list-items.js';
import { fieldElement, serializeElement, type PathElement } from './path-element.js';
import { fieldTopology, resolve, type ListTopology, type Topology } from './topology.js';

export interface Comparison {
  readonly added: FieldSet;
  readonly removed: FieldSet;
  readonly modified: FieldSet;
}

/** Compares `lhs` (before) with `rhs` (after); undefined is an absent value. */
export function compareObjects(lhs: unknown, rhs: unknown, topology: Topology): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  compareAt(lhs, rhs, topology, [], c);
  return c;
}

export const isSame = (c: Comparison): boolean => c.added.empty() && c.removed.empty() && c.modified.empty();

function compareAt(lhs: unknown, rhs: unknown, topology: Topology, path: Path, c: Comparison): void {
  const tl = lhs === undefined ? undefined : resolve(topology, lhs);
  const tr = rhs === undefined ? undefined : resolve(topology, rhs);
  let leaf: boolean;
  if (tr === undefined) leaf = visit(lhs, undefined, tl!, path, c);
  else if (tl === undefined || tl === tr) leaf = visit(lhs, rhs, tr, path, c);
  else {
    // The value changed shape (possible where the schema leaves it open): read both ways.
    visit(lhs, rhs, tl, path, c);
    leaf = visit(lhs, rhs, tr, path, c);
  }
  if (!leaf) {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
  }
}

/** Compares by one reading of the value; true when that reading made it a leaf. */
function visit(lhs: unknown, rhs: unknown, t: ReturnType<typeof resolve>, path: Path, c: Comparison): boolean {
  if (t.kind === 'scalar') return compareLeaf(lhs, rhs, path, c);
  if (t.kind === 'list') {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    const bothEmpty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
    if (!t.associative || bothEmpty) return compareLeaf(lhs, rhs, path, c);
    compareItems(l ?? [], r ?? [], t, path, c);
    return false;
  }
  const l = isRecord(lhs) ? lhs : undefined;
  const r = isRecord(rhs) ? rhs : undefined;
  const bothEmpty = (l === undefined || Object.keys(l).length === 0) && (r === undefined || Object.keys(r).length === 0);
  if (t.atomic || bothEmpty) return compareLeaf(lhs, rhs, path, c);
  const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
  for (const key of keys) {
    const lv = l && Object.hasOwn(l, key) ? l[key] : undefined;
    const rv = r && Object.hasOwn(r, key) ? r[key] : undefined;
    compareAt(lv, rv, fieldTopology(t, key), [...path, fieldElement(key)], c);
  }
  return false;
}

function compareLeaf(lhs: unknown, rhs: unknown, path: Path, c: Comparison): true {
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!sameJson(lhs, rhs)) c.modified.insert(path);
  return true;
}

/**
 * Items by name. A name listed more than once on a side is compared as a whole: a repeated
 * name that appears or disappears is added or removed, one repeated on both sides is modified
 * unless the items are the same in the same order.
 */
function compareItems(lhs: readonly unknown[], rhs: readonly unknown[], t: ListTopology, path: Path, c: Comparison): void {
  const order: PathElement[] = [];
  const l = new Map<string, unknown[]>();
  const r = new Map<string, unknown[]>();
  const index = (items: readonly unknown[], into: Map<string, unknown[]>, other?: Map<string, unknown[]>): void => {
    for (const item of items) {
      const pe = listItemElement(t, item);
      const id = serializeElement(pe);
      const found = into.get(id);
      if (found) found.push(item);
      else {
        into.set(id, [item]);
        if (!other?.has(id)) order.push(pe);
      }
    }
  };
  index(lhs, l);
  index(rhs, r, l);
  for (const pe of order) {
    const id = serializeElement(pe);
    const ls = l.get(id) ?? [];
    const rs = r.get(id) ?? [];
    const itemPath = [...path, pe];
    if (ls.length <= 1 && rs.length <= 1) compareAt(ls[0], rs[0], t.elements, itemPath, c);
    else if (ls.length >= 2 && rs.length >= 2) {
      if (!sameJson(ls, rs)) c.modified.insert(itemPath);
    } else if (ls.length >= 2) {
      if (rs.length !== 0) compareAt(undefined, rs[0], t.elements, itemPath, c);
      c.removed.insert(itemPath);
    } else {
      if (ls.length !== 0) compareAt(ls[0], undefined, t.elements, itemPath, c);
      c.added.insert(itemPath);
    }
  }
}
