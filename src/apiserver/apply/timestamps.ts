/**
 * kube-apiserver's last step before it stores an update (apiserver's
 * IgnoreManagedFieldsTimestampsTransformer): when an update changes nothing but the times in
 * managedFields, the stored times are put back, so nothing is written, the resourceVersion stays
 * and no watch event goes out. The field manager cannot see such writes coming: the change it
 * timed was undone afterwards by admission (defaults, Karmada's mutations).
 */
import { isRecord } from '../../util/is.js';
import { sameJson } from '../../util/json-equal.js';

const managedFieldsOf = (object: Record<string, unknown>): unknown => (isRecord(object.metadata) ? object.metadata.managedFields : undefined);

function withoutManagedFields(object: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(object.metadata) || !Object.hasOwn(object.metadata, 'managedFields')) return object;
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}

function withoutTime(entry: Record<string, unknown>): Record<string, unknown> {
  const { time: _, ...rest } = entry;
  return rest;
}

/**
 * `object` (the update about to be stored), with the stored object's managedFields times when the
 * two differ in those times only; otherwise `object` itself.
 */
export function keepTimesOfUnchangedObject(object: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  const next = managedFieldsOf(object);
  const previous = managedFieldsOf(stored);
  if (!Array.isArray(next) || !Array.isArray(previous) || next.length !== previous.length || next.length === 0) return object;
  if (!next.every(isRecord) || !previous.every(isRecord)) return object;
  const prev = previous as Record<string, unknown>[];
  const entries = next as Record<string, unknown>[];
  if (entries.every((e, i) => e.time === prev[i]!.time)) return object;
  // The cheap comparison first: most updates that get here changed an entry's fields too.
  if (!entries.every((e, i) => sameJson(withoutTime(e), withoutTime(prev[i]!)))) return object;
  if (!sameJson(withoutManagedFields(object), withoutManagedFields(stored))) return object;
  const restored = entries.map((e, i) => {
    const time = prev[i]!.time;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e)) {
      if (k !== 'time') out[k] = v;
      else if (time !== undefined) out.time = time;
    }
    if (time !== undefined && !Object.hasOwn(out, 'time')) out.time = time;
    return out;
  });
  return { ...object, metadata: { ...(object.metadata as Record<string, unknown>), managedFields: restored } };
}
