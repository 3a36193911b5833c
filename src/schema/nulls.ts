/**
 * Nulls as the API server reads them: a null in an optional field is dropped before validation
 * (apiextensions' PruneNonNullableNullsWithoutDefaults), a label's or annotation's null is ''.
 */
import { isRecord } from '../util/is.js';
import { valueAt, type Walk } from './pointer.js';

const isObjectMetaMapValue = (place: readonly string[]): boolean =>
  place.length === 3 && place[0] === 'metadata' && (place[1] === 'labels' || place[1] === 'annotations');

/** Whether the place a walk describes is a field of an object (a property or a map's value), not a list's item or the root. */
export const isFieldOfObject = (root: unknown, walk: Walk): boolean => walk.segments.length > 0 && isRecord(valueAt(root, walk.segments.slice(0, -1)));

/**
 * A copy of `object` with the nulls at `places` (keys from the root, as SchemaResult.nulls gives
 * them) read as the API server reads them: removed, but for a label's or an annotation's value,
 * which ObjectMeta's Go decoding reads as '' (so its key is still judged). Only the objects on
 * the way to a null are copied; the rest is shared.
 */
export function readNulls(object: Record<string, unknown>, places: readonly (readonly string[])[]): Record<string, unknown> {
  const copies = new Map<object, Record<string, unknown>>();
  const copyOf = (node: object): Record<string, unknown> => {
    let copy = copies.get(node);
    if (!copy) copies.set(node, (copy = (Array.isArray(node) ? [...node] : { ...node }) as Record<string, unknown>));
    return copy;
  };
  const root = copyOf(object);
  for (const place of places) {
    let original: Record<string, unknown> = object;
    let copy = root;
    for (const key of place.slice(0, -1)) {
      original = original[key] as Record<string, unknown>;
      copy = copy[key] = copyOf(original);
    }
    const key = place[place.length - 1]!;
    if (isObjectMetaMapValue(place)) copy[key] = '';
    else delete copy[key];
  }
  return root;
}
