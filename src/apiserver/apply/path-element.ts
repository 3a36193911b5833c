/**
 * One step of a field path, as structured-merge-diff names it: a field of a map or struct
 * (`f:name`), an item of an associative list by its key fields (`k:{"name":"a"}`), an item of a
 * set by its value (`v:"a"`), or an item by its index (`i:0`, which only clients write). Steps
 * are ordered (fields, then keys, then values, then indexes) because managed-field sets are
 * written in that order, and clients diff them as text.
 */
import { isRecord } from '../../util/is.js';
import { JSONITER_KEY, JSONITER_VALUE, compareStrings, goJson, goJsonString, goNumberV, goQuote } from './go-text.js';

export type KeyFields = readonly (readonly [name: string, value: unknown])[];

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  /** Key fields sorted by name. */
  | { readonly kind: 'key'; readonly fields: KeyFields }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'index'; readonly index: number };

export const fieldElement = (name: string): PathElement => ({ kind: 'field', name });
export const valueElement = (value: unknown): PathElement => ({ kind: 'value', value });
export const indexElement = (index: number): PathElement => ({ kind: 'index', index });
export const keyElement = (fields: KeyFields): PathElement => ({
  kind: 'key',
  fields: [...fields].sort((a, b) => compareStrings(a[0], b[0])),
});

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind === 'field' && b.kind === 'field') return compareStrings(a.name, b.name);
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  switch (a.kind) {
    case 'key':
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return Math.sign(a.index - (b as typeof a).index);
    default:
      return 0;
  }
}

export const sameElement = (a: PathElement, b: PathElement): boolean => compareElements(a, b) === 0;

function compareKeyFields(a: KeyFields, b: KeyFields): number {
  for (let i = 0; ; i++) {
    if (i >= a.length || i >= b.length) return Math.sign(a.length - b.length);
    const byName = compareStrings(a[i]![0], b[i]![0]);
    if (byName !== 0) return byName;
    const byValue = compareValues(a[i]![1], b[i]![1]);
    if (byValue !== 0) return byValue;
  }
}

/** Numbers, then strings, booleans, lists, maps and null last: structured-merge-diff's value order. */
function rank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isRecord(v)) return 4;
  return 5;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < x.length && i < y.length; i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return Math.sign(x.length - y.length);
    }
    case 4:
      return compareMaps(a as Record<string, unknown>, b as Record<string, unknown>);
    default:
      return 0;
  }
}

/** Maps compare key by key in key order; the map missing a key another has there is the greater. */
function compareMaps(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length === 0 && kb.length === 0) return 0;
  const keys = [...new Set([...ka, ...kb])].sort(compareStrings);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let c: number;
    if (i === ka.length) c = -1;
    else if (i === kb.length) c = 1;
    else if (!Object.hasOwn(a, k)) c = 1;
    else if (!Object.hasOwn(b, k)) c = -1;
    else c = compareValues(a[k], b[k]);
    if (c !== 0) return c;
  }
  return 0;
}

/** The element as a FieldsV1 key: `f:name`, `k:{…}`, `v:…`, `i:0`, with json-iterator's escapes. */
export function serializeElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map(([name, value]) => `${goJsonString(name, JSONITER_KEY)}:${goJson(value, JSONITER_VALUE)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value, JSONITER_VALUE)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** The element as field paths show it in conflict messages: `.name`, `[name="a"]`, `[="a"]`, `[0]`. */
export function elementText(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([name, value]) => `${name}=${valueText(value)}`).join(',')}]`;
    case 'value':
      return `[=${valueText(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export const pathText = (path: readonly PathElement[]): string => path.map(elementText).join('');

/** A value as structured-merge-diff's value.ToString writes it. */
function valueText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return goNumberV(v);
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueText).join(',')}]`;
  if (isRecord(v)) {
    return Object.keys(v)
      .sort(compareStrings)
      .map((k) => `${k}=${valueText(v[k])}`)
      .join('');
  }
  return '{{undefined}}';
}
