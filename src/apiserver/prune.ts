/**
 * Structural pruning: what kube-apiserver does to the unknown fields of a custom resource under
 * `fieldValidation=Warn` or `Ignore` (apiextensions `pruning.Prune`). They are dropped before the
 * object is stored. The library reports them (as `unknown field "<path>"` warnings); this removes
 * them, walking the kind's JSON Schema beside the object. The schemas use only `properties`,
 * `additionalProperties`, `items` and `x-kubernetes-preserve-unknown-fields`, which is all a
 * structural schema has; no npm package prunes by a schema without also validating by it.
 */
import { isRecord } from '../util/is.js';

interface StructuralSchema {
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: boolean | StructuralSchema;
  items?: StructuralSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** Removes, in place, every field `schema` does not know; answers whether it removed any. */
export function pruneUnknownFields(value: unknown, schema: object): boolean {
  return prune(value, schema as StructuralSchema);
}

function prune(value: unknown, schema: StructuralSchema): boolean {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return false;
  let pruned = false;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) pruned = prune(item, schema.items) || pruned;
    return pruned;
  }
  if (!isRecord(value)) return false;
  const { properties, additionalProperties } = schema;
  for (const key of Object.keys(value)) {
    const known = properties && Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (known) pruned = prune(value[key], known) || pruned;
    else if (typeof additionalProperties === 'object') pruned = prune(value[key], additionalProperties) || pruned;
    else if (additionalProperties === false) {
      delete value[key];
      pruned = true;
    }
  }
  return pruned;
}
