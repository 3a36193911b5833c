/**
 * Validation causes, in the shape Kubernetes uses (k8s.io/apimachinery/pkg/util/validation/field):
 * a cause names the field by path (`spec.rules[1].name`, `spec.overall[cpu]`), carries a cause
 * type and a message whose text matches `field.Error.ErrorBody()`. A cause made from a FieldPath
 * keeps it (`path`), so a reader walks its steps instead of parsing the text.
 */
import { FieldPath } from './path.js';
import * as parts from './field-error.js';

export { FieldPath };
export { renderList, renderValue, shortText } from './render-value.js';
export { causeKey, FieldError, rendered, sameCause } from './field-error.js';

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
 * The warnings made from a FieldPath keep it where JSON, spreads and equality checks do not look
 * (a private field, read through the `path` getter), so results stay the plain objects they were.
 * A class rather than Object.defineProperty, which costs about 250 ns an object. Its prototype
 * names Object as its constructor, as a literal's does; the fields are declared in the order the
 * literals list them, which JSON keeps. (Causes keep their parts the same way: field-error.ts.)
 */
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

Object.defineProperty(PathWarning.prototype, 'constructor', { value: Object });

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

/*
 * The causes, rendered at once: for callers outside the engine (the API server's own errors,
 * tests) that want the text now. The engine and the rule modules make theirs unrendered
 * (field-error.ts) and render them where a result is assembled.
 */
export const required = (field: Field, detail?: string): Cause => parts.required(field, detail).render();
export const invalid = (field: Field, badValue: unknown, detail: string): Cause => parts.invalid(field, badValue, detail).render();
export const duplicate = (field: Field, badValue: unknown, detail?: string): Cause => parts.duplicate(field, badValue, detail).render();
export const notSupported = (field: Field, badValue: unknown, supported: readonly string[]): Cause => parts.notSupported(field, badValue, supported).render();
export const forbidden = (field: Field, detail: string): Cause => parts.forbidden(field, detail).render();
export const tooLong = (field: Field, maxLength: number): Cause => parts.tooLong(field, maxLength).render();
export const tooMany = (field: Field, actual: number, max: number): Cause => parts.tooMany(field, actual, max).render();

/** `spec.taints[0].effect: Unsupported value: "Foo": ...` */
export function formatCause(cause: Cause): string {
  return cause.field ? `${cause.field}: ${cause.message}` : cause.message;
}

/** The warning that replaces a cause in a value an UPDATE leaves as stored. */
export function keptWarning(cause: Cause): Warning {
  return warningAt(cause.path ?? cause.field, `${formatCause(cause)} (as stored: this update does not change it, so it is not refused)`);
}

/**
 * Like `ErrorList.ToAggregate().Error()`: one error alone, several as `[e1, e2]`, each mistake
 * once (compared by its parts: sameCause); `more`, when given, is listed last (a note that there were more than these).
 */
export function aggregate(causes: readonly Cause[], more?: string): string {
  const lines = parts.withoutRepeats(causes).map(formatCause);
  if (more !== undefined) lines.push(more);
  if (lines.length === 0) return '';
  return lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
}
