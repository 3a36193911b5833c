/**
 * What the fuzzers feed fleetgate, as recipes: small, printable descriptions that fast-check
 * generates and build() turns into values. A recipe, not the value, is what a failure report
 * prints, so a 7 MiB input reads as `{"str":"é","n":3500000}` and reproduces from it. Values too
 * big or too deep for fast-check to build element by element (huge strings and arrays, deep
 * nesting) are described by their size and built here in one go.
 *
 * Objects come from two sources: mutations of the project's own valid examples (test/fixtures),
 * and random JSON shaped more or less like a resource.
 */
import fc from 'fast-check';
import { examples } from '../../test/fixtures/index.js';
import { kindsFor } from '../../rules/index.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type PathSegment = string | number;
export type Path = PathSegment[];

/** Values a library caller can hand in that JSON cannot carry (a YAML reader's dates, shared and cyclic references, code-built objects). */
export type JsOnly = 'undefined' | 'NaN' | 'Infinity' | '-Infinity' | '-0' | 'Date' | 'cycle' | 'sparse';

export type Value =
  | { v: Json }
  | { js: JsOnly }
  /** A string of `n` repetitions of `str`. */
  | { str: string; n: number }
  /** An array of `n` copies of `arr`. */
  | { arr: Value; n: number }
  /** An object of `n` keys k0…k(n-1), each holding `obj`. */
  | { obj: Value; n: number }
  /** `leaf` wrapped `depth` times in arrays or in objects under the key `a`. */
  | { nest: 'array' | 'object'; depth: number; leaf: Value };

export type Mutation =
  /** Replace what is at `at` (nothing happens where the parent is gone). */
  | { set: Path; to: Value }
  | { drop: Path }
  /** Add the key `key` (possibly `__proto__` or `constructor`, as an own property, as JSON.parse makes it) to the object at `at`. */
  | { add: Path; key: string; to: Value }
  /** Grow the array at `at` to `n` elements by repeating its own. */
  | { grow: Path; n: number }
  /** Put a copy of the value at `from` (in example `example`) at `at`. */
  | { copy: Path; example: number; to: Path };

export type ObjectRecipe =
  /** Example `example` of test/fixtures with `ops` applied in order. */
  | { example: number; ops: Mutation[] }
  /** Anything at all in place of the object. */
  | { any: Value };

export interface ReviewRecipe {
  object: ObjectRecipe;
  /** The stored object of an UPDATE: absent, the unchanged example, or another recipe. */
  old?: ObjectRecipe | 'example';
  operation: Json;
  subResource: string;
  /** Mutations of the AdmissionReview envelope itself, once built. */
  envelope: Mutation[];
  /** Judge unknown fields as errors (validate() only). */
  strict: boolean;
}

export const EXAMPLE_COUNT = examples.length;
const servedKinds = kindsFor();

// ---- building ----------------------------------------------------------------------------

