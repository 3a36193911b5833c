/**
 * Takes fields out of an object by path, as structured-merge-diff's RemoveItems does: a path in
 * the set removes that field (or list item) with everything under it; paths below a field are
 * removed inside it. A map or list left empty this way becomes null (structured-merge-diff's
 * result), or is dropped with `dropEmptied`, as the API server's defaulting then drops such nulls.
 */
import { isRecord } from '../../is.js';
import type { FieldSet } from './field-set.js';
import { listItemElement } from './list-items.js';
import { fieldElement } from './path-element.js';
import { setOwn } from './merge.js';
import { fieldTopology, resolve, type Topology } from './topology.js';

const EMPTIED = Symbol('emptied');

export function removeItems(value: unknown, toRemove: FieldSet, topology: Topology, dropEmptied = false): unknown {
  const out = remove(value, toRemove, topology, dropEmptied);
  if (out !== EMPTIED) return out;
  // The object itself stays an object when everything in it goes.
  return dropEmptied ? (Array.isArray(value) ? [] : {}) : null;
}

function remove(value: unknown, toRemove: FieldSet, topology: Topology, dropEmptied: boolean): unknown {
  const t = resolve(topology, value);
  if (t.kind === 'scalar') return value;
  if (t.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0 || !t.associative) return EMPTIED;
    const kept: unknown[] = [];
    for (const item of value) {
      const pe = listItemElement(t, item);
      if (toRemove.has([pe])) continue;
      const below = toRemove.withPrefix(pe);
      if (below.empty()) kept.push(item);
      else {
        const rest = remove(item, below, t.elements, dropEmptied);
        if (rest !== EMPTIED) kept.push(rest);
        else if (!dropEmptied) kept.push(null);
      }
    }
    return kept.length > 0 ? kept : EMPTIED;
  }
  if (!isRecord(value) || Object.keys(value).length === 0 || t.atomic) return EMPTIED;
  const kept: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(value)) {
    const pe = fieldElement(key);
    if (toRemove.hasMember(pe)) continue;
    const below = toRemove.withPrefix(pe);
    let v = value[key];
    if (!below.empty()) {
      v = remove(v, below, fieldTopology(t, key), dropEmptied);
      if (v === EMPTIED) {
        if (dropEmptied) continue;
        v = null;
      }
    }
    setOwn(kept, key, v);
    any = true;
  }
  return any ? kept : EMPTIED;
}
