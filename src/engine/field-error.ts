/**
 * A cause as apimachinery's `field.Error` keeps it: type, field, bad value and detail apart, the
 * message rendered only when a result is assembled (`render()`, once). The engine, the schema
 * pass and the rule modules make these; dedupe, ratcheting and the aggregate text compare them
 * by their parts (sameCause, causeKey), never by the rendered text.
 */
import type { FieldPath } from './path.js';
import { renderList, renderValue } from './render-value.js';
import type { Cause, CauseType, Field } from './field.js';

/** A cause not yet rendered: what a rule found, in parts. */
export class FieldError implements Cause {
  readonly #type: CauseType;
  readonly #field: Field;
  readonly #badValue: unknown;
  readonly #hasValue: boolean;
  readonly #detail: string | undefined;
  /** NotSupported's list of supported values. */
  readonly #supported: readonly string[] | undefined;
  /** TooLong's and TooMany's bound. */
  readonly #limit: number | undefined;
  #shownValue: string | undefined;
  #rendered: RenderedCause | undefined;

  constructor(type: CauseType, field: Field, hasValue: boolean, badValue: unknown, detail?: string, supported?: readonly string[], limit?: number) {
    this.#type = type;
    this.#field = field;
    this.#hasValue = hasValue;
    this.#badValue = badValue;
    // No detail and an empty one read alike: `Forbidden`.
    this.#detail = detail || undefined;
    this.#supported = supported;
    this.#limit = limit;
  }

