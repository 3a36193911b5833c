/**
 * Text the way Go's standard library writes it, where kube-apiserver's answers quote or print
 * values: strconv.Quote (`%q`), fmt's `%v` of a JSON number, and encoding/json's Marshal (sorted
 * map keys, HTML-safe escaping).
 *
 *   goQuote('a"b') === '"a\\"b"'; goNumber(1e6 + 0.5) === '1.0000005e+06'; goJson({ b: 1, a: '<' }) === '{"a":"\\u003c","b":1}'
 */

/** strconv.Quote: printable characters as they are; the rest as Go escapes them. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ESCAPES[ch] !== undefined) out += ESCAPES[ch];
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else if (isGoPrintable(ch, code)) out += ch;
    else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

const ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const isGoPrintable = (ch: string, code: number): boolean => code === 0x20 || PRINTABLE.test(ch);

/**
 * fmt's `%v` of a number decoded from JSON: an integral value is an int64 there (apimachinery
 * decodes JSON numbers to int64 when they fit), so it prints in full; any other is a float64,
 * printed in the shortest form, with an exponent below 1e-4 and from 1e6 on (`%g`).
 */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, exponentText] = n.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}

/**
 * encoding/json's Marshal of a decoded JSON value: map keys sorted, `<`, `>`, `&`, U+2028 and
 * U+2029 escaped, numbers as Go writes a float64 (the same shortest form as JSON.stringify).
 */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${goJsonString(k)}:${goJson(v)}`).join(',')}}`;
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const goJsonString = (s: string): string =>
  JSON.stringify(s).replace(HTML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
