/** Shared test helpers: table cases over a valid baseline, asserting cause type and field path. */
import { expect } from 'vitest';
import { validate, type ValidateOptions, type ValidationResult } from '../src/decode/object.js';

export interface Want {
  type: string;
  field: string;
}

/** A deep copy of `base` changed by `edit`; the edit may use `any` freely, as a user's YAML would. */
export function changed<T>(base: T, edit: (o: any) => void): T {
  const copy = structuredClone(base);
  edit(copy);
  return copy;
}

export const causesOf = (result: Pick<ValidationResult, 'causes'> & Partial<ValidationResult>): Want[] =>
  result.causes.map((c) => ({ type: c.type, field: c.field })).sort(byField);

const byField = (a: Want, b: Want) => a.field.localeCompare(b.field) || a.type.localeCompare(b.type);

/** A case as expectCauses saw it, for a suite that replays the rule tests elsewhere (test/apiserver/parity.test.ts). */
export interface SeenCase {
  object: unknown;
  options: ValidateOptions;
  allowed: boolean;
}
let caseRecorder: ((seen: SeenCase) => void) | undefined;
/** Hands every case expectCauses checks from now on to `record` (a copy, taken before it is validated). */
export function recordCases(record: (seen: SeenCase) => void): void {
  caseRecorder = record;
}

/** Validates synchronously (no lookups) and asserts exactly these causes, in any order. */
export function expectCauses(object: unknown, want: Want[], options: ValidateOptions = {}): ValidationResult {
  if (caseRecorder) {
    try {
      caseRecorder({ object: structuredClone(object), options: structuredClone(options), allowed: want.length === 0 });
    } catch {
      // An object JSON cannot hold (a function, a cycle) is no request body: nothing to replay.
    }
  }
  const result = validate(object, { ...options, lookups: undefined });
  expect(causesOf(result)).toEqual([...want].sort(byField));
  expect(result.allowed).toBe(want.length === 0);
  return result;
}

export const Required = (field: string): Want => ({ type: 'FieldValueRequired', field });
export const Invalid = (field: string): Want => ({ type: 'FieldValueInvalid', field });
export const Duplicate = (field: string): Want => ({ type: 'FieldValueDuplicate', field });
export const NotSupported = (field: string): Want => ({ type: 'FieldValueNotSupported', field });
export const Forbidden = (field: string): Want => ({ type: 'FieldValueForbidden', field });
export const TooLong = (field: string): Want => ({ type: 'FieldValueTooLong', field });

/** A table row: a change to the baseline and the exact causes it must produce ([] = allowed). */
export interface Case {
  name: string;
  edit: (o: any) => void;
  want: Want[];
  options?: ValidateOptions;
}
