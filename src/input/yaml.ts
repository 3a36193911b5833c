/**
 * YAML as kubectl reads it (go-yaml v2, then JSON): YAML 1.1 booleans (`yes`, `on`, `y`),
 * go-yaml's numbers (`0755` and `0o755` are octal, `1_000` is 1000, `+.5` a float, `e3` a
 * string), merge keys, but timestamps stay strings and `22:22` is not a base-60 number.
 * Two parsers share these rules: js-yaml reads manifests, and the `yaml` package reads
 * `fleetgate test` suites, whose checks need its document model.
 */
import jsyaml from 'js-yaml';
import type { DocumentOptions, ParseOptions, ScalarTag, SchemaOptions } from 'yaml';

/*
 * Plain scalars resolve as go-yaml v2's resolve() does. Its first character decides what a
 * scalar may be: a sign or a digit may start a number, a dot a float, a few letters a
 * boolean; anything else is a string at once. Every plain scalar of a document passes
 * through here, so the common case (a name, a path) costs one character lookup.
 */
const BOOLEANS = new Map<string, boolean>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((t) => [t, true] as const),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((f) => [f, false] as const),
]);
const SPECIAL_FLOATS = new Map<string, number>([
  ...['.nan', '.NaN', '.NAN'].map((n) => [n, Number.NaN] as const),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((n) => [n, Number.POSITIVE_INFINITY] as const),
  ...['-.inf', '-.Inf', '-.INF'].map((n) => [n, Number.NEGATIVE_INFINITY] as const),
]);

const mayBeNumber = (data: string): boolean => {
  const c = data.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46; // 0-9 + - .
};
/** y Y n N t T f F o O: the first letters of every boolean. */
const mayBeBoolean = (data: string): boolean => data.length <= 5 && BOOLEAN_INITIALS.has(data.charCodeAt(0));
const BOOLEAN_INITIALS = new Set([...'yYnNtTfFoO'].map((c) => c.charCodeAt(0)));

/** Go's strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64): base prefixes, a leading 0 for octal. */
const GO_INTEGER = /^([+-]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))$/;
/** Decimals that cannot leave int64: the common case, read without the general expression. */
const SHORT_DECIMAL = /^[-+]?[1-9][0-9]{0,14}$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function goInteger(data: string): number | undefined {
  if (SHORT_DECIMAL.test(data)) return Number(data);
  if (data.charCodeAt(0) === 46) return undefined; // '.': go-yaml tries only a float
  const plain = data.includes('_') ? data.replace(/_/g, '') : data;
  const m = GO_INTEGER.exec(plain);
  if (!m) return binaryFallback(plain);
  const [, sign, hex, octal, binary, leadingZero, decimal] = m;
  const digits = hex !== undefined ? `0x${hex}` : octal !== undefined ? `0o${octal}` : binary !== undefined ? `0b${binary}` : leadingZero !== undefined ? `0o${leadingZero.slice(1) || '0'}` : decimal!;
  const magnitude = BigInt(digits);
  const value = sign === '-' ? -magnitude : magnitude;
  // ParseUint, the second try, takes no sign: a signed value must fit int64.
  return value >= INT64_MIN && value <= (sign === '' ? UINT64_MAX : INT64_MAX) ? Number(value) : undefined;
}

/** go-yaml's last try: ParseInt(…, 2, 64) of what follows `0b`, which may carry a sign (`0b-1` is -1). */
const SIGNED_BINARY = /^0b([+-])([01]+)$/;
function binaryFallback(plain: string): number | undefined {
  const m = SIGNED_BINARY.exec(plain);
  if (!m) return undefined;
  const magnitude = BigInt(`0b${m[2]}`);
  const value = m[1] === '-' ? -magnitude : magnitude;
  return value >= INT64_MIN && value <= INT64_MAX ? Number(value) : undefined;
}

/** go-yaml's yamlStyleFloat, tried (without underscores) on what starts with a sign or a digit and is no integer. */
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** What Go's strconv.ParseFloat takes from a scalar starting with '.' (no underscores without a base prefix). */
const DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;

function goFloat(data: string): number | undefined {
  if (data.charCodeAt(0) === 46) return DOT_FLOAT.test(data) ? finite(Number(data)) : SPECIAL_FLOATS.get(data);
  const plain = data.includes('_') ? data.replace(/_/g, '') : data;
  return YAML_STYLE_FLOAT.test(plain) ? finite(Number(plain)) : SPECIAL_FLOATS.get(data);
}

/** ParseFloat reports a range error past float64 (`1e400`), and go-yaml then keeps the string. */
const finite = (n: number): number | undefined => (Number.isFinite(n) ? n : undefined);

/**
 * js-yaml asks a type to resolve a scalar and, when it does, to construct it right after:
 * the value worked out for the one is kept for the other.
 */
function resolvedOnce(parse: (data: string) => number | undefined) {
  let lastData: string | undefined;
  let lastValue: number | undefined;
  const value = (data: string) => {
    if (data !== lastData) {
      lastData = data;
      lastValue = parse(data);
    }
    return lastValue;
  };
  return { resolve: (data: string | null) => data !== null && mayBeNumber(data) && value(data) !== undefined, construct: value };
}

const bool11 = new jsyaml.Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && mayBeBoolean(data) && BOOLEANS.has(data),
  construct: (data: string) => BOOLEANS.get(data),
  predicate: (value: unknown) => typeof value === 'boolean',
});

const int11 = new jsyaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  ...resolvedOnce(goInteger),
  predicate: (value: unknown) => typeof value === 'number' && Number.isInteger(value),
});

const float11 = new jsyaml.Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  ...resolvedOnce(goFloat),
  predicate: (value: unknown) => typeof value === 'number',
});

/**
 * The yaml package's YAML 1.1 schema, with go-yaml's numbers: its own int and float tags
 * read `e3` and `.` as NaN and miss `0o17` and `+.5`. Whatever starts like a number goes
 * to one tag that answers as go-yaml does, a string when go-yaml finds no number.
 */
const goNumber: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:float',
  test: /^[-+.0-9]/,
  resolve: (text) => goInteger(text) ?? goFloat(text) ?? text,
};
/** The same, for scalars tagged `!!int` explicitly. */
const goInt: ScalarTag = { ...goNumber, default: false, tag: 'tag:yaml.org,2002:int' };
/** go-yaml's booleans, from the one list above (the yaml package's YAML 1.1 list is left out). */
const goBoolean: ScalarTag = {
  identify: (value) => typeof value === 'boolean',
  default: true,
  tag: 'tag:yaml.org,2002:bool',
  test: new RegExp(`^(?:${[...BOOLEANS.keys()].join('|')})$`),
  resolve: (text) => BOOLEANS.get(text)!,
  stringify: ({ value }) => (value ? 'true' : 'false'),
};
const REPLACED_TAGS = new Set(['tag:yaml.org,2002:int', 'tag:yaml.org,2002:float', 'tag:yaml.org,2002:timestamp', 'tag:yaml.org,2002:bool']);

export const KUBECTL_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => [...tags.filter((t) => !(typeof t === 'object' && (REPLACED_TAGS.has(t.tag) || t.format === 'TIME'))), goBoolean, goNumber, goInt],
};

// js-yaml exports its built-in types; @types/js-yaml does not declare them.
const builtin = (jsyaml as unknown as { types: Record<'null' | 'merge', jsyaml.Type> }).types;

/** js-yaml's schema for the same rules. */
export const KUBECTL_JSYAML_SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({
  implicit: [builtin.null, bool11, int11, float11, builtin.merge],
});
