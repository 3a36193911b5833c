import { describe, expect, it } from 'vitest';
import { aggregate, invalid, notSupported, renderValue, tooLong, tooMany } from '../src/engine/field.js';

describe('renderValue', () => {
  it('shows characters a reader cannot see as escapes, as Go %q does', () => {
    expect(renderValue('member\u200b1')).toBe('"member\\u200b1"');
    expect(renderValue('a\u2028b\u00adc')).toBe('"a\\u2028b\\u00adc"');
    expect(renderValue('tab\there')).toBe('"tab\\there"');
  });

  it('quotes every character as JSON does, apart from those escapes', () => {
    const invisible = new Set([0x7f, ...range(0x80, 0x9f), 0xad, ...range(0x200b, 0x200f), ...range(0x2028, 0x202e), ...range(0x2060, 0x2064), 0xfeff]);
    const wrong: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      const json = JSON.stringify(text);
      const expected = invisible.has(c) ? json.replace(String.fromCharCode(c), `\\u${c.toString(16).padStart(4, '0')}`) : json;
      if (renderValue(text) !== expected) wrong.push(`U+${c.toString(16).padStart(4, '0')}: ${renderValue(text)}, want ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('cuts a long string before quoting it: well-formed, never inside an escape or a surrogate pair', () => {
    const control = renderValue(`${'x'.repeat(250)}\u0001\u0001\u0001\u0001\u0001\u0001\u0001`);
    expect(control.endsWith('"...')).toBe(true);
    expect(() => JSON.parse(control.slice(0, -3))).not.toThrow();
    const emoji = renderValue(`${'x'.repeat(255)}😀😀`);
    expect(emoji.endsWith('"...')).toBe(true);
    expect(JSON.parse(emoji.slice(0, -3))).toBe('x'.repeat(255));
    expect(renderValue('short')).toBe('"short"');
  });

  it('cuts a string at 256 code units, one fewer only to keep a surrogate pair whole', () => {
    expect(renderValue('x'.repeat(256))).toBe(`"${'x'.repeat(256)}"`);
    expect(renderValue('x'.repeat(257))).toBe(`"${'x'.repeat(256)}"...`);
    expect(renderValue(`"${'x'.repeat(255)}`)).toBe(JSON.stringify(`"${'x'.repeat(255)}`));
    expect(renderValue(`${'x'.repeat(255)}\ue000yy`)).toBe(`"${'x'.repeat(255)}\ue000"...`);
    for (const pair of ['😀', '\u{10000}', '\u{10ffff}']) {
      expect(renderValue(`${'x'.repeat(255)}${pair}yy`)).toBe(`"${'x'.repeat(255)}"...`);
      expect(renderValue(`${'x'.repeat(254)}${pair}yy`)).toBe(`"${'x'.repeat(254)}${pair}"...`);
    }
  });

  it('shows numbers and booleans bare, nothing as null, and cuts long JSON', () => {
    expect(renderValue(8080)).toBe('8080');
    expect(renderValue(Number.NaN)).toBe('NaN');
    expect(renderValue(false)).toBe('false');
    expect(renderValue(undefined)).toBe('null');
    expect(renderValue(() => 0)).toBe('null');
    expect(renderValue({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    const exact = ['x'.repeat(252)];
    expect(renderValue(exact)).toBe(JSON.stringify(exact));
    const long = ['x'.repeat(253)];
    expect(renderValue(long)).toBe(`${JSON.stringify(long).slice(0, 256)}...`);
  });

  it('does not throw on a value JSON cannot hold', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(renderValue(cyclic)).toBe('<unrenderable>');
    expect(renderValue(10n)).toBe('<unrenderable>');
  });
});

describe('cause wording', () => {
  it('says byte and item for a limit of one, as apimachinery does', () => {
    expect(tooLong('f', 1).message).toBe('Too long: may not be more than 1 byte');
    expect(tooLong('f', 63).message).toBe('Too long: may not be more than 63 bytes');
    expect(tooMany('f', 2, 1).message).toBe('Too many: 2: must have at most 1 item');
    expect(tooMany('f', 5, 3)).toStrictEqual({ type: 'FieldValueTooMany', field: 'f', badValue: 5, message: 'Too many: 5: must have at most 3 items' });
  });

  it('lists no supported values when there are none', () => {
    expect(notSupported('f', 'x', []).message).toBe('Unsupported value: "x"');
    expect(notSupported('f', 'x', ['a', 'b']).message).toBe('Unsupported value: "x": supported values: "a", "b"');
  });

  it('aggregates nothing to an empty text, one cause bare, several in brackets', () => {
    expect(aggregate([])).toBe('');
    expect(aggregate([invalid('a', 1, 'x')])).toBe('a: Invalid value: 1: x');
    expect(aggregate([invalid('a', 1, 'x'), invalid('b', 2, 'y')])).toBe('[a: Invalid value: 1: x, b: Invalid value: 2: y]');
  });
});

/** The integers from `first` to `last`, both included. */
function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
