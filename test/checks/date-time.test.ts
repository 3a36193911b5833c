/**
 * The date-time format is the canonical form alone: RFC 3339 as the control plane's Go parser
 * reads it. It must accept nothing ajv-formats rejects, and nothing outside that grammar and
 * its ranges: every combination of boundary values is put to both.
 */
import { describe, expect, it } from 'vitest';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { ajvFormats, isBase64, isCanonicalDateTime } from '../../src/schema/formats.js';
import { Obj, Opt, Str, Time } from '../../rules/_shared/schema.js';
import { checkSchema } from '../../src/schema/pass.js';
import { formatCause } from '../../src/engine/field.js';

const ajvFormatsDateTime = (fullFormats['date-time'] as { validate: (v: string) => boolean }).validate;
/**
 * RFC 3339 5.6, written out: full-date "T" partial-time time-offset, as the control plane's Go
 * parser reads it: "T" and "Z" in upper case, hours and minutes in range, and no leap second
 * (date-time-go.test.ts asks Go).
 */
const rfc3339Grammar = (v: string): boolean => {
  const [date, rest] = v.split('T');
  if (rest === undefined || v.split('T').length !== 2) return false;
  const offset = rest.match(/(?:Z|[+-]\d{2}:\d{2})$/)?.[0];
  const time = offset === undefined ? undefined : rest.slice(0, -offset.length);
  // Go refuses an hour past 23 or a minute past 59 whatever the offset (ajv-formats' leap-second rule does not).
  return /^\d{4}-\d{2}-\d{2}$/.test(date!) && time !== undefined && /^(?:[01]\d|2[0-3]):[0-5]\d:\d{2}(?:\.\d+)?$/.test(time) && !/^\d{2}:\d{2}:60/.test(time);
};
const reference = (v: string): boolean => ajvFormatsDateTime(v) && rfc3339Grammar(v);
const combined = (ajvFormats['date-time'] as { validate: (v: string) => boolean }).validate;

const years = ['0000', '1900', '2000', '2023', '2024', '999', '20245'];
const months = ['00', '01', '02', '04', '12', '13', '1'];
const days = ['00', '01', '28', '29', '30', '31', '32', '1'];
const times = ['00:00:00', '23:59:59', '24:00:00', '12:60:00', '12:00:60', '23:59:60', '12:00:00.5', '12:00:00.', '1:00:00', '12:00'];
const zones = ['Z', 'z', '', '+00:00', '+00:01', '+13:01', '-23:59', '+24:00', '+01:60', '+0100', '+01', ' Z'];
const separators = ['T', 't', ' ', '  ', 'TT'];

function* candidates(): Generator<string> {
  for (const y of years) for (const m of months) for (const d of days) yield `${y}-${m}-${d}T12:00:00Z`;
  for (const t of times) for (const z of zones) for (const sep of separators) yield `2024-02-29${sep}${t}${z}`;
  yield* ['', 'T', '2024-02-29', '12:00:00Z', '2024-02-29T12:00:00Z\n', ' 2024-02-29T12:00:00Z', '２０２４-02-29T12:00:00Z'];
}

describe('date-time format', () => {
  it('gives ajv-formats’ verdict, within RFC 3339’s grammar as Go reads it, on every boundary combination', () => {
    let accepted = 0;
    for (const value of candidates()) {
      expect({ value, valid: combined(value) }).toEqual({ value, valid: reference(value) });
      if (isCanonicalDateTime(value)) {
        expect({ value, reference: reference(value) }).toEqual({ value, reference: true });
        accepted++;
      }
    }
    // The fast path does take the common case.
    expect(accepted).toBeGreaterThan(50);
  });

  it('accepts the timestamps the API server writes and refuses impossible dates', () => {
    expect(combined('2026-11-22T08:00:00Z')).toBe(true);
    expect(combined('2026-11-22T08:00:00.123456+01:00')).toBe(true);
    expect(combined('2023-02-29T08:00:00Z')).toBe(false);
    expect(combined('2026-04-31T08:00:00Z')).toBe(false);
  });

  it('refuses what ajv-formats takes and RFC 3339 (and Go) do not: a space for T, offsets without their colon or minutes', () => {
    for (const value of ['2026-11-20 08:00:00Z', '2026-11-20T08:00:00+0200', '2026-11-20T08:00:00+02', '2026-11-20T08:00:00.5-0330']) {
      expect({ value, ajvFormats: ajvFormatsDateTime(value) }).toEqual({ value, ajvFormats: true });
      expect({ value, valid: combined(value) }).toEqual({ value, valid: false });
    }
  });

  it('refuses what RFC 3339 allows and Go’s time.Parse(time.RFC3339), behind metav1.Time, does not', () => {
    for (const value of ['2026-11-20t08:00:00z', '2026-11-20t08:00:00Z', '2026-11-20T08:00:00z', '2016-12-31T23:59:60Z']) {
      expect({ value, ajvFormats: ajvFormatsDateTime(value) }).toEqual({ value, ajvFormats: true });
      expect({ value, valid: combined(value) }).toEqual({ value, valid: false });
    }
  });
});

describe('byte format', () => {
  const reference = fullFormats.byte as (v: string) => boolean;

  it('gives ajv-formats’ verdict on every short string over a base64-ish alphabet', () => {
    const alphabet = ['A', 'z', '0', '+', '/', '=', '-', ' '];
    const strings = [''];
    for (let length = 1; length <= 5; length++) {
      for (const prefix of strings.filter((x) => x.length === length - 1)) for (const c of alphabet) strings.push(prefix + c);
    }
    for (const value of strings) expect({ value, valid: isBase64(value) }).toEqual({ value, valid: reference(value) });
    expect(strings.length).toBeGreaterThan(30_000);
  });

  it('accepts a certificate bundle and refuses one cut short', () => {
    const bundle = Buffer.from('-----BEGIN CERTIFICATE-----\n'.repeat(40)).toString('base64');
    expect(isBase64(bundle)).toBe(true);
    expect(isBase64(bundle.slice(0, -1))).toBe(false);
    expect(isBase64(`${bundle}\n`)).toBe(false);
  });
});

describe('the causes of the two formats', () => {
  it('say what the value must be', () => {
    const schema = Obj({ at: Opt(Time()), caBundle: Opt(Str({ format: 'byte' })) });
    expect(checkSchema(schema, { at: '2026-11-22', caBundle: 'abc' }).causes.map(formatCause)).toEqual([
      'at: Invalid value: "2026-11-22": must be an RFC 3339 date-time such as "2026-01-02T15:04:05Z"',
      'caBundle: Invalid value: "abc": must be base64-encoded data',
    ]);
  });
});
