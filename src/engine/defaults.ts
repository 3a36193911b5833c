/**
 * Defaulting: what fleetgate's mutating webhook writes into an object (the spec's defaults,
 * and Karmada's permanent-id labels and Work manifest pruning), as the RFC 6902 JSON Patch that
 * writes it, together with the object it yields. The rule modules state each change at its path,
 * a default for a field that is missing or null (the API server drops a null the schema does not
 * allow before it defaults, so the two are one); the patch is applied to a copy (applyAt). The
 * admission review needs only the patch (mutation), so it neither copies nor diffs the object.
 *
 * Deterministic but for one input: the UUID a permanent-id label gets, from `options.uuid`
 * (default crypto.randomUUID).
 */
import { randomUUID } from 'node:crypto';
import { applyPatch, type Operation as PatchOperation } from 'rfc6902';
import { escapeToken } from 'rfc6902/pointer.js';
import { clone } from 'rfc6902/util.js';
import { DEFAULT_OPERATIONS, MAX_CAUSES, type DefaultOperation, type KindRules, type Operation } from './rule.js';
import type { Cause } from './field.js';
import { rendered } from './field-error.js';
import { copyJson } from '../util/json-copy.js';

export interface DefaultOptions {
  /** Defaults that apply only on creation (Cluster resource models, a ClusterResourceBinding's id) are skipped on UPDATE. */
  operation?: Operation;
  /** A write to a subresource (`status`) gets no defaults: they are for the object itself. */
  subResource?: string;
  /** The time written into defaulted timestamps; default now. */
  now?: Date;
  /** The UUIDs written into missing permanent-id labels; default crypto.randomUUID. Called once per label written. */
  uuid?: () => string;
}

export interface DefaultResult<T = unknown> {
  object: T;
  /** Empty when nothing changed. */
  patch: PatchOperation[];
  /**
   * Present when the object cannot be mutated as Karmada's webhook would (a Work manifest that is
   * no object with a kind, say): the mutating webhook refuses the write with these causes, and
   * `patch` is empty and `object` the input.
   */
  causes?: Cause[];
  /** Set when there were more causes than MAX_CAUSES; `causes` are the first found. */
  truncated?: true;
}

export type { PatchOperation };

/**
 * The object with the defaults of the kind `rules` describe, and the patch that writes them (the
 * caller decoded the kind: applyDefaults(), review()). Never mutates `object`.
 */
export function defaultObject<T>(rules: KindRules | undefined, object: T, options: DefaultOptions = {}): DefaultResult<T> {
  const paths: Path[] = [];
  const { patch, causes, truncated } = changesOf(rules, object, options, paths);
  if (causes) return { object, patch, causes, ...(truncated ? { truncated } : {}) };
  if (patch.length === 0) return { object, patch };
  const copy = copyJson(object);
  // The operations come from reading this very object, so they always apply, but for one case: an
  // object built in code may hold one value at two places (JSON cannot), which the copy keeps one,
  // so a field removed at the first place is already gone at the second.
  const failures = patch
    .map((operation, i) => applyAt(copy, operation, paths[i]!))
    .filter((failure, i) => failure !== null && !(patch[i]!.op === 'remove' && failure.name === 'MissingError'));
  if (failures.length) throw new Error(`defaults did not apply: ${failures.map(String).join('; ')}`);
  return { object: copy, patch };
}

/** The patch, or the causes the object is refused for: what the mutating webhook answers. */
export function mutationOf(rules: KindRules | undefined, object: unknown, options: DefaultOptions = {}): Omit<DefaultResult, 'object'> {
  return changesOf(rules, object, options);
}

type Path = readonly (string | number)[];

/** mutationOf, also leaving in `paths` (when given) the path of each operation, as the rules named it. */
function changesOf(rules: KindRules | undefined, object: unknown, options: DefaultOptions, paths?: Path[]): Omit<DefaultResult, 'object'> {
  if (options.subResource) return { patch: [] };
  if (!rules?.defaults) return { patch: [] };
  const operation = options.operation ?? 'CREATE';
  if (!(rules.defaultOperations ?? DEFAULT_OPERATIONS).includes(operation as DefaultOperation)) return { patch: [] };
  const patch: PatchOperation[] = [];
  let causes: Cause[] | undefined;
  let truncated = false;
  rules.defaults(object, {
    operation,
    now: options.now ?? new Date(),
    uuid: options.uuid ?? randomUUID,
    set: (path, value) => {
      patch.push({ op: has(object, path) ? 'replace' : 'add', path: pointer(path), value });
      paths?.push(path);
    },
    remove: (path) => {
      patch.push({ op: 'remove', path: pointer(path) });
      paths?.push(path);
    },
    // Bounded as validate() bounds causes: a 7 MiB list of numbers is millions of manifests.
    refuse: (cause) => {
      if ((causes ??= []).length < MAX_CAUSES) causes.push(cause);
      else truncated = true;
    },
  });
  if (!causes) return { patch };
  const listed = causes.map(rendered);
  return truncated ? { patch: [], causes: listed, truncated } : { patch: [], causes: listed };
}

/** One operation applied by rfc6902, for what applyAt leaves to it. */
const byLibrary = (root: unknown, operation: PatchOperation): Error | null => applyPatch(root, [operation])[0] ?? null;

/** Segments rfc6902 skips on its way to the last (it stays where it is): such an operation is left to it. */
const SKIPPED_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Applies one operation of the patch at the path it was made from, as rfc6902's applyPatch would.
 * By hand for the common case only (a field of a plain object whose parents all exist), because
 * applyPatch parses back every pointer this file has just written from these very paths: for the
 * 1,000,000 operations of 500,000 CronFederatedHPA rules it took 2.5-3.2 s, most of it splitting
 * and unescaping. Anything else (an array element, a missing field to replace or remove, a parent
 * that is missing or no object) goes to applyPatch, so every result and error stays rfc6902's.
 */
function applyAt(root: unknown, operation: PatchOperation, path: Path): Error | null {
  let parent = root;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i]!;
    if (typeof parent !== 'object' || parent === null || SKIPPED_SEGMENTS.has(String(segment))) return byLibrary(root, operation);
    parent = (parent as Record<string | number, unknown>)[segment];
  }
  const key = path.at(-1);
  if (key === undefined || typeof parent !== 'object' || parent === null || Array.isArray(parent)) return byLibrary(root, operation);
  const fields = parent as Record<string | number, unknown>;
  if (operation.op === 'add') {
    fields[key] = clone(operation.value);
    return null;
  }
  if (!Object.hasOwn(fields, key) || fields[key] === undefined) return byLibrary(root, operation);
  if (operation.op === 'replace') fields[key] = clone(operation.value);
  else delete fields[key];
  return null;
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

/** An RFC 6901 pointer. Only a segment holding `~` or `/` needs escaping: indexes and field names seldom do. */
function pointer(path: readonly (string | number)[]): string {
  let text = '';
  for (const segment of path) {
    const token = String(segment);
    text += `/${token.includes('~') || token.includes('/') ? escapeToken(token) : token}`;
  }
  return text;
}
