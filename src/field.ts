/**
 * Field paths and validation causes, in the shape Kubernetes uses
 * (k8s.io/apimachinery/pkg/util/validation/field): a cause names the field by
 * path (`spec.rules[1].name`, `spec.overall[cpu]`), carries a cause type and a
 * message whose text matches `field.Error.ErrorBody()`.
 */

export type CauseType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueDuplicate'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany';

export interface Cause {
  type: CauseType;
  /** Dotted field path, e.g. `spec.taints[0].effect`. */
  field: string;
  /** The error body: `Unsupported value: "Foo": supported values: "A", "B"`. */
  message: string;
  badValue?: unknown;
}

/**
 * A warning, and the field it is about. `message` is the whole text, as a result's `warnings`
 * list it and the API server hands it to kubectl; `field` lets a report place it (a line in a
 * manifest) without reading the text.
 */
export interface Warning {
  /** The field the warning is about, a path as a cause's; '' when it is about the object as a whole, or about how it was checked. */
  field: string;
  message: string;
}

/** Field paths are plain strings; these build them the way Kubernetes renders them. */
export const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
export const index = (path: string, i: number): string => `${path}[${i}]`;
export const key = (path: string, k: string): string => `${path}[${k}]`;

/** The top-level field a path is in: `spec` for `spec.rules[1].name`, `webhooks` for `webhooks[0].name`. */
export const sectionOf = (field: string): string => {
  const dot = field.indexOf('.');
  const bracket = field.indexOf('[');
  return field.slice(0, Math.min(dot < 0 ? field.length : dot, bracket < 0 ? field.length : bracket));
};

const MAX_RENDERED_VALUE = 256;

/**
 * Characters a reader cannot see, escaped as Go's %q escapes them: JSON leaves zero-width
 * and line-separator characters as they are, and a name that fails for one looks valid.
 */
const INVISIBLE = /[\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/g;
const escapeInvisible = (text: string): string => text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Printable ASCII other than `"` and `\`: what JSON.stringify and escapeInvisible leave as it is. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A long string cut to `max` code points, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  const end = Math.min(text.length, max);
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

/**
 * Renders a value as Go's field errors do: strings quoted, numbers and booleans bare, the rest
 * as JSON. Long values (whole Lua scripts, big specs) would drown the message, so they are cut
 * before they are quoted, keeping the text well formed; the full value stays in badValue.
 */
export function renderValue(value: unknown): string {
  if (typeof value === 'string') {
    // Most values (names, enums, schedules) are their own JSON text between quotes, with nothing to escape.
    if (value.length <= MAX_RENDERED_VALUE && PLAIN_TEXT.test(value)) return `"${value}"`;
    const long = value.length > MAX_RENDERED_VALUE;
    return `${escapeInvisible(JSON.stringify(long ? cut(value, MAX_RENDERED_VALUE) : value))}${long ? '...' : ''}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === undefined) return 'null';
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch {
    return '<unrenderable>';
  }
  return shortText(text);
}

/** Text for a message, cut as renderValue cuts values: for a value a detail names without quotes. */
export function shortText(text: string): string {
  return text.length > MAX_RENDERED_VALUE ? `${cut(text, MAX_RENDERED_VALUE)}...` : text;
}

const withDetail = (head: string, detail?: string): string => (detail ? `${head}: ${detail}` : head);

export function required(field: string, detail?: string): Cause {
  return { type: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

export function invalid(field: string, badValue: unknown, detail: string): Cause {
  return { type: 'FieldValueInvalid', field, badValue, message: withDetail(`Invalid value: ${renderValue(badValue)}`, detail) };
}

export function duplicate(field: string, badValue: unknown, detail?: string): Cause {
  return { type: 'FieldValueDuplicate', field, badValue, message: withDetail(`Duplicate value: ${renderValue(badValue)}`, detail) };
}

/** The quoted list of supported values, rendered once per list (the schema's enums are constants). */
const renderedLists = new WeakMap<readonly string[], string>();
export function renderList(supported: readonly string[]): string {
  let list = renderedLists.get(supported);
  if (list === undefined) renderedLists.set(supported, (list = supported.map((s) => JSON.stringify(s)).join(', ')));
  return list;
}

export function notSupported(field: string, badValue: unknown, supported: readonly string[]): Cause {
  const list = renderList(supported);
  return {
    type: 'FieldValueNotSupported',
    field,
    badValue,
    message: `Unsupported value: ${renderValue(badValue)}${list ? `: supported values: ${list}` : ''}`,
  };
}

export function forbidden(field: string, detail: string): Cause {
  return { type: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

export function tooLong(field: string, maxLength: number): Cause {
  return { type: 'FieldValueTooLong', field, message: `Too long: may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` };
}

export function tooMany(field: string, actual: number, max: number): Cause {
  return { type: 'FieldValueTooMany', field, badValue: actual, message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}` };
}

/** What tells two causes apart: the same type, field and message is the same cause. */
export const causeKey = (cause: Cause): string => `${cause.type}\u0000${cause.field}\u0000${cause.message}`;

/** `spec.taints[0].effect: Unsupported value: "Foo": ...` */
export function formatCause(cause: Cause): string {
  return cause.field ? `${cause.field}: ${cause.message}` : cause.message;
}

/** The warning that replaces a cause in a value an UPDATE leaves as stored. */
export function keptWarning(cause: Cause): Warning {
  return { field: cause.field, message: `${formatCause(cause)} (as stored: this update does not change it, so it is not refused)` };
}

/**
 * Like `ErrorList.ToAggregate().Error()`: one error alone, several as `[e1, e2]`, duplicates
 * dropped; `more`, when given, is listed last (a note that there were more than these).
 */
export function aggregate(causes: readonly Cause[], more?: string): string {
  const lines = [...new Set(causes.map(formatCause))];
  if (more !== undefined) lines.push(more);
  if (lines.length === 0) return '';
  return lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
}
