import { describe, expect, it } from 'vitest';
import { aggregate, child, duplicate, FieldPath, index, invalid, key, keptWarning, notSupported, renderValue, sectionOf, tooLong, tooMany, warningAt } from '../src/engine/field.js';
import * as parts from '../src/engine/field-error.js';

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

describe('a field given as text or as a path value', () => {
  const RULES = FieldPath.of('spec', 'rules');

  it('steps down in the form it was given: text to text, a path value to a path value', () => {
    expect([child('', 'spec'), child('spec', 'rules'), index('spec.rules', 1), key('metadata.labels', 'app')]).toEqual(['spec', 'spec.rules', 'spec.rules[1]', 'metadata.labels[app]']);
    const stepped = [child(RULES, 'name'), index(RULES, 1), key(RULES, 'app')];
    for (const path of stepped) expect(path).toBeInstanceOf(FieldPath);
    expect(stepped.map(String)).toEqual(['spec.rules.name', 'spec.rules[1]', 'spec.rules[app]']);
  });

  it('finds the top-level field of a text as of a path value', () => {
    for (const text of ['spec', 'spec.rules[1].name', 'webhooks[0].name', 'metadata.labels[a.b/c]', 'status.conditions']) {
      expect(sectionOf(text)).toBe(FieldPath.parse(text).section);
    }
    expect([sectionOf('spec.rules[1].name'), sectionOf('webhooks[0].name'), sectionOf('spec'), sectionOf('')]).toEqual(['spec', 'webhooks', 'spec', '']);
  });

  it('keeps a warning plain for a text and keeps the path value it was made with', () => {
    const plain = warningAt('spec.rules', 'careful');
    expect(plain).toStrictEqual({ field: 'spec.rules', message: 'careful' });
    expect(plain.path).toBeUndefined();
    const made = warningAt(RULES, 'careful');
    expect(made).toStrictEqual({ field: 'spec.rules', message: 'careful' });
    expect(made.path).toBe(RULES);
  });

  it('words a cause an update leaves as stored as a warning at the same field, path value and all', () => {
    const fromPath = keptWarning(parts.invalid(RULES.index(1), 'x', 'bad').render());
    expect(fromPath).toStrictEqual({ field: 'spec.rules[1]', message: 'spec.rules[1]: Invalid value: "x": bad (as stored: this update does not change it, so it is not refused)' });
    expect(fromPath.path?.toString()).toBe('spec.rules[1]');
    expect(fromPath.path).toBeInstanceOf(FieldPath);
    const fromText = keptWarning(invalid('spec.rules[1]', 'x', 'bad'));
    expect(fromText).toStrictEqual(fromPath);
    expect(fromText.path).toBeUndefined();
  });

  it('lists the bad value of a duplicate and none for a value too long', () => {
    expect(duplicate('spec.rules[1].name', 'a', 'named twice')).toStrictEqual({ type: 'FieldValueDuplicate', field: 'spec.rules[1].name', badValue: 'a', message: 'Duplicate value: "a": named twice' });
    expect(tooLong('spec.name', 3)).toStrictEqual({ type: 'FieldValueTooLong', field: 'spec.name', message: 'Too long: may not be more than 3 bytes' });
  });
});

/** The integers from `first` to `last`, both included. */
function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
