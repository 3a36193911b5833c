/**
 * Kubernetes resource quantities (`500m`, `4Gi`, `1e3`, `128`) parsed to exact
 * rationals, so that comparisons are by value: `1` equals `1000m`, `4Gi` equals
 * `4096Mi`. The grammar is apimachinery's `resource.ParseQuantity`, and so is the
 * precision: a value finer than a nano-unit is rounded away from zero to the next
 * one (`1e-10` is `1n`, `1.5n` is `2n`).
 */
import { memoizeVerdict } from './memo.js';

/** An exact value: numerator / denominator, denominator > 0. */
export interface Quantity {
  readonly num: bigint;
  readonly den: bigint;
}

/** apimachinery's grammar: a signed decimal number, then a binary or decimal suffix or an exponent. */
const NUMBER = String.raw`\d+(?:\.\d*)?|\.\d+`;
const SUFFIX = String.raw`Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+`;
/** The grammar, capturing sign, number and suffix for the parse. */
const QUANTITY = new RegExp(`^([+-]?)(${NUMBER})(${SUFFIX})?$`);
/** The same grammar without captures, for the check alone. */
const QUANTITY_SHAPE = new RegExp(`^[+-]?(?:${NUMBER})(?:${SUFFIX})?$`);

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Exponents beyond this are not quantities anyone means; refusing them keeps the BigInt maths bounded. */
const MAX_EXPONENT = 1000;

/** The finest quantity apimachinery keeps, as a power of ten: nano. */
const FINEST_EXPONENT = -9;
const NANO_DENOMINATOR = 10n ** BigInt(-FINEST_EXPONENT);

export const QUANTITY_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// Exact values cost BigInt arithmetic, and the same few spellings ('1', '4Gi', '500m') recur everywhere.
const parseText = memoizeVerdict(parse);

/** Parses a quantity string or JSON number; undefined when it is not one. */
export function parseQuantity(input: unknown): Quantity | undefined {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return undefined;
    text = String(input);
  } else if (typeof input === 'string') {
    text = input;
  } else {
    return undefined;
  }
  return parseText(text);
}

function parse(text: string): Quantity | undefined {
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign, digits, suffix = ''] = match as unknown as [string, string, string, string | undefined];
  const dot = digits.indexOf('.');
  const whole = dot >= 0 ? digits.slice(0, dot) + digits.slice(dot + 1) : digits;
  let exp10 = dot >= 0 ? -(digits.length - dot - 1) : 0;
  let num = BigInt(whole === '' ? '0' : whole);
  if (sign === '-') num = -num;
  if (suffix in BINARY) num *= BINARY[suffix]!;
  else if (suffix in DECIMAL) exp10 += DECIMAL[suffix]!;
  else if (suffix) {
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > MAX_EXPONENT) return undefined;
    exp10 += e;
  }
  if (exp10 >= 0) return normalize(num * 10n ** BigInt(exp10), 1n);
  if (exp10 < FINEST_EXPONENT) return roundedToNano(num, exp10);
  return normalize(num, 10n ** BigInt(-exp10));
}

/**
 * num × 10^exp10, finer than nano, in whole nano-units rounded away from zero, as ParseQuantity
 * rounds (inf.RoundUp, "if you want some resources, you should get some resources"). The value
 * is final here, a binary suffix already applied, as in Go.
 */
function roundedToNano(num: bigint, exp10: number): Quantity {
  const step = 10n ** BigInt(FINEST_EXPONENT - exp10);
  const magnitude = num < 0n ? -num : num;
  const nanos = (magnitude + step - 1n) / step;
  return normalize(num < 0n ? -nanos : nanos, NANO_DENOMINATOR);
}

/** The grammar alone, without building the exact value: this runs on every quantity in every object. */
export function isQuantity(input: unknown): boolean {
  if (typeof input === 'number') return Number.isFinite(input);
  if (typeof input !== 'string' || !QUANTITY_SHAPE.test(input)) return false;
  // Only an exponent suffix needs a second look (its size is bounded). Read from the end:
  // digits, an optional sign, then `e` or `E`. `1E` (exa) ends in no digits and passes.
  let i = input.length - 1;
  while (i >= 0 && isDigit(input.charCodeAt(i))) i--;
  const digitsFrom = i + 1;
  if (digitsFrom === input.length || i < 0) return true;
  let c = input.charCodeAt(i);
  if (c === PLUS || c === MINUS) c = input.charCodeAt(i - 1);
  if (c !== LOWER_E && c !== UPPER_E) return true;
  return Number(input.slice(digitsFrom)) <= MAX_EXPONENT;
}

const [PLUS, MINUS, LOWER_E, UPPER_E, ZERO_CHAR, NINE_CHAR] = ['+', '-', 'e', 'E', '0', '9'].map((c) => c.charCodeAt(0)) as [number, number, number, number, number, number];
const isDigit = (code: number) => code >= ZERO_CHAR && code <= NINE_CHAR;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function normalize(num: bigint, den: bigint): Quantity {
  const g = gcd(num, den);
  return g > 1n ? { num: num / g, den: den / g } : { num, den };
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantity(a: Quantity, b: Quantity): -1 | 0 | 1 {
  // Parses are cached, so the same spelling is the same object; whole quantities share a denominator.
  if (a === b) return 0;
  if (a.den === b.den) return a.num < b.num ? -1 : a.num > b.num ? 1 : 0;
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  // Whole quantities (the common case) add without a BigInt gcd.
  if (a.den === 1n && b.den === 1n) return { num: a.num + b.num, den: 1n };
  return normalize(a.num * b.den + b.num * a.den, a.den * b.den);
}

export const ZERO: Quantity = { num: 0n, den: 1n };

export function isWhole(q: Quantity): boolean {
  return q.den === 1n;
}
