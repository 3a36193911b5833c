import { describe, expect, it } from 'vitest';
import { ZERO, addQuantity, compareQuantity, isQuantity, isWhole, parseQuantity, type Quantity } from '../../src/checks/quantity.js';

const q = (text: string | number): Quantity => {
  const parsed = parseQuantity(text);
  if (!parsed) throw new Error(`not a quantity: ${text}`);
  return parsed;
};
/** The exact value as numerator/denominator text. */
const value = (text: string | number): string => {
  const { num, den } = q(text);
  return den === 1n ? String(num) : `${num}/${den}`;
};

describe('quantity grammar (resource.ParseQuantity)', () => {
  const valid = [
    '0', '1', '128', '+1', '-1', '1.', '.5', '0.5', '1.25',
    '500m', '100n', '5u', '1k', '1M', '1G', '1T', '1P', '1E',
    '1Ki', '4Gi', '1.5Gi', '1Ti', '1Pi', '1Ei',
    '1e3', '1E3', '1e+3', '1e-3', '1.5e3', '9223372036854775807', '-2000', '1.2345',
  ];
  const invalid = ['', ' 1', '1 ', 'one', '1K', '1ki', '1KiB', '1e', '1.5.5', '--1', '1Gi1', '1mi', 'm', '.', '1e1001', '1e1009', 'Infinity', 'NaN', '0x10', '1,5'];

  it.each(valid)('accepts %j', (text) => {
    expect(isQuantity(text)).toBe(true);
    expect(parseQuantity(text)).toBeDefined();
  });
  it.each(invalid)('rejects %j', (text) => {
    expect(isQuantity(text)).toBe(false);
    expect(parseQuantity(text)).toBeUndefined();
  });

  it('bounds the exponent at 1000 either way', () => {
    for (const text of ['1e1000', '1e-1000', '1E+1000', '2.5e0001000']) expect(isQuantity(text)).toBe(true);
    for (const text of ['1e1001', '1e-1001', '1E+01001']) expect(isQuantity(text)).toBe(false);
  });

  it('parses the exponent bound either way', () => {
    expect(value('1e1000')).toBe(`1${'0'.repeat(1000)}`);
    // Finer than a nano-unit, so rounded up to 1n (see 'exact values').
    expect(value('1e-1000')).toBe('1/1000000000');
  });

  it('answers exactly as the parser does, for every combination of sign, digits and suffix', () => {
    const signs = ['', '+', '-', '--'];
    const numbers = ['0', '7', '1.', '.5', '12.34', '.', '', '1.2.3'];
    const suffixes = ['', 'm', 'k', 'K', 'Ki', 'ki', 'E', 'Ei', 'e', 'e3', 'E-3', 'e+', 'e1001', 'e-1001', 'mi', 'Gi1'];
    for (const sign of signs) {
      for (const digits of numbers) {
        for (const suffix of suffixes) {
          const text = `${sign}${digits}${suffix}`;
          expect({ text, grammar: isQuantity(text) }).toEqual({ text, grammar: parseQuantity(text) !== undefined });
        }
      }
    }
  });

  it('reads a long run of digits in one pass, with no backtracking over where the number ends', () => {
    // A grammar that lets the digits split two ways took 1 s for 20,000 digits and a stray letter, and
    // four times that for each doubling; this takes milliseconds. (The test timeout is the guard.)
    const digits = '1'.repeat(100_000);
    expect(isQuantity(`${digits}x`)).toBe(false);
    expect(parseQuantity(`${digits}x`)).toBeUndefined();
    expect(isQuantity(`${digits}.5Gi`)).toBe(true);
    expect(parseQuantity(`${digits}`)).toEqual({ num: BigInt(digits), den: 1n });
  });

  it('accepts finite JSON numbers and nothing else that is not a string', () => {
    expect(isQuantity(4)).toBe(true);
    expect(isQuantity(0.25)).toBe(true);
    expect(isQuantity(1e21)).toBe(true);
    expect(isQuantity(Number.POSITIVE_INFINITY)).toBe(false);
    expect(isQuantity(Number.NaN)).toBe(false);
    for (const other of [null, undefined, true, {}, ['1']]) {
      expect(isQuantity(other)).toBe(false);
      expect(parseQuantity(other)).toBeUndefined();
    }
  });
});

