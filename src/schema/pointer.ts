/**
 * Walking a kind's schema along a JSON pointer (ajv's instancePath): the field path it names,
 * the schema that applies there, the value the object holds there.
 */
import { unescapeToken } from 'rfc6902/pointer.js';
import { FieldPath } from '../engine/path.js';
import { memoizeVerdict, ownCopy } from '../checks/memo.js';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
};

/** Turns a JSON pointer into a field path, rendering map keys as `[key]` and struct fields as `.name`. */
export function pointerToPath(rootSchema: object, pointer: string): string {
  return walkAt(rootSchema, pointer).path.toString();
}

const ROOT_WALK = (rootSchema: object): Walk => ({ path: FieldPath.root, schema: rootSchema as JsonSchema, segments: [] });
export const walkAt = (rootSchema: object, pointer: string): Walk => (pointer === '' ? ROOT_WALK(rootSchema) : walkOf(rootSchema)(pointer));

/** The same mistakes recur at the same places; the walk through the schema is done once per place. */
function walkOf(rootSchema: object): (pointer: string) => Walk {
  let walk = walks.get(rootSchema);
  if (!walk) {
    // The keys are pieces of the pointer, which may hold a key cut from a whole file: they are kept as copies.
    // A walk keeps about twice its pointer (path and keys), and there is a cache per kind: 1,024
    // places kept the worst case (pointers of 512 characters) near 2 MiB a kind, 3.3 MiB when
    // every key is in a script outside Latin-1 (two bytes a character); a budget of 256
    // characters a place (pointer and walk counted alike) keeps it under 1 MiB, and places of
    // the usual length (under 128 characters) all 1,024.
    walk = memoizeVerdict(
      (pointer: string) => walkSegments(rootSchema, pointer.slice(1).split('/').map((segment) => ownCopy(unescapePointer(segment)))),
      { entries: WALKS_KEPT, chars: WALKS_KEPT * 256 },
    );
    walks.set(rootSchema, walk);
  }
  return walk;
}

export interface Walk {
  /** The field path, made of the segments below: its text is rendered when a cause asks for it. */
  path: FieldPath;
  schema: JsonSchema | undefined;
  /**
   * The pointer's keys, unescaped. Kept with the walk, the same strings serve every read of the
   * data at this place: V8 turns a key into its property-name form once, where a key cut from
   * the pointer anew would need that on every read.
   */
  segments: readonly string[];
}

const walks = new WeakMap<object, (pointer: string) => Walk>();
/** Places remembered per kind: the mistakes people make recur at far fewer. */
const WALKS_KEPT = 1024;

/**
 * Walks the schema along the data at an instance path (ajv's instancePath): the field path
 * it names, and the schema that applies there (undefined once the data leaves the schema).
 * Not through ajv's schemaPath, which is relative to whichever function ajv compiled: the
 * causes do not depend on how the validator was split.
 */
function walkSegments(rootSchema: object, segments: readonly string[]): Walk {
  let schema: JsonSchema | undefined = rootSchema as JsonSchema;
  let path = FieldPath.root;
  for (const segment of segments) {
    if (schema?.items && /^\d+$/.test(segment)) {
      path = path.index(Number(segment));
      schema = schema.items;
    } else if (schema?.properties && segment in schema.properties) {
      path = path.child(segment);
      schema = schema.properties[segment];
    } else if (schema?.patternProperties) {
      path = path.key(segment);
      schema = Object.values(schema.patternProperties)[0];
    } else if (schema && typeof schema.additionalProperties === 'object') {
      path = path.key(segment);
      schema = schema.additionalProperties;
    } else {
      path = /^\d+$/.test(segment) ? path.index(Number(segment)) : path.child(segment);
      schema = undefined;
    }
  }
  return { path, schema, segments };
}

const unescapePointer = (segment: string) => (segment.includes('~') ? unescapeToken(segment) : segment);

/** The value at the place keys from the root (a walk's segments) describe. */
export function valueAt(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    // Read as ajv reads it, inherited values included, but for a map key "__proto__" the object
    // lacks: that read is Object.prototype, which compares equal to {}.
    if (segment === '__proto__' && !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The schema that applies to the value at an instance path. */
const schemaAt = (rootSchema: object, instancePath: string): JsonSchema | undefined => walkAt(rootSchema, instancePath).schema;

/** Whether the value at `instancePath` is a property its object's schema requires. */
export function isRequiredProperty(rootSchema: object, instancePath: string): boolean {
  const slash = instancePath.lastIndexOf('/');
  if (slash < 0) return false;
  const owner = schemaAt(rootSchema, instancePath.slice(0, slash)) as { required?: unknown; properties?: object } | undefined;
  const name = unescapePointer(instancePath.slice(slash + 1));
  return Boolean(owner?.properties && name in owner.properties) && Array.isArray(owner?.required) && owner.required.includes(name);
}

/** The top-level field a non-empty pointer is in, unescaped: `spec` for `/spec/rules/1`. */
export function sectionOfPointer(pointer: string): string {
  const end = pointer.indexOf('/', 1);
  return unescapePointer(end < 0 ? pointer.slice(1) : pointer.slice(1, end));
}
