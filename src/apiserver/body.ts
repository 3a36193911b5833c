/**
 * Request bodies: read with a size limit, decoded as JSON the way kube-apiserver's strict decoder
 * reads them. JSON.parse keeps the last of two equal keys and says nothing; kube-apiserver reports
 * each as `duplicate field "<key>"` (sigs.k8s.io/json), so a body is scanned for them as well
 * (jsonc-parser's visitor sees every key, in order) when the request's fieldValidation wants to know.
 */
import type { IncomingMessage } from 'node:http';
import { readBody as readRequestBody } from '../server/body.js';
import { visit } from 'jsonc-parser';
import { badRequest, requestEntityTooLarge } from './status.js';

/** kube-apiserver's limit on a request body (`--max-request-bytes`, 3 MiB) */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** The body as text, read by the webhook's reader; too large is a 413, cut short a 400. */
export async function readBody(req: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<string> {
  const read = await readRequestBody(req, limit);
  if ('body' in read) return read.body.toString('utf8');
  if (read.problem === 'too-large') throw requestEntityTooLarge(limit);
  throw badRequest('the request body could not be read');
}

export interface Decoded {
  value: unknown;
  /** `duplicate field "<key>"`, once per repeated key, in body order. */
  duplicates: string[];
}

/**
 * Parses a JSON body. `what` names it in the 400 (`Cluster in version "v1alpha1" cannot be handled
 * as a Cluster`), as the handlers name the type they decode into.
 */
export function decodeJson(text: string, what: string, findDuplicates: boolean): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // RangeError from absurd nesting lands here too.
    throw badRequest(`${what}: ${(err as Error).message}`);
  }
  const shape = shapeOf(text);
  checkDepth(shape, what);
  return { value, duplicates: findDuplicates ? duplicateMessages(repeatedKeys(text, value, shape)) : [] };
}

/** apimachinery's limit on the nesting of a JSON body (util/json's maxDepth). */
export const MAX_JSON_DEPTH = 10_000;

/** What one pass over a JSON text's structure outside its strings finds. */
export interface JsonShape {
  /** The deepest nesting of objects and arrays. */
  depth: number;
  /** Colons: one per object property the text writes, repeats included. */
  colons: number;
}

/** One pass over `text`, for both the depth bound and the repeated-key check. */
export function shapeOf(text: string): JsonShape {
  let depth = 0;
  let deepest = 0;
  let colons = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) colons++;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return { depth: deepest, colons };
}

/**
 * Refuses (400) a JSON text nested deeper than MAX_JSON_DEPTH, as kube-apiserver's decoder does.
 * JSON.parse takes far deeper text than JSON.stringify, and the copies every write makes, can
 * handle: past this, a body would end in a stack overflow rather than an answer.
 */
export function checkDepth(shape: JsonShape, what: string): void {
  if (shape.depth > MAX_JSON_DEPTH) throw badRequest(`${what}: exceeded max depth of ${MAX_JSON_DEPTH}`);
}

export interface RepeatedKey {
  key: string;
  /** 1-based line of the repeat. */
  line: number;
}

/**
 * Every key an object of the JSON `text` (parsed to `value`, of `shape`) repeats, at each repeat, in
 * text order. JSON.parse keeps one of two equal keys, so the text's colons outnumber the value's
 * properties exactly when some key is repeated: counting them is much faster than the visitor that
 * then names the repeated keys (written here: no library counts them).
 */
export function repeatedKeys(text: string, value: unknown, shape: JsonShape): RepeatedKey[] {
  if (shape.colons === countProperties(value)) return [];
  const found: RepeatedKey[] = [];
  const open: Set<string>[] = [];
  visit(text, {
    onObjectBegin: () => void open.push(new Set()),
    onObjectEnd: () => void open.pop(),
    onObjectProperty: (property, _offset, _length, startLine) => {
      const keys = open[open.length - 1];
      if (!keys) return;
      if (keys.has(property)) found.push({ key: property, line: startLine + 1 });
      else keys.add(property);
    },
  });
  return found;
}

/** Object properties in a parsed value, at any depth (its own stack: JSON.parse takes nesting a recursion overflows on). */
function countProperties(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
      continue;
    }
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      count++;
      pending.push((v as Record<string, unknown>)[key]);
    }
  }
  return count;
}

/** `duplicate field "<key>"` once per repeated key, as sigs.k8s.io/json reports them. */
function duplicateMessages(repeats: readonly RepeatedKey[]): string[] {
  return [...new Set(repeats.map((r) => `duplicate field ${JSON.stringify(r.key)}`))];
}