  get type(): CauseType {
    return this.#type;
  }
  get field(): string {
    return this.#field.toString();
  }
  /** The field as a path value, when the cause was made with one. */
  get path(): FieldPath | undefined {
    const field = this.#field;
    return typeof field === 'string' ? undefined : field;
  }
  get badValue(): unknown {
    return this.#badValue;
  }
  /** Whether the cause carries a bad value (Required, Forbidden and TooLong do not). */
  get hasValue(): boolean {
    return this.#hasValue;
  }
  /** The bad value as the message shows it (cut when long), rendered once. */
  get shownValue(): string {
    return (this.#shownValue ??= renderValue(this.#badValue));
  }
  get detail(): string | undefined {
    return this.#detail;
  }
  get supported(): readonly string[] | undefined {
    return this.#supported;
  }
  get limit(): number | undefined {
    return this.#limit;
  }
  /** The rendered text (`Invalid value: "Foo": bad`): renders the cause, once, when first asked. */
  get message(): string {
    return this.render().message;
  }

  /** The cause as a result lists it: a plain object of type, field, bad value and message. Made once. */
  render(): Cause {
    return (this.#rendered ??= new RenderedCause(this, renderMessage(this)));
  }

  /** Serialized as rendered, wherever one ends up. */
  toJSON(): Cause {
    return this.render();
  }
}

/** The message text, from the parts: `field.Error.ErrorBody()`'s words. */
function renderMessage(error: FieldError): string {
  const detail = error.detail;
  switch (error.type) {
    case 'FieldValueRequired':
      return withDetail('Required value', detail);
    case 'FieldValueInvalid':
      return withDetail(`Invalid value: ${error.shownValue}`, detail);
    case 'FieldValueDuplicate':
      return withDetail(`Duplicate value: ${error.shownValue}`, detail);
    case 'FieldValueNotSupported': {
      const list = renderList(error.supported ?? NONE);
      return `Unsupported value: ${error.shownValue}${list ? `: supported values: ${list}` : ''}`;
    }
    case 'FieldValueForbidden':
      return withDetail('Forbidden', detail);
    case 'FieldValueTooLong': {
      const max = error.limit!;
      return `Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`;
    }
    case 'FieldValueTooMany': {
      const max = error.limit!;
      return withDetail(`Too many: ${error.badValue}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`, detail);
    }
  }
}

const NONE: readonly string[] = [];

const withDetail = (head: string, detail?: string): string => (detail ? `${head}: ${detail}` : head);

/**
 * A rendered cause: plain JSON of the keys a literal lists, in its order (`badValue` only for
 * the types that carry one); the parts it was rendered from stay reachable (`error`, `path`)
 * where JSON, spreads and equality checks do not look. Its prototype names Object as its
 * constructor, as a literal's does, so it equals, strictly, the literal that spells it.
 */
class RenderedCause implements Cause {
  // Declared only: the constructor adds them in the literals' order, badValue only when there is one.
  declare type: CauseType;
  declare field: string;
  declare badValue?: unknown;
  declare message: string;
  readonly #error: FieldError;
  constructor(error: FieldError, message: string) {
    this.type = error.type;
    this.field = error.field;
    if (error.hasValue) this.badValue = error.badValue;
    this.message = message;
    this.#error = error;
  }
  get path(): FieldPath | undefined {
    return this.#error.path;
  }
  get error(): FieldError {
    return this.#error;
  }
}
Object.defineProperty(RenderedCause.prototype, 'constructor', { value: Object });

/** The parts of a cause: its own when it is a FieldError, or the one it was rendered from; undefined for a literal. */
export const partsOf = (cause: Cause): FieldError | undefined =>
  cause instanceof FieldError ? cause : cause instanceof RenderedCause ? cause.error : undefined;

/** A cause as a result lists it: rendered when it is a FieldError, as it is otherwise. */
export const rendered = (cause: Cause): Cause => (cause instanceof FieldError ? cause.render() : cause);

export function required(field: Field, detail?: string): FieldError {
  return new FieldError('FieldValueRequired', field, false, undefined, detail);
}

export function invalid(field: Field, badValue: unknown, detail: string): FieldError {
  return new FieldError('FieldValueInvalid', field, true, badValue, detail);
}

export function duplicate(field: Field, badValue: unknown, detail?: string): FieldError {
  return new FieldError('FieldValueDuplicate', field, true, badValue, detail);
}

export function notSupported(field: Field, badValue: unknown, supported: readonly string[]): FieldError {
  return new FieldError('FieldValueNotSupported', field, true, badValue, undefined, supported);
}

export function forbidden(field: Field, detail: string): FieldError {
  return new FieldError('FieldValueForbidden', field, false, undefined, detail);
}

export function tooLong(field: Field, maxLength: number): FieldError {
  return new FieldError('FieldValueTooLong', field, false, undefined, undefined, undefined, maxLength);
}

/** `detail`, when given, says why the bound is what it is (Kubernetes' TooMany has none). */
export function tooMany(field: Field, actual: number, max: number, detail?: string): FieldError {
  return new FieldError('FieldValueTooMany', field, true, actual, detail, undefined, max);
}

/**
 * Whether two causes are the same mistake: the same type, field, detail, bound, supported values
 * and bad value as shown (two long values alike in what a message shows are one mistake to the
 * reader, as they were when causes were compared by their text). A cause without parts (a literal,
 * a spread copy) is compared by its type, field and text.
 */
export function sameCause(a: Cause, b: Cause): boolean {
  if (a.type !== b.type || a.field !== b.field) return false;
  const x = partsOf(a);
  const y = partsOf(b);
  if (!x || !y) return a.message === b.message;
  if (x === y) return true;
  return (
    x.detail === y.detail &&
    x.limit === y.limit &&
    x.hasValue === y.hasValue &&
    sameSupported(x.supported, y.supported) &&
    (x.badValue === y.badValue || x.shownValue === y.shownValue)
  );
}

const sameSupported = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((s, i) => s === b[i]));

/**
 * A text that tells causes apart as sameCause does, for a Set. A cause without parts is keyed
 * by its text, in a form no cause with parts has.
 */
export function causeKey(cause: Cause): string {
  const parts = partsOf(cause);
  if (!parts) return textKey(cause);
  const supported = parts.supported ? parts.supported.join('\u0001') : '';
  return `${cause.type}\u0000${cause.field}\u0000p\u0000${parts.detail ?? '\u0002'}\u0000${parts.limit ?? ''}\u0000${supported}\u0000${parts.hasValue ? parts.shownValue : ''}`;
}

/** The key for causes that are compared among themselves: by their parts when all have them, by their text otherwise. */
export const causeKeyFor = (causes: readonly Cause[]): ((cause: Cause) => string) => (causes.every(partsOf) ? causeKey : textKey);

/** Type, field and text: what told causes apart when only their text was kept. */
export const textKey = (cause: Cause): string => `${cause.type}\u0000${cause.field}\u0000t\u0000${cause.message}`;

/** Causes compared pairwise below this count; past it, by a key built for each. */
const FEW_CAUSES = 16;

/**
 * Each mistake once: the same mistake reported twice (by the schema and a rule, say) keeps its
 * first report, compared by its parts (sameCause). The list itself when nothing repeats.
 */
export function withoutRepeats(causes: Cause[]): Cause[];
export function withoutRepeats(causes: readonly Cause[]): readonly Cause[];
export function withoutRepeats(causes: readonly Cause[]): readonly Cause[] {
  if (causes.length > FEW_CAUSES) {
    const keyOf = causeKeyFor(causes);
    const seen = new Set<string>();
    return causes.filter((c) => {
      const id = keyOf(c);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }
  // Few causes (the usual case) compare pairwise, without building a key for each: a key holds the
  // whole detail, and some details run to hundreds of characters.
  let kept: Cause[] | undefined;
  for (let i = 0; i < causes.length; i++) {
    const c = causes[i]!;
    let repeat = false;
    for (let j = 0; j < i && !repeat; j++) repeat = sameCause(causes[j]!, c);
    if (repeat) kept ??= causes.slice(0, i);
    else kept?.push(c);
  }
  return kept ?? causes;
}
