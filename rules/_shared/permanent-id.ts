/**
 * Karmada's permanent-id labels (Work, ClusterResourceBinding, MultiClusterService): its webhook
 * gives an object a new UUID when the label is missing or empty, and its controllers find the
 * object's dependants by it. The label is not protected: removed on an UPDATE that is mutated,
 * it gets a new UUID.
 */
import type { DefaultContext } from '../../src/engine/rule.js';
import { isRecord } from '../../src/util/is.js';

/**
 * The object's permanent id once defaulted: the label's value, or a new UUID written into the
 * label when it is missing, null or empty. Undefined, and nothing written, when metadata, its
 * labels or the label's value has a shape no Kubernetes object has (Karmada cannot decode the
 * object and patches nothing; validation reports it).
 */
export function defaultPermanentId(object: Record<string, unknown>, label: string, ctx: DefaultContext): string | undefined {
  const metadata = object.metadata;
  if (metadata != null && !isRecord(metadata)) return undefined;
  const labels = isRecord(metadata) ? metadata.labels : undefined;
  if (labels != null && !isRecord(labels)) return undefined;
  const value = isRecord(labels) ? labels[label] : undefined;
  if (typeof value === 'string' && value !== '') return value;
  if (value != null && typeof value !== 'string') return undefined;
  const id = ctx.uuid();
  if (labels != null) ctx.set(['metadata', 'labels', label], id);
  else if (metadata != null) ctx.set(['metadata', 'labels'], { [label]: id });
  else ctx.set(['metadata'], { labels: { [label]: id } });
  return id;
}

/** The permanent id an object carries, or undefined. */
export function permanentIdOf(object: unknown, label: string): string | undefined {
  const labels = isRecord(object) && isRecord(object.metadata) ? object.metadata.labels : undefined;
  const value = isRecord(labels) ? labels[label] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
