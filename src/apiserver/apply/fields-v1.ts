/**
 * FieldsV1, the form of a managed-field set in `metadata.managedFields[].fieldsV1`: a JSON trie
 * whose keys are serialized path elements and whose `"."` key marks a step that is itself owned
 * as well as leading further (`{"f:spec":{".":{},"f:x":{}}}`). Keys come in the set's order
 * (self marker, then steps, as structured-merge-diff writes them), so the same set is always
 * the same text.
 */
import { FieldSet } from './field-set.js';
import { JSONITER_KEY, goJsonString } from './go-text.js';
import { fieldElement, indexElement, keyElement, serializeElement, valueElement, compareElements, type PathElement } from './path-element.js';
import { isRecord } from '../../util/is.js';

/** A FieldsV1 value as JSON: nested objects, each key a serialized step or `"."`. */
export type FieldsV1 = { [key: string]: FieldsV1 };

/** Sets an own property, even `__proto__`. */
function put(target: FieldsV1, key: string, value: FieldsV1): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** The set as a FieldsV1 object; its keys are in the order the text form has them. */
export const toFieldsV1 = (set: FieldSet): FieldsV1 => nodeObject(set, false);

function nodeObject(set: FieldSet, isMember: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (isMember && !set.empty()) out['.'] = {};
  walkContents(set, {
    leaf: (key) => put(out, key, {}),
    node: (key, child, member) => put(out, key, nodeObject(child, member)),
  });
  return out;
}

/** The set as text, byte for byte what structured-merge-diff's Set.ToJSON writes. */
export function fieldsV1Text(set: FieldSet): string {
  return `{${contentsText(set, false)}}`;
}

function contentsText(set: FieldSet, includeSelf: boolean): string {
  const parts: string[] = [];
  if (includeSelf && !set.empty()) parts.push('".":{}');
  walkContents(set, {
    leaf: (key) => parts.push(`${goJsonString(key, JSONITER_KEY)}:{}`),
    node: (key, child, isMember) => parts.push(`${goJsonString(key, JSONITER_KEY)}:{${contentsText(child, isMember)}}`),
  });
  return parts.join(',');
}

interface ContentVisitor {
  /** A member with nothing under it. */
  leaf(key: string): void;
  /** A step with paths under it, which may also be a member. */
  node(key: string, child: FieldSet, isMember: boolean): void;
}

/** The steps of one node in order: members and children merged, a step in both given once. */
function walkContents(set: FieldSet, visit: ContentVisitor): void {
  const { members, children } = set;
  let m = 0;
  let c = 0;
  while (m < members.length || c < children.length) {
    const order = m >= members.length ? 1 : c >= children.length ? -1 : compareElements(members[m]!, children[c]!.pe);
    if (order < 0) visit.leaf(serializeElement(members[m++]!));
    else if (order > 0) {
      const child = children[c++]!;
      visit.node(serializeElement(child.pe), child.set, false);
    } else {
      const child = children[c++]!;
      m++;
      visit.node(serializeElement(child.pe), child.set, true);
    }
  }
}

/** Why a FieldsV1 value cannot be read (structured-merge-diff's FromJSON refuses it). */
export class FieldsV1Error extends Error {
  override readonly name = 'FieldsV1Error';
}

/**
 * Reads a FieldsV1 value (parsed JSON). Keys of a kind this version does not know are dropped
 * with everything under them, as structured-merge-diff drops them; a malformed key or a value
 * that is not an object throws FieldsV1Error. `null` reads as an empty node.
 */
export function fromFieldsV1(fields: unknown): FieldSet {
  const set = new FieldSet();
  const pending: { node: unknown; prefix: PathElement[] }[] = [{ node: fields, prefix: [] }];
  while (pending.length > 0) {
    const { node, prefix } = pending.pop()!;
    if (node === null) {
      if (prefix.length > 0) set.insert(prefix);
      continue;
    }
    if (!isRecord(node)) throw new FieldsV1Error(`expected an object at ${describe(prefix)}, got ${JSON.stringify(node) ?? typeof node}`);
    let hasChildren = false;
    for (const key of Object.keys(node)) {
      if (key === '.') {
        if (prefix.length > 0) set.insert(prefix);
        continue;
      }
      const pe = parseElement(key);
      if (pe === UNKNOWN) continue;
      hasChildren = true;
      pending.push({ node: node[key], prefix: [...prefix, pe] });
    }
    if (!hasChildren && prefix.length > 0) set.insert(prefix);
  }
  return set;
}

/** Reads the text form, as the API receives it from a client's raw bytes. */
export function fromFieldsV1Text(text: string): FieldSet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new FieldsV1Error((err as Error).message);
  }
  return fromFieldsV1(parsed);
}

const describe = (prefix: readonly PathElement[]): string => (prefix.length === 0 ? 'the top' : prefix.map(serializeElement).join(' → '));

const UNKNOWN = Symbol('unknown element kind');

/** A serialized step: `f:name`, `k:{…}`, `v:…`, `i:N`; another kind letter is UNKNOWN. */
export function parseElement(key: string): PathElement | typeof UNKNOWN {
  if (key.length < 2) throw new FieldsV1Error('key must be 2 characters long:');
  if (key[1] !== ':') throw new FieldsV1Error(`missing colon: ${key}`);
  const body = key.slice(2);
  switch (key[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return valueElement(parseJson(body, key));
    case 'k': {
      const fields = parseJson(body, key);
      if (fields === null) return keyElement([]);
      if (!isRecord(fields)) throw new FieldsV1Error(`expected an object of key fields in ${key}`);
      return keyElement(Object.entries(fields));
    }
    case 'i': {
      if (!/^[+-]?[0-9]+$/.test(body)) throw new FieldsV1Error(`strconv.Atoi: parsing ${JSON.stringify(body)}: invalid syntax`);
      const index = Number(body);
      if (!Number.isSafeInteger(index)) throw new FieldsV1Error(`strconv.Atoi: parsing ${JSON.stringify(body)}: value out of range`);
      return indexElement(index);
    }
    default:
      return UNKNOWN;
  }
}

function parseJson(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new FieldsV1Error(`cannot read the value of ${key}`);
  }
}
