/**
 * Takes fields out of an object by path, as structured-merge-diff's RemoveItems does: a path in
 * the set removes that field (or list item) with everything under it; paths below a field are
 * removed inside it. A map or list left empty this way becomes null, as in structured-merge-diff;
 * the API server drops such nulls from the stored object, as it drops every null a write leaves in
 * a typed field (kube's defaulting does the same after the merge).
 */
import { isRecord } from '../../util/is.js';
import type { FieldSet } from './field-set.js';
import { listItemElement } from './list-items.js';
import { fieldElement } from './path-element.js';
import { setOwn } from './merge.js';
import { fieldTopology, resolve, type Topology } from './topology.js';

export function removeItems(value: unknown, toRemove: FieldSet, topology: Topology): unknown {
  const t = resolve(topology, value);
  if (t.kind === 'scalar') return value;
  if (t.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0 || !t.associative) return null;
    const kept: unknown[] = [];
    for (const item of value) {
      const pe = listItemElement(t, item);
      if (toRemove.has([pe])) continue;
      const below = toRemove.withPrefix(pe);
      kept.push(below.empty() ? item : removeItems(item, below, t.elements));
    }
    return kept.length > 0 ? kept : null;
  }
  if (!isRecord(value) || Object.keys(value).length === 0 || t.atomic) return null;
  const kept: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(value)) {
    const pe = fieldElement(key);
    if (toRemove.hasMember(pe)) continue;
    const below = toRemove.withPrefix(pe);
    setOwn(kept, key, below.empty() ? value[key] : removeItems(value[key], below, fieldTopology(t, key)));
    any = true;
  }
  return any ? kept : null;
}
