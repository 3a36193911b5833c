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
  try {
    return shortText(jsonPrefix(value, MAX_RENDERED_VALUE + 1) ?? 'null');
  } catch {
    return '<unrenderable>';
  }
}

/**
 * The first `limit` or more characters of `JSON.stringify(value)`, or all of it when shorter
 * (undefined where JSON.stringify gives undefined), written by hand because JSON.stringify has no
 * way to stop early: for a message of 256 characters it wrote whole bodies of several MiB, and on
 * an array nested 49,339 deep (found by the fuzzer) took 5 s, its check for cycles looking through
 * every enclosing value at each level. This stops once it has `limit` characters, so it never
 * goes deeper than `limit` levels. It throws where JSON.stringify throws (a cycle, a BigInt) if
 * that lies within those characters; past them, the value renders as its prefix.
 */
function jsonPrefix(value: unknown, limit: number): string | undefined {
  let out = '';
  const enclosing = new Set<object>();
  /** Writes `v` (the value under `key` of its holder); false when it writes nothing (undefined, a function, a symbol). */
  const write = (key: string, v: unknown): boolean => {
    if (v !== null && (typeof v === 'object' || typeof v === 'bigint') && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(key: string): unknown }).toJSON(key);
    if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
    if (v === null || typeof v === 'boolean' || typeof v === 'number') return (out += JSON.stringify(v)), true;
    if (typeof v === 'string') return (out += quotedPrefix(v, limit - out.length)), true;
    if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    if (typeof v !== 'object') return false;
    if (enclosing.has(v)) throw new TypeError('Converting circular structure to JSON');
    enclosing.add(v);
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length && out.length < limit; i++) {
        if (i > 0) out += ',';
        if (!write(String(i), v[i])) out += 'null';
      }
      out += ']';
    } else {
      out += '{';
      let first = true;
      for (const k of Object.keys(v)) {
        if (out.length >= limit) break;
        const mark = out.length;
        out += `${first ? '' : ','}${JSON.stringify(k)}:`;
        if (write(k, (v as Record<string, unknown>)[k])) first = false;
        else out = out.slice(0, mark);
      }
      out += '}';
    }
    enclosing.delete(v);
    return true;
  };
  return write('', value) ? out : undefined;
}

/**
 * JSON.stringify(text), or that of its first `want` characters for a longer one: each character
 * quotes to one or more, so the quoted prefix reaches as far as the caller reads, and the rest of
 * a long text is never copied. What differs at the end of the prefix (its closing quote, half a
 * surrogate pair escaped) lies past that.
 */
function quotedPrefix(text: string, want: number): string {
  return JSON.stringify(text.length <= want ? text : text.slice(0, Math.max(want, 0)));
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
