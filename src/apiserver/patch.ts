/**
 * PATCH bodies: JSON patch (RFC 6902, rfc6902) and JSON merge patch (RFC 7386, json-merge-patch),
 * what kubectl sends to custom resources (apply, patch --type json|merge, label, annotate, edit).
 * Strategic merge patch has no meaning for custom resources (415, as kube-apiserver answers it);
 * an apply patch is server-side apply (apply-body.ts reads it, the registry's apply merges it).
 */
import { applyPatch, type Operation } from 'rfc6902';
import mergePatch from 'json-merge-patch';
import { ApiError, badRequest, unsupportedMediaType } from './status.js';
import { type JsonObject } from './json.js';
import { isRecord } from '../util/is.js';

export type PatchType = 'json' | 'merge' | 'apply';

const MEDIA_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/apply-patch+yaml': 'apply',
};

/** The patch type of a Content-Type header (parameters such as `charset` aside), or a 415. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const type = MEDIA_TYPES[mediaType];
  if (!type) throw unsupportedMediaType();
  return type;
}

/**
 * A decoded patch, ready to apply to the stored object: throws the ApiError kube-apiserver answers
 * for a patch that does not parse (400) or does not apply (422).
 */
export function patcher(type: Exclude<PatchType, 'apply'>, patch: unknown): (current: JsonObject) => JsonObject {
  if (type === 'merge') {
    if (!isRecord(patch)) throw badRequest('invalid JSON merge patch: the patch must be a JSON object');
    return (current) => {
      const result: unknown = mergePatch.apply(current, patch);
      if (!isRecord(result)) throw badRequest('the patched object is not a JSON object');
      return result;
    };
  }
  if (!Array.isArray(patch) || !patch.every(isOperation)) throw badRequest('invalid JSON patch: it must be an array of operations, each with an "op" and a "path"');
  return (current) => {
    const failures = applyPatch(current, patch as Operation[]);
    const failed = failures.findIndex((f) => f !== null);
    // kube-apiserver answers a patch that does not apply with 422 and the patch library's reason.
    if (failed >= 0) throw unprocessable(`the JSON patch could not be applied: operation ${failed}: ${failures[failed]!.message}`);
    return current;
  };
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
const isOperation = (value: unknown): boolean => isRecord(value) && typeof value.op === 'string' && OPS.has(value.op) && typeof value.path === 'string';

function unprocessable(message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 422 });
}
