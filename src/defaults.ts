/**
 * applyDefaults(): the defaults the spec states, applied to a copy and returned
 * together with the RFC 6902 JSON Patch that turns the input into the result.
 */
import { createPatch, type Operation as PatchOperation } from 'rfc6902';
import type { VoidableDiff } from 'rfc6902/diff.js';
import { rulesFor } from '../rules/index.js';
import type { Operation } from './rule.js';

export interface DefaultOptions {
  /** Defaults that apply only on creation (Cluster resource models) are skipped on UPDATE. */
  operation?: Operation;
  /** The time written into defaulted timestamps; default now. */
  now?: Date;
}

export interface DefaultResult<T = unknown> {
  object: T;
  /** Empty when nothing changed. */
  patch: PatchOperation[];
}

export type { PatchOperation };

/** Never mutates `object`. Objects of kinds fleetgate does not serve come back unchanged. */
export function applyDefaults<T>(object: T, options: DefaultOptions = {}): DefaultResult<T> {
  const rules = typeof object === 'object' && object !== null ? rulesFor((object as { kind?: unknown }).kind) : undefined;
  if (!rules?.defaults) return { object, patch: [] };
  const copy = structuredClone(object);
  rules.defaults(copy, { operation: options.operation ?? 'CREATE', now: options.now ?? new Date() });
  const patch = createPatch(object, copy, itemByItem);
  return { object: patch.length ? copy : object, patch };
}

/**
 * Defaults fill fields in; they never insert, remove or reorder items. So arrays of
 * equal length are compared item by item, sparing rfc6902's edit-distance search, which
 * runs a deep diff per cell of an n×m table (70 µs for one Cluster with resource models).
 */
const itemByItem: VoidableDiff = (input, output, ptr) => {
  if (!Array.isArray(input) || !Array.isArray(output) || input.length !== output.length) return undefined;
  const at = ptr.toString();
  return input.flatMap((item, i) => createPatch(item, output[i], itemByItem).map((op) => ({ ...op, path: `${at}/${i}${op.path}` })));
};