/** A deep copy of JSON data; JSON.parse keeps `__proto__` keys as own properties, as the webhook's decoding does. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const exampleTexts = examples.map((e) => JSON.stringify(e));
const exampleCopy = (index: number) => JSON.parse(exampleTexts[index % EXAMPLE_COUNT]!) as Record<string, unknown>;

/** Sets `key` on `target` as an own property even when it is `__proto__`, as JSON.parse does. */
function setOwn(target: Record<string, unknown> | unknown[], key: PathSegment, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The value a recipe describes. `json` keeps to what JSON can carry (the webhook's bodies):
 * the JavaScript-only values become null.
 */
export function buildValue(recipe: Value, json = false): unknown {
  if ('v' in recipe) return copy(recipe.v);
  if ('js' in recipe) return json ? null : jsOnly(recipe.js);
  if ('str' in recipe) return recipe.str.repeat(recipe.n);
  if ('arr' in recipe) {
    const one = buildValue(recipe.arr, json);
    // One shared element: JSON writes it n times, and validate() must read it n times all the same.
    return new Array(recipe.n).fill(one);
  }
  if ('obj' in recipe) {
    const one = buildValue(recipe.obj, json);
    const out: Record<string, unknown> = {};
    for (let i = 0; i < recipe.n; i++) out[`k${i}`] = one;
    return out;
  }
  let value = buildValue(recipe.leaf, json);
  if (json && recipe.depth > JSON_STRINGIFY_DEPTH) {
    const leaf = toJsonText(value);
    return recipe.nest === 'array' ? new JsonText(`${'['.repeat(recipe.depth)}${leaf}${']'.repeat(recipe.depth)}`) : new JsonText(`${'{"a":'.repeat(recipe.depth)}${leaf}${'}'.repeat(recipe.depth)}`);
  }
  for (let i = 0; i < recipe.depth; i++) value = recipe.nest === 'array' ? [value] : { a: value };
  return value;
}

/** Roughly how many bytes of JSON a value recipe makes (to avoid building bodies far past any limit). */
export function estimateBytes(recipe: Value): number {
  if ('v' in recipe) return (JSON.stringify(recipe.v) ?? '').length;
  if ('js' in recipe) return 4;
  if ('str' in recipe) return recipe.n * Buffer.byteLength(JSON.stringify(recipe.str)) + 2;
  if ('arr' in recipe) return recipe.n * (estimateBytes(recipe.arr) + 1) + 2;
  if ('obj' in recipe) return recipe.n * (estimateBytes(recipe.obj) + 10) + 2;
  return recipe.depth * (recipe.nest === 'array' ? 2 : 6) + estimateBytes(recipe.leaf);
}

export function estimateObjectBytes(recipe: ObjectRecipe): number {
  if ('any' in recipe) return estimateBytes(recipe.any);
  let total = exampleTexts[recipe.example % EXAMPLE_COUNT]!.length;
  for (const op of recipe.ops) {
    if ('to' in op && typeof op.to === 'object' && !Array.isArray(op.to)) total += estimateBytes(op.to);
    // A grown array repeats its elements: at most the whole example again per element.
    if ('grow' in op) total += op.n * 200;
  }
  return total;
}

/** JSON.stringify recurses, and overflows the stack some thousands of levels down (JSON.parse does not). */
const JSON_STRINGIFY_DEPTH = 500;

/** JSON text to be written as it is: deep nesting built as text, which JSON.stringify cannot write. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** JSON.stringify, writing each JsonText as its text. */
export function toJsonText(value: unknown): string {
  const texts: string[] = [];
  const ids = new Map<JsonText, number>();
  const written = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof JsonText)) return v;
    let id = ids.get(v);
    if (id === undefined) ids.set(v, (id = texts.push(v.text) - 1));
    return `\u0001json-text-${id}\u0001`;
  });
  if (written === undefined) return 'null';
  return texts.length ? written.replace(/"\\u0001json-text-(\d+)\\u0001"/g, (_m, i: string) => texts[Number(i)]!) : written;
}

function jsOnly(kind: JsOnly): unknown {
  switch (kind) {
    case 'undefined':
      return undefined;
    case 'NaN':
      return Number.NaN;
    case 'Infinity':
      return Number.POSITIVE_INFINITY;
    case '-Infinity':
      return Number.NEGATIVE_INFINITY;
    case '-0':
      return -0;
    case 'Date':
      return new Date(0);
    case 'cycle': {
      const loop: Record<string, unknown> = { name: 'loop' };
      loop.self = loop;
      return loop;
    }
    case 'sparse':
      return [, 'x', ,];
  }
}

/** The parent of `path` inside `root`, if every step exists. */
function parentOf(root: unknown, path: Path): Record<string, unknown> | unknown[] | undefined {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  return typeof node === 'object' && node !== null ? (node as Record<string, unknown>) : undefined;
}

/** The value at `path` inside `root`, or undefined where the path leads nowhere. */
export function valueAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  return node;
}

/** Applies one mutation in place; one whose target is gone does nothing. */
export function mutate(root: Record<string, unknown>, mutation: Mutation, json: boolean): void {
  if ('set' in mutation) {
    const parent = parentOf(root, mutation.set);
    if (parent && mutation.set.length) setOwn(parent, mutation.set.at(-1)!, buildValue(mutation.to, json));
  } else if ('drop' in mutation) {
    const parent = parentOf(root, mutation.drop);
    const key = mutation.drop.at(-1);
    if (!parent || key === undefined) return;
    if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
    else delete (parent as Record<string, unknown>)[key];
  } else if ('add' in mutation) {
    const target = mutation.add.length ? valueAt(root, mutation.add) : root;
    if (typeof target === 'object' && target !== null && !Array.isArray(target)) setOwn(target as Record<string, unknown>, mutation.key, buildValue(mutation.to, json));
  } else if ('grow' in mutation) {
    const target = valueAt(root, mutation.grow);
    if (!Array.isArray(target) || target.length === 0) return;
    const start = target.length;
    for (let i = start; i < mutation.n; i++) target.push(target[i % start]);
  } else {
    const parent = parentOf(root, mutation.to);
    const source = valueAt(examples[mutation.example % EXAMPLE_COUNT], mutation.copy);
    if (parent && mutation.to.length && source !== undefined) setOwn(parent, mutation.to.at(-1)!, copy(source));
  }
}

