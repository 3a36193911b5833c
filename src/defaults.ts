/**
 * applyDefaults(): the defaults the spec states, as the RFC 6902 JSON Patch that adds
 * them, together with the object it yields. The rule modules state each default at its
 * path, for a field that is missing or null (the API server drops a null the schema does not
 * allow before it defaults, so the two are one); rfc6902 applies the patch to a copy. The admission review needs only the patch
 * (defaultsPatch), so it neither copies nor diffs the object.
 */
import { applyPatch, type Operation as PatchOperation } from 'rfc6902';
import { escapeToken } from 'rfc6902/pointer.js';
import { rulesFor } from '../rules/index.js';
import type { Operation } from './rule.js';
import { copyJson } from './json-copy.js';

export interface DefaultOptions {
  /** Defaults that apply only on creation (Cluster resource models) are skipped on UPDATE. */
  operation?: Operation;
  /** A write to a subresource (`status`) gets no defaults: they are for the object itself. */
  subResource?: string;
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
  const patch = defaultsPatch(object, options);
  if (patch.length === 0) return { object, patch };
  const copy = copyJson(object);
  const failures = applyPatch(copy, patch).filter((failure) => failure !== null);
  // The operations come from reading this very object, so they always apply.
  if (failures.length) throw new Error(`defaults did not apply: ${failures.map(String).join('; ')}`);
  return { object: copy, patch };
}

/** The patch alone: what the mutating webhook answers. */
export function defaultsPatch(object: unknown, options: DefaultOptions = {}): PatchOperation[] {
  if (options.subResource) return [];
  const rules = typeof object === 'object' && object !== null ? rulesFor((object as { kind?: unknown }).kind) : undefined;
  if (!rules?.defaults) return [];
  const patch: PatchOperation[] = [];
  rules.defaults(object, {
    operation: options.operation ?? 'CREATE',
    now: options.now ?? new Date(),
    set: (path, value) => patch.push({ op: has(object, path) ? 'replace' : 'add', path: pointer(path), value }),
  });
  return patch;
}

/**
 * Whether the field at `path` is present (so the patch replaces it rather than adding it). A
 * field holding `undefined` (possible in an object built in code, never in JSON) is absent: the
 * rules default it, and a JSON Patch cannot replace what JSON cannot hold.
 */
function has(root: unknown, path: readonly (string | number)[]): boolean {
  let node = root;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return false;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node !== undefined;
}

/** An RFC 6901 pointer. */
const pointer = (path: readonly (string | number)[]): string => path.map((segment) => `/${escapeToken(String(segment))}`).join('');
