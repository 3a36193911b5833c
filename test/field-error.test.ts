import { describe, expect, it, vi } from 'vitest';
import { FieldPath } from '../src/engine/path.js';
import { causeKey, causeKeyFor, FieldError, forbidden, invalid, notSupported, partsOf, required, sameCause, textKey, tooMany, withoutRepeats } from '../src/engine/field-error.js';
import { aggregate, invalid as renderedInvalid } from '../src/engine/field.js';
import { validate } from '../src/decode/object.js';
import { examples } from './fixtures/index.js';
import { changed } from './helpers.js';

const TAINT = FieldPath.of('spec', 'taints').index(0).child('effect');

describe('a cause keeps its parts apart', () => {
  it('type, field, bad value and detail, the path it was made with', () => {
    const cause = invalid(TAINT, 'Foo', 'bad');
    expect([cause.type, cause.field, cause.badValue, cause.detail, cause.path]).toEqual(['FieldValueInvalid', 'spec.taints[0].effect', 'Foo', 'bad', TAINT]);
    expect([notSupported(TAINT, 'x', ['A', 'B']).supported, tooMany(TAINT, 5, 3).limit, required(TAINT).hasValue]).toEqual([['A', 'B'], 3, false]);
  });

  it('renders its message when asked, once, and not when it is made', () => {
    const toJSON = vi.fn(() => ({ shown: true }));
    const cause = invalid(TAINT, { toJSON }, 'bad');
    expect(toJSON).not.toHaveBeenCalled();
    const first = cause.render();
    expect(cause.render()).toBe(first);
    expect(cause.message).toBe('Invalid value: {"shown":true}: bad');
    expect(toJSON).toHaveBeenCalledTimes(1);
    // Rendered, it is the plain object a literal spells, and still knows its parts.
    expect(first).toStrictEqual({ type: 'FieldValueInvalid', field: 'spec.taints[0].effect', badValue: { toJSON }, message: 'Invalid value: {"shown":true}: bad' });
    expect(partsOf(first)).toBe(cause);
    expect(JSON.stringify(cause)).toBe(JSON.stringify(first));
  });

  it('renders what a result lists, where the result is assembled: one cause once, with its parts', () => {
    const cluster = changed(examples.find((e) => e.kind === 'Cluster')!, (o) => (o.spec.syncMode = 'Sometimes'));
    const [cause] = validate(cluster).causes;
    expect(cause).toStrictEqual({ type: 'FieldValueNotSupported', field: 'spec.syncMode', badValue: 'Sometimes', message: 'Unsupported value: "Sometimes": supported values: "Push", "Pull"' });
    expect(partsOf(cause!)?.supported).toEqual(['Push', 'Pull']);
  });
});

describe('causes compare by their parts', () => {
  it('one mistake made twice is the same cause, however it was made', () => {
    expect(sameCause(invalid(TAINT, 'Foo', 'bad'), invalid('spec.taints[0].effect', 'Foo', 'bad'))).toBe(true);
    expect(causeKey(invalid(TAINT, 'Foo', 'bad'))).toBe(causeKey(invalid('spec.taints[0].effect', 'Foo', 'bad').render()));
    // No detail and an empty one read alike.
    expect(sameCause(forbidden(TAINT, ''), new FieldError('FieldValueForbidden', TAINT, false, undefined))).toBe(true);
  });

  it('the same text from other parts is another cause', () => {
    // Both read `Too many: 5: must have at most 3 items`, but one's bad value is the number 5 and the other's the
    // string "5" (JSON shows them apart): two mistakes, where comparing the text made them one.
    const count = tooMany(TAINT, 5, 3);
    const text = new FieldError('FieldValueTooMany', TAINT, true, '5', undefined, undefined, 3);
    expect(text.message).toBe(count.message);
    expect(sameCause(count, text)).toBe(false);
    expect(causeKey(count)).not.toBe(causeKey(text));
    // A supported-values list is compared item by item.
    expect(sameCause(notSupported(TAINT, 'x', ['a']), notSupported(TAINT, 'x', ['a', 'b']))).toBe(false);
    expect(sameCause(notSupported(TAINT, 'x', ['a', 'b']), notSupported(TAINT, 'x', ['a', 'b']))).toBe(true);
  });

  it('a bad value is compared as a message shows it: two long values alike there are one mistake to the reader', () => {
    const long = (tail: string) => `${'A'.repeat(300)}${tail}`;
    expect(sameCause(invalid(TAINT, long('1'), 'bad'), invalid(TAINT, long('2'), 'bad'))).toBe(true);
    expect(sameCause(invalid(TAINT, 1, 'bad'), invalid(TAINT, '1', 'bad'))).toBe(false);
  });

  it('a cause without parts (a spread copy) is compared by its text', () => {
    const made = renderedInvalid(TAINT, 'Foo', 'bad');
    expect(partsOf({ ...made })).toBeUndefined();
    expect(sameCause(made, { ...made })).toBe(true);
    expect(sameCause({ ...made }, { ...made, message: 'other' })).toBe(false);
  });

  it('dedupe and the aggregate text follow the parts, in short and long lists', () => {
    const count = tooMany(TAINT, 5, 3);
    const text = new FieldError('FieldValueTooMany', TAINT, true, '5', undefined, undefined, 3);
    expect(withoutRepeats([count, text, tooMany(TAINT, 5, 3)])).toEqual([count, text]);
    const many = Array.from({ length: 20 }, () => tooMany(TAINT, 5, 3));
    expect(withoutRepeats([...many, text])).toEqual([many[0], text]);
    const line = 'spec.taints[0].effect: Too many: 5: must have at most 3 items';
    expect(aggregate([count, tooMany(TAINT, 5, 3), text])).toBe(`[${line}, ${line}]`);
    expect(aggregate([count, tooMany(TAINT, 5, 3)])).toBe(line);
    expect(aggregate([...many, text])).toBe(`[${line}, ${line}]`);
    // The list is read, never reordered nor shortened in place.
    const listed = [count, tooMany(TAINT, 5, 3), text];
    aggregate(listed);
    expect(listed).toHaveLength(3);
  });
});