export function buildObject(recipe: ObjectRecipe, json = false): unknown {
  if ('any' in recipe) return buildValue(recipe.any, json);
  const object = exampleCopy(recipe.example);
  for (const op of recipe.ops) mutate(object, op, json);
  return object;
}

export interface BuiltReview {
  object: unknown;
  oldObject: unknown;
  operation: unknown;
  subResource: string;
  /** The AdmissionReview, envelope mutations applied. */
  review: Record<string, unknown>;
}

export function buildReview(recipe: ReviewRecipe, uid: string, json = false): BuiltReview {
  const object = buildObject(recipe.object, json);
  const oldObject =
    recipe.old === undefined ? undefined : recipe.old === 'example' && 'example' in recipe.object ? exampleCopy(recipe.object.example) : recipe.old === 'example' ? undefined : buildObject(recipe.old, json);
  const kind = typeof (object as { kind?: unknown })?.kind === 'string' ? (object as { kind: string }).kind : 'Cluster';
  const info = servedKinds.find((k) => k.kind === kind);
  const request: Record<string, unknown> = {
    uid,
    kind: { group: info?.group ?? 'example.io', version: info?.version ?? 'v1', kind },
    resource: { group: info?.group ?? 'example.io', version: info?.version ?? 'v1', resource: info?.plural ?? 'things' },
    name: (object as { metadata?: { name?: unknown } })?.metadata?.name ?? 'x',
    operation: recipe.operation,
    userInfo: { username: 'system:admin', groups: ['system:masters'] },
    object,
    dryRun: false,
  };
  if (recipe.subResource) request.subResource = recipe.subResource;
  if (oldObject !== undefined) request.oldObject = oldObject;
  const review: Record<string, unknown> = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
  for (const op of recipe.envelope) mutate(review, op, json);
  return { object, oldObject, operation: recipe.operation, subResource: recipe.subResource, review };
}

// ---- generating ----------------------------------------------------------------------------

/** Every path inside `value`, the root excluded, objects and arrays included. */
export function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    out.push(path);
    pathsOf(child, path, out);
  }
  return out;
}

const examplePaths = examples.map((e) => pathsOf(e));
const objectPaths = examples.map((e, i) => [[], ...examplePaths[i]!.filter((p) => isPlainObject(valueAt(e, p)))] as Path[]);
const arrayPaths = examples.map((e, i) => examplePaths[i]!.filter((p) => Array.isArray(valueAt(e, p))));

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Values of the wrong type, or the right type and wrong content, for any field: what the
 * systematic sweep puts at every path, and what random mutations draw from first.
 */
export const WRONG_VALUES: readonly Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  2 ** 53 + 1,
  '',
  'x',
  '-1',
  ' ',
  '\u0000',
  '\ud800',
  [],
  [null],
  {},
  { '': null },
  'a'.repeat(1024),
];

/** Keys that break careless code: prototype keys, an empty key, dots and slashes, a long key. */
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '', 'a.b', 'a/b', '~1', '$ref', '0', 'k'.repeat(300), 'ünïcödé', '\u0000'];

/** Repeating units for huge strings: one byte, two, four (a surrogate pair), escapes JSON must write, a lone surrogate, digits, spaces. */
const STRING_UNITS = ['a', ' ', 'é', '😀', '\\', '"', '\n', '0', '\ud800', 'ab-', '*/1 '];

/** Sizes skewed small (up to `huge`): the big ones are the expensive ones, so they come rarely. */
const size = (huge: number) =>
  fc.oneof(
    { weight: 4000, arbitrary: fc.integer({ min: 0, max: 64 }) },
    { weight: 60, arbitrary: fc.integer({ min: 65, max: 1_000 }) },
    { weight: 4, arbitrary: fc.integer({ min: 1_001, max: 50_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 50_001, max: huge }) },
  );

const jsonScalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom(...WRONG_VALUES),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);

/** Random JSON, sometimes with prototype keys (as own properties, as JSON.parse makes them). */
export const jsonValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: jsonScalar },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json> },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...HOSTILE_KEYS), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>)
      .map(([key, value]) => JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}}`) as Json),
  },
);

/** Arbitraries built once: chain() asks for them for every input. */
const cached = <A extends unknown[], T>(make: (...args: A) => T) => {
  const made = new Map<string, T>();
  return (...args: A): T => {
    const key = JSON.stringify(args);
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(...args)));
    return value;
  };
};

/** Any value recipe; `js` adds values only a library caller can pass. */
export const valueRecipe = cached((js: boolean): fc.Arbitrary<Value> => {
  const small: fc.Arbitrary<Value> = jsonValue.map((v) => ({ v }));
  const options: fc.WeightedArbitrary<Value>[] = [
    { weight: 30, arbitrary: small },
    { weight: 3, arbitrary: fc.record({ str: fc.constantFrom(...STRING_UNITS), n: size(3_500_000) }) },
    { weight: 3, arbitrary: fc.record({ arr: small, n: size(1_000_000) }) },
    { weight: 2, arbitrary: fc.record({ obj: small, n: size(200_000) }) },
    { weight: 2, arbitrary: fc.record({ nest: fc.constantFrom('array' as const, 'object' as const), depth: size(100_000), leaf: small }) },
  ];
  if (js) options.push({ weight: 2, arbitrary: fc.record({ js: fc.constantFrom<JsOnly>('undefined', 'NaN', 'Infinity', '-Infinity', '-0', 'Date', 'cycle', 'sparse') }) });
  return fc.oneof(...options);
});

const mutationOf = cached((example: number, js: boolean): fc.Arbitrary<Mutation> => {
  const paths = examplePaths[example]!;
  const value = valueRecipe(js);
  const options: fc.WeightedArbitrary<Mutation>[] = [
    { weight: 10, arbitrary: fc.record({ set: fc.constantFrom(...paths), to: value }) },
    { weight: 4, arbitrary: fc.record({ drop: fc.constantFrom(...paths) }) },
    { weight: 3, arbitrary: fc.record({ add: fc.constantFrom(...objectPaths[example]!), key: fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 12 })), to: value }) },
    {
      weight: 3,
      arbitrary: fc.integer({ min: 0, max: EXAMPLE_COUNT - 1 }).chain((from) =>
        fc.record({ copy: copyFrom(from), example: fc.constant(from), to: pathIn(example) }),
      ),
    },
  ];
  if (arrayPaths[example]!.length) options.push({ weight: 2, arbitrary: fc.record({ grow: fc.constantFrom(...arrayPaths[example]!), n: size(500_000) }) });
  return fc.oneof(...options);
});

const copyFrom = cached((from: number) => fc.constantFrom(...examplePaths[from]!));
const pathIn = cached((example: number) => fc.constantFrom(...examplePaths[example]!));

export const objectRecipe = cached((js: boolean): fc.Arbitrary<ObjectRecipe> => {
  const mutated = fc
    .integer({ min: 0, max: EXAMPLE_COUNT - 1 })
    .chain((example) => fc.record({ example: fc.constant(example), ops: fc.array(mutationOf(example, js), { minLength: 0, maxLength: 4 }) }));
  // Random JSON under a served kind and apiVersion gets past the first checks to the schema and the rules.
  const shaped = fc
    .record({
      kind: fc.oneof(fc.constantFrom(...servedKinds.map((k) => k.kind)), jsonScalar),
      apiVersion: fc.oneof(fc.constantFrom(...servedKinds.map((k) => k.apiVersion)), jsonScalar),
      metadata: fc.oneof(fc.record({ name: fc.oneof(fc.constant('x'), jsonScalar), namespace: fc.oneof(fc.constant('default'), jsonScalar) }), jsonValue),
      spec: jsonValue,
      status: jsonValue,
    })
    .map((v) => ({ any: { v: v as Json } }));
  return fc.oneof({ weight: 8, arbitrary: mutated }, { weight: 1, arbitrary: shaped }, { weight: 1, arbitrary: valueRecipe(js).map((any) => ({ any })) });
});

/** Paths of an AdmissionReview as the API server sends it, for mutations of the envelope. */
const ENVELOPE_PATHS: Path[] = pathsOf({
  apiVersion: 1,
  kind: 1,
  request: { uid: 1, kind: { group: 1, version: 1, kind: 1 }, resource: { group: 1, version: 1, resource: 1 }, name: 1, operation: 1, userInfo: { username: 1, groups: [1] }, object: 1, dryRun: 1 },
});

export function reviewRecipe(js: boolean): fc.Arbitrary<ReviewRecipe> {
  const value = valueRecipe(js);
  const envelopeMutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ set: fc.constantFrom(...ENVELOPE_PATHS), to: value }) },
    { weight: 2, arbitrary: fc.record({ drop: fc.constantFrom(...ENVELOPE_PATHS) }) },
    { weight: 1, arbitrary: fc.record({ add: fc.constantFrom<Path>([], ['request']), key: fc.constantFrom(...HOSTILE_KEYS), to: value }) },
  );
  return fc.record<ReviewRecipe>({
    object: objectRecipe(js),
    old: fc.oneof<fc.Arbitrary<ReviewRecipe['old']>[]>(fc.constant(undefined), fc.constant('example' as const), objectRecipe(js)),
    operation: fc.oneof({ weight: 12, arbitrary: fc.constantFrom<Json>('CREATE', 'UPDATE') }, { weight: 2, arbitrary: fc.constantFrom<Json>('DELETE', 'CONNECT') }, { weight: 1, arbitrary: jsonScalar }),
    subResource: fc.oneof({ weight: 10, arbitrary: fc.constant('') }, { weight: 3, arbitrary: fc.constant('status') }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }),
    envelope: fc.oneof({ weight: 5, arbitrary: fc.constant<Mutation[]>([]) }, { weight: 1, arbitrary: fc.array(envelopeMutation, { minLength: 1, maxLength: 3 }) }),
    strict: fc.boolean(),
  });
}

/**
 * The systematic part: every value of WRONG_VALUES at every path of every example, as a
 * CREATE. Seed-independent, so a run covers it whatever the seed.
 */
export function sweep(): ReviewRecipe[] {
  const out: ReviewRecipe[] = [];
  examplePaths.forEach((paths, example) => {
    for (const path of paths) {
      for (const v of WRONG_VALUES) out.push({ object: { example, ops: [{ set: path, to: { v } }] }, operation: 'CREATE', subResource: '', envelope: [], strict: false });
    }
  });
  return out;
}

/** Inputs are drawn in blocks of this many from one seed each, so input i reproduces from (seed, i) alone. */
export const BLOCK = 500;
/** Every fifth input is the sweep's next case, until the sweep is done. */
const SWEEP_EVERY = 5;

/** Input `index` of a run: a sweep case or a random recipe. */
export class InputStream<T> {
  private block = -1;
  private drawn: T[] = [];

  constructor(
    private readonly arbitrary: fc.Arbitrary<T>,
    private readonly seed: number,
    private readonly systematic: readonly T[],
  ) {}

  get sweepSize(): number {
    return this.systematic.length;
  }

  /** Which sweep case input `index` is, if it is one. */
  sweepCase(index: number): number | undefined {
    return index % SWEEP_EVERY === 0 && index / SWEEP_EVERY < this.systematic.length ? index / SWEEP_EVERY : undefined;
  }

  at(index: number): T {
    const sweepIndex = this.sweepCase(index);
    if (sweepIndex !== undefined) return this.systematic[sweepIndex]!;
    const block = Math.floor(index / BLOCK);
    if (block !== this.block) {
      // A block's seed mixes the run's seed with the block number (a 32-bit golden-ratio hash).
      this.drawn = fc.sample(this.arbitrary, { seed: (this.seed ^ Math.imul(block + 1, 0x9e3779b1)) | 0, numRuns: BLOCK });
      this.block = block;
    }
    return this.drawn[index % BLOCK]!;
  }
}

/** A recipe as a failure report shows it: one line, cut. */
export function describeRecipe(recipe: unknown, max = 400): string {
  const text = JSON.stringify(recipe) ?? String(recipe);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}