describe('exact values', () => {
  it.each([
    ['1', '1'],
    ['1000m', '1'],
    ['1.5', '3/2'],
    ['500m', '1/2'],
    ['100n', '1/10000000'],
    ['5u', '1/200000'],
    ['2k', '2000'],
    ['1M', '1000000'],
    ['1Ki', '1024'],
    ['4Gi', '4294967296'],
    ['0.5Gi', '536870912'],
    ['1e3', '1000'],
    ['1e-3', '1/1000'],
    ['1.5e3', '1500'],
    ['-2', '-2'],
    ['-1.5', '-3/2'],
    ['+.5', '1/2'],
  ])('%s is %s', (text, expected) => expect(value(text)).toBe(expected));

  it('reads JSON numbers by value', () => {
    expect(value(4)).toBe('4');
    expect(value(0.25)).toBe('1/4');
    expect(value(1e21)).toBe('1000000000000000000000');
  });

  // ParseQuantity keeps a value down to nano only: a finer one is rounded away from zero (inf.RoundUp).
  it.each([
    ['1e-10', '1n'],
    ['1.5n', '2n'],
    ['-1e-10', '-1n'],
    ['-1.5n', '-2n'],
    ['0.9n', '1n'],
    ['2.0000000001', '2000000001n'],
    ['1.2345678901', '1234567891n'],
    ['15e-10', '2n'],
    // A binary suffix applies first: 1e-10 × 1024 is 102.4n.
    ['0.0000000001Ki', '103n'],
    ['0.0000000000', '0'],
  ])('%s, finer than a nano-unit, reads as %s', (text, rounded) => expect(value(text)).toBe(value(rounded)));

  it.each([
    ['1n', '1/1000000000'],
    ['0.000000001', '1/1000000000'],
    ['1.000000001', '1000000001/1000000000'],
    ['10e-10', '1/1000000000'],
  ])('%s, whole in nano-units, keeps its value %s', (text, expected) => expect(value(text)).toBe(expected));

  it('rounds JSON numbers finer than a nano-unit too', () => {
    expect(value(1e-10)).toBe('1/1000000000');
    expect(value(-2.5e-10)).toBe('-1/1000000000');
  });
});

describe('compareQuantity', () => {
  it.each([
    ['1', '1000m'],
    ['4Gi', '4096Mi'],
    ['4Gi', '4294967296'],
    ['1k', '1000'],
    ['1e3', '1k'],
    ['1', '1000000000n'],
    ['1m', '1000u'],
    ['0', '-0'],
    ['0.1', '100m'],
  ])('%s equals %s', (a, b) => {
    expect(compareQuantity(q(a), q(b))).toBe(0);
    expect(compareQuantity(q(b), q(a))).toBe(0);
  });

  it.each([
    ['999m', '1'],
    ['1G', '1Gi'],
    ['1Mi', '1.1M'],
    ['-1', '0'],
    ['1n', '1u'],
    ['4095Mi', '4Gi'],
  ])('%s is less than %s', (a, b) => {
    expect(compareQuantity(q(a), q(b))).toBe(-1);
    expect(compareQuantity(q(b), q(a))).toBe(1);
  });
});

describe('addQuantity', () => {
  it('adds exactly across units', () => {
    expect(compareQuantity(addQuantity(q('5'), q('3000m')), q('8'))).toBe(0);
    expect(compareQuantity(addQuantity(q('20Gi'), q('12288Mi')), q('32Gi'))).toBe(0);
    expect(compareQuantity(addQuantity(q('0.1'), q('0.2')), q('300m'))).toBe(0);
    expect(compareQuantity(addQuantity(q('1'), q('-1')), ZERO)).toBe(0);
    expect(compareQuantity(addQuantity(ZERO, q('7')), q('7'))).toBe(0);
    expect(compareQuantity(addQuantity(q('500m'), q('1')), q('1.5'))).toBe(0);
    expect(compareQuantity(addQuantity(q('1'), q('500m')), q('1.5'))).toBe(0);
  });
});

describe('isWhole', () => {
  it.each(['1', '1000m', '1k', '1e2', '1Ki', '0.5Gi', '2000000000n', '0'])('%s is whole', (text) => expect(isWhole(q(text))).toBe(true));
  it.each(['1.5', '500m', '1e-1', '1n', '1001m'])('%s is not whole', (text) => expect(isWhole(q(text))).toBe(false));
  it('a sum of fractions can be whole', () => expect(isWhole(addQuantity(q('500m'), q('0.5')))).toBe(true));
});
