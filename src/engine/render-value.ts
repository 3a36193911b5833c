/**
 * Values and lists as Go's field errors render them inside a message (`"Foo"`, `7`, `{"a":1}`,
 * `"A", "B"`): the one place that writes a bad value as text.
 */
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

/** The quoted list of supported values, rendered once per list (the schema's enums are constants). */
const renderedLists = new WeakMap<readonly string[], string>();
export function renderList(supported: readonly string[]): string {
  let list = renderedLists.get(supported);
  if (list === undefined) renderedLists.set(supported, (list = supported.map((s) => JSON.stringify(s)).join(', ')));
  return list;
}
