/**
 * Validation causes, in the shape Kubernetes uses (k8s.io/apimachinery/pkg/util/validation/field):
 * a cause names the field by path (`spec.rules[1].name`, `spec.overall[cpu]`), carries a cause
 * type and a message whose text matches `field.Error.ErrorBody()`. A cause made from a FieldPath
 * keeps it (`path`), so a reader walks its steps instead of parsing the text.
 */
import { FieldPath } from './path.js';

export { FieldPath };

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
  /** The field as a path value, when the cause was made from one (not enumerable: results stay plain JSON). */
  readonly path?: FieldPath;
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
  /** The field as a path value, when the warning was made with one (not enumerable). */
  readonly path?: FieldPath;
}

/** A field, as a path value or as a path's text (the rule modules move to path values kind by kind). */
export type Field = FieldPath | string;

/**
 * One step down a path, of either form: a FieldPath gives a FieldPath, a text a text, each
 * rendered the way Kubernetes renders paths.
 */
export function child(path: FieldPath, name: string): FieldPath;
export function child(path: string, name: string): string;
export function child(path: Field, name: string): Field;
export function child(path: Field, name: string): Field {
  return typeof path === 'string' ? (path ? `${path}.${name}` : name) : path.child(name);
}
export function index(path: FieldPath, i: number): FieldPath;
export function index(path: string, i: number): string;
export function index(path: Field, i: number): Field;
export function index(path: Field, i: number): Field {
  return typeof path === 'string' ? `${path}[${i}]` : path.index(i);
}
export function key(path: FieldPath, k: string): FieldPath;
export function key(path: string, k: string): string;
export function key(path: Field, k: string): Field;
export function key(path: Field, k: string): Field {
  return typeof path === 'string' ? `${path}[${k}]` : path.key(k);
}

/** The path of a cause or a warning: the one it was made with, or its text read into steps. */
export const pathOf = (item: { field: string; path?: FieldPath }): FieldPath => item.path ?? FieldPath.parse(item.field);

/**
 * The causes and warnings made from a FieldPath keep it where JSON, spreads and equality checks
 * do not look (a private field, read through the `path` getter), so results stay the plain
 * objects they were. Classes rather than Object.defineProperty, which costs about 250 ns a
 * cause: 5.6% of validate()'s time over the bench corpus (its CPU profile), most of the 5%
 * the path values first cost (bench:ab). Their prototypes name Object as their constructor, as
 * a literal's does, so a cause still equals, strictly, the literal that spells it. The fields
 * are declared in the order the literals listed them: JSON keeps that order.
 */
class ValueCause implements Cause {
  type: CauseType;
  field: string;
  badValue: unknown;
  message: string;
  readonly #path: FieldPath;
  constructor(type: CauseType, path: FieldPath, badValue: unknown, message: string) {
    this.type = type;
    this.field = path.toString();
    this.badValue = badValue;
    this.message = message;
    this.#path = path;
  }
  get path(): FieldPath {
    return this.#path;
  }
}

class PlainCause implements Cause {
  type: CauseType;
  field: string;
  message: string;
  readonly #path: FieldPath;
  constructor(type: CauseType, path: FieldPath, message: string) {
    this.type = type;
    this.field = path.toString();
    this.message = message;
    this.#path = path;
  }
  get path(): FieldPath {
    return this.#path;
  }
}

class PathWarning implements Warning {
  field: string;
  message: string;
  readonly #path: FieldPath;
  constructor(path: FieldPath, message: string) {
    this.field = path.toString();
    this.message = message;
    this.#path = path;
  }
  get path(): FieldPath {
    return this.#path;
  }
}

for (const made of [ValueCause, PlainCause, PathWarning]) Object.defineProperty(made.prototype, 'constructor', { value: Object });

/** A cause with a bad value, keeping the path value when there is one. */
const valueCause = (type: CauseType, field: Field, badValue: unknown, message: string): Cause =>
  typeof field === 'string' ? { type, field, badValue, message } : new ValueCause(type, field, badValue, message);

/** A cause without one. */
const plainCause = (type: CauseType, field: Field, message: string): Cause =>
  typeof field === 'string' ? { type, field, message } : new PlainCause(type, field, message);

/** A warning about `field` ('' for none: the object as a whole, or how it was checked). */
export const warningAt = (field: Field, message: string): Warning => (typeof field === 'string' ? { field, message } : new PathWarning(field, message));

/** The top-level field a path is in: `spec` for `spec.rules[1].name`, `webhooks` for `webhooks[0].name`. */
export const sectionOf = (field: Field): string => {
  if (typeof field !== 'string') return field.section;
  const dot = field.indexOf('.');
  const bracket = field.indexOf('[');
  return field.slice(0, Math.min(dot < 0 ? field.length : dot, bracket < 0 ? field.length : bracket));
};

/** The section of a cause or a warning, from its path value when it has one. */
export const sectionOfItem = (item: { field: string; path?: FieldPath }): string => (item.path ? item.path.section : sectionOf(item.field));

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

export function required(field: Field, detail?: string): Cause {
  return plainCause('FieldValueRequired', field, withDetail('Required value', detail));
}

export function invalid(field: Field, badValue: unknown, detail: string): Cause {
  return valueCause('FieldValueInvalid', field, badValue, withDetail(`Invalid value: ${renderValue(badValue)}`, detail));
}

export function duplicate(field: Field, badValue: unknown, detail?: string): Cause {
  return valueCause('FieldValueDuplicate', field, badValue, withDetail(`Duplicate value: ${renderValue(badValue)}`, detail));
}

/** The quoted list of supported values, rendered once per list (the schema's enums are constants). */
const renderedLists = new WeakMap<readonly string[], string>();
export function renderList(supported: readonly string[]): string {
  let list = renderedLists.get(supported);
  if (list === undefined) renderedLists.set(supported, (list = supported.map((s) => JSON.stringify(s)).join(', ')));
  return list;
}

export function notSupported(field: Field, badValue: unknown, supported: readonly string[]): Cause {
  const list = renderList(supported);
  return valueCause('FieldValueNotSupported', field, badValue, `Unsupported value: ${renderValue(badValue)}${list ? `: supported values: ${list}` : ''}`);
}

export function forbidden(field: Field, detail: string): Cause {
  return plainCause('FieldValueForbidden', field, withDetail('Forbidden', detail));
}

export function tooLong(field: Field, maxLength: number): Cause {
  return plainCause('FieldValueTooLong', field, `Too long: may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`);
}

export function tooMany(field: Field, actual: number, max: number): Cause {
  return valueCause('FieldValueTooMany', field, actual, `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`);
}

/** What tells two causes apart: the same type, field and message is the same cause. */
export const causeKey = (cause: Cause): string => `${cause.type}\u0000${cause.field}\u0000${cause.message}`;

/** `spec.taints[0].effect: Unsupported value: "Foo": ...` */
export function formatCause(cause: Cause): string {
  return cause.field ? `${cause.field}: ${cause.message}` : cause.message;
}

/** The warning that replaces a cause in a value an UPDATE leaves as stored. */
export function keptWarning(cause: Cause): Warning {
  return warningAt(cause.path ?? cause.field, `${formatCause(cause)} (as stored: this update does not change it, so it is not refused)`);
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
