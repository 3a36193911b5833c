/**
 * The order of an object's fields, for listing causes as a reader meets them.
 *
 * A field's position is read along its path (`spec.rules[1].name`, `metadata.labels[app]`), one
 * step at a time: a key's place among its object's keys, in the order the object lists them
 * (its document's order: JSON.parse and the YAML readers keep it, but for keys that look like
 * array indexes, which JavaScript lists first), and an item's index in its array (past its end
 * too). Positions compare step by step; a field comes before the fields inside it. A key the
 * object does not have (a required field left out) comes after every key it has at that level,
 * and ends the path's position: such fields keep the order they were found in, as do fields of
 * one position.
 */
import { isRecord } from '../util/is.js';
import { pathOf } from './field.js';
import type { FieldPath, Segment } from './path.js';

/** An object of more keys than this is ranked by an index of its keys, made once per ordering; a smaller one by a scan. */
const SCANNED_KEYS = 32;

/** Past every existing key or item: a step the object does not have. */
const ABSENT = Number.POSITIVE_INFINITY;

/**
 * `items` sorted by the position of their field in `object`, stably; `items` itself when they
 * are in order already (the usual case: most come from one pass over the object).
 */
export function inObjectOrder<T extends { field: string; path?: FieldPath }>(items: T[], object: unknown): T[] {
  if (items.length < 2) return items;
  const position = positions(object);
  const at = items.map((item) => position(pathOf(item).segments()));
  let sorted = true;
  for (let i = 1; i < at.length && sorted; i++) sorted = compare(at[i - 1]!, at[i]!) <= 0;
  if (sorted) return items;
  // Array.prototype.sort is stable: fields of one position keep the order they were found in.
  return items
    .map((item, i) => ({ item, position: at[i]! }))
    .sort((a, b) => compare(a.position, b.position))
    .map((o) => o.item);
}

/** Positions compared step by step; a path that is the start of another comes first. */
function compare(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

/** The position of a field path (its steps) in `object`, with the key indexes of large objects kept between calls. */
function positions(object: unknown): (segments: readonly Segment[]) => number[] {
  let indexes: Map<object, Map<string, number>> | undefined;
  const keyRank = (record: Record<string, unknown>, key: string): number => {
    if (!Object.hasOwn(record, key)) return ABSENT;
    // A large object is listed once: for-in lists a large object's keys (all of them, sorted)
    // each time it starts, and starting it for every cause through an object of 20,000 keys
    // made one ordering take seconds (found by bench/reliability/fuzz.ts).
    const known = indexes?.get(record);
    if (known) return known.get(key)!;
    // for-in lists an object's own keys first, in Object.keys' order, and lists them without
    // making an array of them (Object.keys here was an array for every step of every cause).
    let rank = 0;
    let found = ABSENT;
    for (const k in record) {
      if (k === key) found = rank;
      if (++rank > SCANNED_KEYS) break;
    }
    if (rank <= SCANNED_KEYS) return found;
    indexes ??= new Map();
    const index = new Map(Object.keys(record).map((k, i) => [k, i]));
    indexes.set(record, index);
    return index.get(key)!;
  };
  return (segments) => {
    const ranks: number[] = [];
    let value: unknown = object;
    for (const step of segments) {
      let rank = ABSENT;
      if (Array.isArray(value)) rank = typeof step === 'number' ? step : DIGITS.test(step) ? Number(step) : ABSENT;
      else if (isRecord(value)) rank = keyRank(value, String(step));
      ranks.push(rank);
      if (rank === ABSENT) break;
      value = Array.isArray(value) ? value[rank] : (value as Record<string, unknown>)[String(step)];
    }
    return ranks;
  };
}

const DIGITS = /^\d+$/;
