/**
 * Plain scalars as kubectl reads them: go-yaml v2's resolve(), then JSON. Each row is what
 * `kubectl` makes of `k: <scalar>` (strings where go-yaml finds nothing else).
 */
import { describe, expect, it } from 'vitest';
import jsyaml from 'js-yaml';
import { parse } from 'yaml';
import { KUBECTL_JSYAML_SCHEMA, KUBECTL_YAML } from '../src/input/yaml.js';

/** Manifests are read with js-yaml, `fleetgate test` suites with the yaml package: both must agree. */
const readers = {
  manifests: (scalar: string): unknown => (jsyaml.load(`k: ${scalar}`, { schema: KUBECTL_JSYAML_SCHEMA }) as { k: unknown }).k,
  'test suites': (scalar: string): unknown => (parse(`k: ${scalar}`, KUBECTL_YAML) as { k: unknown }).k,
};

const rows: [string, unknown][] = [
  // booleans: YAML 1.1's words, in the three spellings go-yaml knows
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((t): [string, unknown] => [t, true]),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((f): [string, unknown] => [f, false]),
  ['yEs', 'yEs'], ['tRUE', 'tRUE'], ['nope', 'nope'],
  // null
  ['~', null], ['null', null], ['Null', null], ['NULL', null], ['nULL', 'nULL'],
  // integers: strconv.ParseInt(s, 0, 64) after dropping underscores
  ['0', 0], ['-0', 0], ['7', 7], ['+7', 7], ['-7', -7], ['1_000', 1000], ['1__0', 10],
  ['0755', 493], ['-0755', -493], ['0_7', 7], ['00', 0],
  ['0x1F', 31], ['0X1f', 31], ['-0x10', -16], ['0o17', 15], ['0O17', 15], ['0b101', 5], ['-0b101', -5], ['0B11', 3],
  ['9223372036854775807', 9223372036854775807], ['18446744073709551615', 18446744073709551615],
  ['0xFFFFFFFFFFFFFFFF', 18446744073709551615], ['0x1FFFFFFFFFFFFFFFF', '0x1FFFFFFFFFFFFFFFF'],
  ['0x', '0x'], ['0b', '0b'], ['0b102', '0b102'], ['0o8', '0o8'], ['_1', '_1'],
  // a sign rules out ParseUint: signed values must fit int64
  ['-9223372036854775808', -9223372036854775808], ['+0x7FFFFFFFFFFFFFFF', 9223372036854775807], ['+0x8000000000000000', '+0x8000000000000000'],
  ['-0x8000000000000001', '-0x8000000000000001'],
  // go-yaml's last try reads what follows 0b as a signed binary number
  ['0b-1', -1], ['0b+11', 3], ['-0b-1', '-0b-1'], ['0b-', '0b-'],
  // floats: yamlStyleFloat after dropping underscores, or ParseFloat after a leading dot
  ['08', 8], ['09.5', 9.5], ['0.5', 0.5], ['5.', 5], ['1e3', 1000], ['1E3', 1000], ['1.5e-3', 0.0015], ['-1e+2', -100],
  ['+.5', 0.5], ['-.5e2', -50], ['1_0.5', 10.5], ['.5', 0.5], ['.5e3', 500], ['99999999999999999999', 1e20],
  ['.', '.'], ['..', '..'], ['.e3', '.e3'], ['e3', 'e3'], ['E3', 'E3'], ['1e', '1e'], ['1.e3', 1000], ['.5_0', '.5_0'],
  ['1e400', '1e400'], ['-1e400', '-1e400'], [`1${'0'.repeat(400)}`, `1${'0'.repeat(400)}`], ['.5e400', '.5e400'],
  ['.inf', Infinity], ['.Inf', Infinity], ['+.INF', Infinity], ['-.inf', -Infinity], ['inf', 'inf'], ['NaN', 'NaN'],
  // strings that only look like something
  ['1:20', '1:20'], ['22:22', '22:22'], ['2001-12-14', '2001-12-14'], ['2001-12-14T21:59:43.10-05:00', '2001-12-14T21:59:43.10-05:00'],
  ['1.0.0', '1.0.0'], ['v1', 'v1'], ['1,000', '1,000'], ['+', '+'], ['1a', '1a'], ['0xZZ', '0xZZ'], ['abc', 'abc'],
];

describe.each(Object.entries(readers))('plain scalars as kubectl reads them, in %s', (_, read) => {
  it.each(rows)('%s', (scalar, expected) => {
    expect(read(scalar)).toEqual(expected);
  });

  it('reads .nan as NaN', () => {
    expect(read('.nan')).toBeNaN();
    expect(read('.NaN')).toBeNaN();
  });

  it('reads explicitly tagged scalars as their tag says', () => {
    expect(read('!!int 12')).toBe(12);
    expect(read('!!int 0x10')).toBe(16);
    expect(read('!!float 1')).toBe(1);
    expect(read('!!str 12')).toBe('12');
    expect(read('!!bool yes')).toBe(true);
  });

  it('leaves quoted scalars strings', () => {
    for (const scalar of ['"yes"', "'0755'", '"1e3"', "'~'", '"e3"']) expect(typeof read(scalar)).toBe('string');
  });

});

it('reads keys as it reads values, in both parsers', () => {
  expect(Object.keys(jsyaml.load('on: 1\n0755: 2\ne3: 3', { schema: KUBECTL_JSYAML_SCHEMA }) as object).sort()).toEqual(['493', 'e3', 'true']);
  expect(Object.keys(parse('on: 1\n0755: 2\ne3: 3', KUBECTL_YAML) as object).sort()).toEqual(['493', 'e3', 'true']);
});
