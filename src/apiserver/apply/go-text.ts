/**
 * Text as the Go side of server-side apply writes it. Field paths, managed-field sets and the
 * last-applied annotation are compared and shown byte for byte by clients, so they must come out
 * exactly as kube-apiserver writes them: strings ordered by their UTF-8 bytes, JSON with sorted
 * keys and HTML-safe escapes, Go's %q quoting and %v numbers. Written by hand: no npm package
 * reproduces Go's encoders.
 */
import { isRecord } from '../../util/is.js';

/**
 * Orders two strings as Go does (by UTF-8 bytes, which is code point order). JavaScript's `<`
 * orders UTF-16 units, which differs only between a surrogate and a unit from U+E000 up.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates stand for code points above U+FFFF: move them above U+E000..U+FFFF.
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

const HEX = '0123456789abcdef';
/** Printable ASCII other than `"`, `\`, `<`, `>` and `&`: left as it is by every escaper below. */
const PLAIN = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/;

export interface JsonEscapes {
  /** `<`, `>` and `&` as \u003c…, U+2028 and U+2029 escaped, invalid text as \ufffd (Go's HTML-safe mode). */
  readonly html: boolean;
  /**
   * Go's encoding/json (1.22 on) writes `\b` and `\f`; json-iterator, which structured-merge-diff
   * writes field sets with, writes them as `\u0008` and `\u000c`.
   */
  readonly shortBackspaceAndFormFeed: boolean;
}

/** json-iterator writing a value (structured-merge-diff's key and set-item values). */
export const JSONITER_VALUE: JsonEscapes = { html: true, shortBackspaceAndFormFeed: false };
/** json-iterator writing an object key with WriteObjectField: no HTML escaping. */
export const JSONITER_KEY: JsonEscapes = { html: false, shortBackspaceAndFormFeed: false };
/** encoding/json (the last-applied annotation). */
export const ENCODING_JSON: JsonEscapes = { html: true, shortBackspaceAndFormFeed: true };

/**
 * A JSON string as Go writes it: control characters as \u00XX (but \n, \r, \t), in HTML-safe
 * mode also `<`, `>`, `&`, U+2028 and U+2029. A lone surrogate (which Go could never hold: its
 * decoder makes it U+FFFD) becomes U+FFFD.
 */
export function goJsonString(s: string, escapes: JsonEscapes): string {
  if (PLAIN.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) {
      if (c === 0x22) out += '\\"';
      else if (c === 0x5c) out += '\\\\';
      else if (c === 0x0a) out += '\\n';
      else if (c === 0x0d) out += '\\r';
      else if (c === 0x09) out += '\\t';
      else if (escapes.shortBackspaceAndFormFeed && c === 0x08) out += '\\b';
      else if (escapes.shortBackspaceAndFormFeed && c === 0x0c) out += '\\f';
      else out += `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    } else if (escapes.html && (c === 0x3c || c === 0x3e || c === 0x26)) {
      out += `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    } else if (escapes.html && (c === 0x2028 || c === 0x2029)) {
      out += `\\u${c.toString(16)}`;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else {
        out += escapes.html ? '\\ufffd' : '\ufffd';
      }
    } else {
      out += s[i];
    }
  }
  return `${out}"`;
}

/**
 * A number as Go's JSON encoders write an int64 or a float64: what JavaScript writes too (the same
 * switch to exponents below 1e-6 and from 1e21). `-0` reads as the integer 0, as Go decodes it.
 */
const goJsonNumber = (n: number): string => JSON.stringify(n);

/**
 * A JSON value as Go writes a decoded one (maps and slices of interface{}): object keys sorted
 * by their bytes, strings HTML-escaped. Written with an explicit stack: decoded JSON may nest
 * deeper than the call stack reaches.
 */
export function goJson(value: unknown, escapes: JsonEscapes): string {
  let out = '';
  const pending: unknown[] = [value];
  const CLOSE_OBJECT = Symbol('}');
  const CLOSE_ARRAY = Symbol(']');
  const COMMA = Symbol(',');
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === CLOSE_OBJECT) out += '}';
    else if (v === CLOSE_ARRAY) out += ']';
    else if (v === COMMA) out += ',';
    else if (typeof v === 'string') out += goJsonString(v, escapes);
    else if (typeof v === 'number') out += goJsonNumber(v);
    else if (typeof v === 'boolean') out += v ? 'true' : 'false';
    else if (v instanceof KeyText) out += v.text;
    else if (Array.isArray(v)) {
      out += '[';
      pending.push(CLOSE_ARRAY);
      for (let i = v.length - 1; i >= 0; i--) {
        pending.push(v[i]);
        if (i > 0) pending.push(COMMA);
      }
    } else if (isRecord(v)) {
      out += '{';
      pending.push(CLOSE_OBJECT);
      const keys = Object.keys(v).sort(compareStrings);
      for (let i = keys.length - 1; i >= 0; i--) {
        pending.push(v[keys[i]!], new KeyText(`${goJsonString(keys[i]!, escapes)}:`));
        if (i > 0) pending.push(COMMA);
      }
    } else out += 'null';
  }
  return out;
}

class KeyText {
  constructor(readonly text: string) {}
}

/** Printable as Go's unicode.IsPrint has it: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;

/** A string as Go's %q (strconv.Quote) writes it. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 0x20 || (c < 0x7f && c > 0x20)) out += ch;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd'; // a lone surrogate: Go holds U+FFFD there
    else if (!NOT_PRINTABLE.test(ch)) out += ch;
    else {
      const short = ({ 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' } as Record<number, string>)[c];
      if (short) out += short;
      else if (c < 0x80) out += `\\x${HEX[c >> 4]}${HEX[c & 0xf]}`;
      else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, '0')}`;
      else out += `\\U${c.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}

/**
 * A number as Go's %v writes what JSON decoding made of it: an integer (int64) in full, anything
 * else (float64) in %g's shortest form, which switches to an exponent from 1e+06 and below 1e-04.
 */
export function goNumberV(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return Object.is(n, -0) ? '0' : BigInt(n).toString();
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, exp] = n.toExponential().split('e') as [string, string]; // shortest round-trip digits
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(n);
}
