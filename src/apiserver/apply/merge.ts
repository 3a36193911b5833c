/**
 * Merges an applied configuration into the live object, as structured-merge-diff does: the
 * configuration wins every field it sets; granular maps and structs merge key by key; associative
 * lists merge item by item (the configuration's items in its order, the live object's other items
 * where they stood); atomic lists and maps, and scalars, are replaced whole.
 */
import { isRecord } from '../../util/is.js';
import { listItemElement } from './list-items.js';
import { serializeElement } from './path-element.js';
import { fieldTopology, resolve, type ListTopology, type MapTopology, type Topology } from './topology.js';

/** undefined stands for "absent" throughout: a field the object does not have. */
export function mergeValues(lhs: unknown, rhs: unknown, topology: Topology): unknown {
  const t = resolve(topology, rhs === undefined ? lhs : rhs);
  if (t.kind === 'scalar') return rhs !== undefined ? rhs : lhs;
  if (t.kind === 'list') {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    const bothEmpty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
    if (!t.associative || bothEmpty) return rhs !== undefined ? rhs : lhs;
    return mergeItems(l ?? [], r ?? [], t);
  }
  const l = isRecord(lhs) ? lhs : undefined;
  const r = isRecord(rhs) ? rhs : undefined;
  const bothEmpty = (l === undefined || Object.keys(l).length === 0) && (r === undefined || Object.keys(r).length === 0);
  if (t.atomic || bothEmpty) return rhs !== undefined ? rhs : lhs;
  return mergeMaps(l, r, t);
}

function mergeMaps(lhs: Record<string, unknown> | undefined, rhs: Record<string, unknown> | undefined, t: MapTopology): unknown {
  const out: Record<string, unknown> = {};
  let any = false;
  const visit = (key: string): void => {
    const merged = mergeValues(lhs && Object.hasOwn(lhs, key) ? lhs[key] : undefined, rhs && Object.hasOwn(rhs, key) ? rhs[key] : undefined, fieldTopology(t, key));
    if (merged === undefined) return;
    setOwn(out, key, merged);
    any = true;
  };
  if (lhs) for (const key of Object.keys(lhs)) visit(key);
  if (rhs) for (const key of Object.keys(rhs)) if (!lhs || !Object.hasOwn(lhs, key)) visit(key);
  return any ? out : undefined;
}

/** An own property, even for the key `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/**
 * The order structured-merge-diff gives merged items: walking both lists, a live item the
 * configuration does not name stays where it is; named items come in the configuration's order,
 * each merged with its live counterpart. A name the live list repeats is merged once, from the
 * configuration alone.
 */
function mergeItems(lhs: readonly unknown[], rhs: readonly unknown[], t: ListTopology): unknown {
  const lIds = lhs.map((item) => serializeElement(listItemElement(t, item)));
  const rIds = rhs.map((item) => serializeElement(listItemElement(t, item)));
  const observedL = new Map<string, unknown>();
  // A name the live list repeats maps to null: its items are not merged, the configuration's replaces them.
  for (let i = 0; i < lhs.length; i++) observedL.set(lIds[i]!, observedL.has(lIds[i]!) ? null : lhs[i]);
  const observedR = new Map<string, unknown>();
  for (let i = 0; i < rhs.length; i++) if (!observedR.has(rIds[i]!)) observedR.set(rIds[i]!, rhs[i]);

  const shared = rIds.filter((id) => observedL.has(id));
  let nextShared = 0;
  const mergedR = new Set<string>();
  const out: unknown[] = [];
  const emit = (l: unknown, r: unknown): void => {
    const merged = mergeValues(l, r, t.elements);
    if (merged !== undefined) out.push(merged);
  };

  let lI = 0;
  let rI = 0;
  while (lI < lhs.length || rI < rhs.length) {
    if (lI < lhs.length && rI < rhs.length) {
      const id = lIds[lI]!;
      if (id === rIds[rI]) {
        mergedR.add(id);
        emit(observedL.get(id), observedR.get(id));
        lI++;
        rI++;
        nextShared++;
        continue;
      }
      if (observedR.has(id) && nextShared < shared.length && shared[nextShared] !== id) {
        lI++; // a shared item, but not the one due now
        continue;
      }
    }
    if (lI < lhs.length) {
      const id = lIds[lI]!;
      if (!observedR.has(id)) {
        emit(lhs[lI], undefined);
        lI++;
        continue;
      } else if (mergedR.has(id)) {
        lI++;
      }
    }
    if (rI < rhs.length) {
      const id = rIds[rI]!;
      mergedR.add(id);
      emit(observedL.get(id), observedR.get(id));
      rI++;
      if (nextShared < shared.length && shared[nextShared] === id) nextShared++;
    }
  }
  return out.length > 0 ? out : undefined;
}
