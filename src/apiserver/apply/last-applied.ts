/**
 * The bridge from client-side apply, for the manager `kubectl` only (apimachinery's
 * LastAppliedManager and LastAppliedUpdater):
 * - a conflict on a field whose live value is still the one the last-applied annotation holds is
 *   no conflict: kubectl applied that value itself, client-side. So `kubectl apply --server-side`
 *   after `kubectl apply` succeeds without `--force-conflicts`.
 * - after such an apply, an existing annotation is rewritten from the applied configuration, so a
 *   later client-side apply still computes the right three-way patch.
 */
import { isRecord } from '../../util/is.js';
import { checkLists } from './check-lists.js';
import { compareObjects } from './compare.js';
import type { FieldSet } from './field-set.js';
import { ENCODING_JSON, goJson } from './go-text.js';
import { setOwn } from './merge.js';
import { toFieldSet } from './to-field-set.js';
import type { Topology } from './topology.js';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
export const LAST_APPLIED_MANAGER = 'kubectl';
/** apimachinery's TotalAnnotationSizeLimitB: past it the annotation is dropped rather than written. */
const ANNOTATIONS_SIZE_LIMIT = 256 * 1024;

const annotationsOf = (object: unknown): Record<string, unknown> | undefined => {
  const metadata = isRecord(object) ? object.metadata : undefined;
  const annotations = isRecord(metadata) ? metadata.annotations : undefined;
  return isRecord(annotations) ? annotations : undefined;
};

export function hasLastApplied(object: unknown): boolean {
  const value = annotationsOf(object)?.[LAST_APPLIED];
  return typeof value === 'string' && value.length > 0;
}

/**
 * The fields the last-applied annotation of `live` sets to the value they still have: conflicts
 * on these are kubectl's own. Undefined when there is no usable annotation.
 */
export function fieldsStillAsLastApplied(live: unknown, apiVersion: string, topology: Topology): FieldSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED];
  if (typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(lastApplied) || typeof lastApplied.kind !== 'string' || lastApplied.kind === '' || lastApplied.apiVersion !== apiVersion) return undefined;
  if (checkLists(live, topology, false).length > 0 || checkLists(lastApplied, topology, false).length > 0) return undefined;
  const c = compareObjects(lastApplied, live, topology);
  return toFieldSet(lastApplied, topology).difference(c.modified).difference(c.added).difference(c.removed);
}

/** The annotation's value for an applied configuration: its JSON as Go writes it, without the annotation itself. */
export function lastAppliedValue(applied: Record<string, unknown>): string {
  const copy: Record<string, unknown> = { ...applied };
  const metadata = applied.metadata;
  if (isRecord(metadata) && metadata.annotations !== undefined) {
    const annotations = metadata.annotations;
    const m: Record<string, unknown> = { ...metadata };
    if (isRecord(annotations) && Object.values(annotations).every((v) => typeof v === 'string')) {
      const rest: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(annotations)) if (k !== LAST_APPLIED) setOwn(rest, k, v);
      m.annotations = rest;
    } else {
      delete m.annotations; // not a string map: Go reads no annotations, and writes none back
    }
    copy.metadata = m;
  }
  return `${goJson(copy, ENCODING_JSON)}\n`;
}

/** `object` with the annotation set to `value` (or dropped, past the annotations' size limit). */
export function withLastApplied(object: Record<string, unknown>, value: string): Record<string, unknown> {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const annotations: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(annotationsOf(object) ?? {})) setOwn(annotations, k, v);
  annotations[LAST_APPLIED] = value;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  if (size > ANNOTATIONS_SIZE_LIMIT) delete annotations[LAST_APPLIED];
  return { ...object, metadata: { ...metadata, annotations } };
}
