/**
 * ajv's errors on a suite file, as problems a suite's author can act on: where (a place in the
 * file's YAML, for its line and column) and what is wrong, worded with the schema's own
 * descriptions (schema.ts). One problem per mistake: the several errors ajv reports for one
 * value (each branch of an `anyOf`, each item of a list that must be something else) are one.
 */
import type { ErrorObject } from 'ajv';
import { isRecord } from '../../util/is.js';
import type { SchemaNode } from './schema.js';

export type Step = string | number;

export interface SuiteProblem {
  /** The value's place from the suite's root. */
  place: readonly Step[];
  /** The part of that place the problem points at: its value, or its key (an unknown key). */
  at: 'value' | 'key';
  message: string;
}

/** How a place reads in a problem: `case "name": expect.allowed`, `cases[1]`, `description`, `suite`. */
export function describePlace(suite: unknown, place: readonly Step[]): string {
  if (place[0] === 'cases' && typeof place[1] === 'number') {
    const rest = pathText(place.slice(2));
    const label = caseLabel(suite, place[1]);
    return rest ? `${label}: ${rest}` : label;
  }
  return pathText(place) || 'suite';
}

/** A case by its name when it has a usable one (whatever else is wrong with it), else by its index. */
export function caseLabel(suite: unknown, i: number): string {
  const name = caseName(isRecord(suite) && Array.isArray(suite.cases) ? suite.cases[i] : undefined);
  return name === undefined ? `cases[${i}]` : `case "${name}"`;
}

export const caseName = (value: unknown): string | undefined => (isRecord(value) && typeof value.name === 'string' && value.name !== '' ? value.name : undefined);

const pathText = (steps: readonly Step[]): string => steps.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');

/** The place an ajv instancePath names, indexes as numbers. */
function placeOf(instancePath: string, suite: unknown): Step[] {
  if (instancePath === '') return [];
  const steps: Step[] = [];
  let node = suite;
  for (const raw of instancePath.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const step: Step = Array.isArray(node) ? Number(key) : key;
    steps.push(step);
    node = (node as Record<Step, unknown> | undefined)?.[step];
  }
  return steps;
}

/** The schema that applies at a place (inside an anyOf, the branch whose shape the place fits). */
function schemaAt(root: SchemaNode, place: readonly Step[]): SchemaNode | undefined {
  let schema: SchemaNode | undefined = root;
  for (const step of place) {
    const branch: SchemaNode | undefined = schema?.anyOf?.find((b) => (typeof step === 'number' ? b.items : b.properties?.[step]));
    const from: SchemaNode | undefined = branch ?? schema;
    schema = typeof step === 'number' ? from?.items : from?.properties?.[step];
  }
  return schema;
}

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** "must be a non-empty string, got false (boolean); quote it to keep it text": YAML 1.1 reads `no` and `1.0` as other things. */
function stringProblem(value: unknown, nonEmpty: boolean): string {
  const read = typeof value === 'string' ? 'an empty string' : `${JSON.stringify(value) ?? String(value)} (${typeOf(value)})`;
  const quote = typeof value === 'boolean' || typeof value === 'number' ? '; quote it to keep it text' : '';
  return `must be a ${nonEmpty ? 'non-empty ' : ''}string, got ${read}${quote}`;
}

const valueAt = (root: unknown, place: readonly Step[]): unknown => place.reduce<unknown>((node, step) => (node as Record<Step, unknown> | undefined)?.[step], root);

/** The problems of a suite that ajv found `errors` in against `schema`, in the order ajv found them. */
export function suiteProblems(suite: unknown, schema: SchemaNode, errors: readonly ErrorObject[]): SuiteProblem[] {
  const problems: SuiteProblem[] = [];
  const seen = new Set<string>();
  const add = (problem: SuiteProblem) => {
    const id = `${problem.at}\u0000${JSON.stringify(problem.place)}\u0000${problem.message}`;
    if (!seen.has(id)) problems.push(problem);
    seen.add(id);
  };
  for (const e of errors) {
    const place = placeOf(e.instancePath, suite);
    const where = describePlace(suite, place);
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const title = schemaAt(schema, [...place, missing])?.title;
      add({ place, at: 'value', message: `${where}: missing "${missing}"${title ? ` (${title})` : ''}` });
      continue;
    }
    if (e.keyword === 'additionalProperties') {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys(schemaAt(schema, place)?.properties ?? {});
      add({ place: [...place, key], at: 'key', message: `${where}: unknown key "${key}" (expected one of: ${known.join(', ')})` });
      continue;
    }
    // An item of a list the schema describes makes the list wrong as a whole (`warnings`, `context`).
    let whole = place;
    while (schemaAt(schema, whole)?.description === undefined && typeof whole[whole.length - 1] === 'number') whole = whole.slice(0, -1);
    const described = schemaAt(schema, whole)?.description;
    if (described !== undefined) {
      add({ place: whole, at: 'value', message: `${describePlace(suite, whole)} must be ${described}` });
      continue;
    }
    // An undescribed value is a string (a name, a cause's field): say what was read instead.
    add({ place, at: 'value', message: `${where} ${stringProblem(valueAt(suite, place), (schemaAt(schema, place)?.minLength ?? 0) > 0)}` });
  }
  return problems;
}