describe('which causes are one mistake', () => {
  it('a cause and its rendering are the same cause, and keep the path value it was made with', () => {
    const cause = invalid(TAINT, 'Foo', 'bad');
    expect(sameCause(cause, cause.render())).toBe(true);
    expect(cause.render().path).toBe(TAINT);
    expect(invalid('spec.taints[0].effect', 'Foo', 'bad').render().path).toBeUndefined();
  });

  it('a bound, a detail or a supported-values list that differs makes another mistake, in the pairwise and the keyed comparison', () => {
    const pairs: [FieldError, FieldError][] = [
      [tooMany(TAINT, 5, 3), tooMany(TAINT, 5, 4)],
      [invalid(TAINT, 'Foo', 'too big'), invalid(TAINT, 'Foo', 'too small')],
      [notSupported(TAINT, 'x', ['a', 'b']), notSupported(TAINT, 'x', ['a', 'c'])],
      [notSupported(TAINT, 'x', ['a']), notSupported(TAINT, 'x', ['a', 'b'])],
      // Lists whose items run together alike are still two lists.
      [notSupported(TAINT, 'x', ['ab', 'c']), notSupported(TAINT, 'x', ['a', 'bc'])],
    ];
    for (const [a, b] of pairs) {
      expect([sameCause(a, b), sameCause(b, a)]).toEqual([false, false]);
      expect(causeKey(a)).not.toBe(causeKey(b));
    }
  });

  it('two causes made apart from equal parts are one mistake, in the pairwise and the keyed comparison', () => {
    const pairs: [FieldError, FieldError][] = [
      [invalid(TAINT, 'Foo', 'bad'), invalid(TAINT, 'Foo', 'bad')],
      [invalid(TAINT, { a: [1] }, 'bad'), invalid(TAINT, { a: [1] }, 'bad')],
      [tooMany(TAINT, 5, 3), tooMany(TAINT, 5, 3)],
      [notSupported(TAINT, 'x', ['a', 'b']), notSupported(TAINT, 'x', ['a', 'b'])],
    ];
    for (const [a, b] of pairs) {
      expect(sameCause(a, b)).toBe(true);
      expect(causeKey(a)).toBe(causeKey(b));
    }
  });

  it('causes without parts are keyed by their text, and a list that has any is keyed that way throughout', () => {
    const made = renderedInvalid(TAINT, 'Foo', 'bad');
    const copy = { ...made };
    expect(causeKey(copy)).toBe(textKey(copy));
    expect(causeKey(copy)).not.toBe(causeKey({ ...copy, message: 'other' }));
    expect(textKey(copy)).not.toBe(textKey({ ...copy, message: 'other' }));
    const keyOf = causeKeyFor([made, copy]);
    expect(keyOf(made)).toBe(keyOf(copy));
    expect(causeKeyFor([made, invalid(TAINT, 'Foo', 'bad')])(made)).toBe(causeKey(made));
    // So a rendered cause and its spread copy aggregate to one line.
    expect(aggregate([made, copy])).toBe('spec.taints[0].effect: Invalid value: "Foo": bad');
  });
});
