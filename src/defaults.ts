/**
 * applyDefaults(): the defaults the spec states, applied to a copy and returned
 * together with the RFC 6902 JSON Patch that turns the input into the result.
 */
import { createPatch, type Operation as PatchOperation } from 'rfc6902';
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
  const patch = createPatch(object, copy);
  return { object: patch.length ? copy : object, patch };
}
