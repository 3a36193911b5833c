/**
 * The library's schemas (JSON Schema as ajv reads it: draft-07 with type lists, `const`,
 * `x-kubernetes-*` extensions) rewritten as OpenAPI 3.0 schemas, which kubectl reads.
 *
 *   const { schema, dropped } = toOpenApiSchema(ruleModule.schema, (path) => description);
 *
 * The rewrite keeps the meaning: `type: [T, 'null']` → `type: T, nullable: true`; several types →
 * `anyOf` of one schema per type (the type-specific keywords stay beside it, where they applied
 * to their type only, as before); `const` → one-value `enum`; `anyOf`/`oneOf` with a null branch →
 * `nullable`; numeric `exclusiveMinimum`/`exclusiveMaximum` → OpenAPI's boolean form. What OpenAPI
 * 3.0 cannot say is listed in `dropped` (a test keeps the list empty for the shipped schemas):
 * `patternProperties` become `additionalProperties` (the key patterns are lost).
 */

/** A JSON value as schemas are: plain objects, arrays and scalars. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

/** Gives the description of the field at `path` (dotted, arrays and map values transparent). */
export type DescribeField = (path: string) => string | undefined;

/** Keywords OpenAPI 3.0's Schema Object has, carried as they are. */
const KEPT = new Set([
  'title',
  'multipleOf',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'format',
  'default',
  'description',
  'readOnly',
  'writeOnly',
  'deprecated',
  'nullable',
  'example',
]);

/** Keywords that only document or identify a schema in JSON Schema; dropped without loss. */
const IGNORED = new Set(['$id', '$schema', '$comment', 'examples']);

export interface Converted {
  schema: Schema;
  /** `path: keyword` for each keyword OpenAPI 3.0 cannot carry. */
  dropped: string[];
}

export function toOpenApiSchema(source: object, describe: DescribeField = () => undefined): Converted {
  const dropped: string[] = [];
  const schema = convert(source as Schema, '', describe, dropped);
  return { schema, dropped };
}

function convert(source: Schema, path: string, describe: DescribeField, dropped: string[]): Schema {
  const out: Schema = {};
  const where = path || '<root>';
  for (const [keyword, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (keyword.startsWith('x-kubernetes-') || KEPT.has(keyword)) out[keyword] = structuredClone(value);
    else if (keyword === 'type') Object.assign(out, convertType(value));
    else if (keyword === 'const') out.enum = [structuredClone(value)];
    else if (keyword === 'properties') {
      const properties: Schema = {};
      for (const [name, child] of Object.entries(value as Schema)) {
        properties[name] = convert(child as Schema, join(path, name), describe, dropped);
      }
      out.properties = properties;
    } else if (keyword === 'items') {
      if (Array.isArray(value)) dropped.push(`${where}: items (tuple form)`);
      else out.items = convert(value as Schema, path, describe, dropped);
    } else if (keyword === 'additionalProperties') {
      out.additionalProperties = typeof value === 'boolean' ? value : convert(value as Schema, path, describe, dropped);
    } else if (keyword === 'patternProperties') {
      const branches = Object.values(value as Schema).map((child) => convert(child as Schema, path, describe, dropped));
      if (typeof source.additionalProperties !== 'object' || source.additionalProperties === null) {
        out.additionalProperties = branches.length === 1 ? branches[0]! : { anyOf: branches };
      }
      dropped.push(`${where}: patternProperties (key patterns)`);
    } else if (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') {
      const branches = (value as Schema[]).filter((b) => !isNullSchema(b));
      if (branches.length < (value as Schema[]).length) out.nullable = true;
      const converted = branches.map((b) => convert(b, path, describe, dropped));
      if (keyword !== 'allOf' && converted.length === 1) Object.assign(out, converted[0]);
      else if (converted.length > 0) out[keyword] = converted;
    } else if (keyword === 'not') out.not = convert(value as Schema, path, describe, dropped);
    else if (keyword === 'exclusiveMinimum' || keyword === 'exclusiveMaximum') {
      if (typeof value === 'boolean') out[keyword] = value;
      else {
        out[keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
        out[keyword] = true;
      }
    } else if (!IGNORED.has(keyword)) dropped.push(`${where}: ${keyword}`);
  }
  if (out.description === undefined) {
    const description = describe(path);
    if (description !== undefined) out.description = description;
  }
  return out;
}

const join = (path: string, name: string): string => (path ? `${path}.${name}` : name);

const isNullSchema = (s: Schema): boolean => s.type === 'null' && Object.keys(s).length === 1;

function convertType(type: Json): Schema {
  if (!Array.isArray(type)) return { type };
  const types = type.filter((t) => t !== 'null');
  const out: Schema = types.length === 1 ? { type: types[0]! } : { anyOf: types.map((t) => ({ type: t })) };
  if (types.length < type.length) out.nullable = true;
  return out;
}
