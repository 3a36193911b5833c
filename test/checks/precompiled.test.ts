/**
 * The build precompiles the kind schemas (scripts/compile-validators.mjs); tests from
 * source compile them at run time. Both must give ajv the very same verdicts and
 * errors, so every example is mutated at every field and both validators compared.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ValidateFunction } from 'ajv';
import { compile } from '../../src/schema/validators.js';
import { ajvFormats } from '../../src/schema/formats.js';
import { AJV_OPTIONS, ERRORS_KEPT, GENERATED_VALIDATORS, KUBERNETES_KEYWORDS, schemaHash, splitLargeSubschemas, standaloneModule, validatorsFromSource } from '../../src/schema/compiler.js';
import { ruleModules, rulesFor } from '../../rules/index.js';
import { examples } from '../fixtures/index.js';
import { SUITE } from '../../src/cli/suite/schema.js';

const generated = new URL(`../../dist/src/${GENERATED_VALIDATORS}`, import.meta.url);
const built = existsSync(fileURLToPath(generated));

type Json = unknown;
/** Every minLength and maxLength the kind schemas use. */
function lengthLimits(): number[] {
  const limits = new Set<number>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) (k === 'minLength' || k === 'maxLength') && typeof v === 'number' ? limits.add(v) : walk(v);
    }
  };
  ruleModules.forEach((r) => walk(r.schema));
  return [...limits];
}

// Strings exactly at and just past every length limit, in one-unit and in astral characters
// (two UTF-16 units, one code point), probe the length checks on both sides.
const SHORT_BAD_VALUES: Json[] = [null, {}, [], '', 'Bad_Name!', -1, 1e12, 1.5, true, '0 0 L * *', '9999-99-99', '2026-02-29T10:00:00Z', '😀'];
const BAD_VALUES: Json[] = [
  ...SHORT_BAD_VALUES,
  ...lengthLimits().flatMap((n) => [n - 1, n, n + 1].filter((k) => k >= 0).flatMap((k) => ['x'.repeat(k), '😀'.repeat(k)])),
];

/** The example with one change at every place: each value replaced by each bad value, each key removed, an unknown key added. */
function* mutations(root: Json, values: readonly Json[] = BAD_VALUES): Generator<Json> {
  function* at(node: Json, replace: (value: Json | typeof REMOVE) => Json): Generator<Json> {
    for (const bad of values) yield replace(bad);
    yield replace(REMOVE);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) yield* at(node[i], (v) => replace(v === REMOVE ? node.filter((_, j) => j !== i) : node.map((x, j) => (j === i ? v : x))));
    } else if (node && typeof node === 'object') {
      const obj = node as Record<string, Json>;
      yield replace({ ...obj, unknownFieldForTest: 1 });
      for (const key of Object.keys(obj)) {
        yield* at(obj[key], (v) => {
          const copy = { ...obj };
          if (v === REMOVE) delete copy[key];
          else copy[key] = v;
          return replace(copy);
        });
      }
    }
  }
  yield* at(root, (v) => (v === REMOVE ? {} : v));
}
const REMOVE = Symbol('remove');

/**
 * The binding example with the placement parts no example has (components, overflow affinities,
 * static weights), so that every call into a part of its own is compared, errors' paths included.
 */
const bindingWithEveryPart = (() => {
  const b = structuredClone(examples.find((e) => e.kind === 'ClusterResourceBinding')!) as { spec: Record<string, any> };
  b.spec.components = [{ name: 'web', replicas: 2, replicaRequirements: { resourceRequest: { cpu: '100m' } } }];
  b.spec.placement.clusterAffinities = [{ affinityName: 'primary', clusterNames: ['member1'], overflowAffinities: [{ affinityName: 'backup', clusterNames: ['member2'] }] }];
  b.spec.placement.replicaScheduling = {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 1 }] },
  };
  return b;
})();
const mutationBases = [...examples.map((e) => [e.kind as string, e] as const), ['ClusterResourceBinding (every placement part)', bindingWithEveryPart] as const];

describe.skipIf(!built)('precompiled validators (dist/, which npm test builds first)', async () => {
  type Factory = ((formats: typeof ajvFormats) => Record<string, ValidateFunction>) & { schemaHashes: Record<string, string> };
  const factory = built ? (createRequire(import.meta.url)(fileURLToPath(generated)) as Factory) : undefined;
  const precompiled = factory ? factory(ajvFormats) : {};

  it('record the hash of the schema each was made from, which the library checks before using one', () => {
    expect(factory!.schemaHashes).toEqual(Object.fromEntries([...ruleModules, SUITE].map((r) => [r.kind, schemaHash(r.schema)])));
  });

  it('exist for every kind, and for the policy test suites', () => {
    expect(Object.keys(precompiled).sort()).toEqual([...ruleModules, SUITE].map((r) => r.kind).sort());
  });

  it('have every format the schemas use', () => {
    const used = new Set<string>();
    const walk = (s: unknown) => {
      if (Array.isArray(s)) s.forEach(walk);
      else if (s && typeof s === 'object') for (const [k, v] of Object.entries(s)) (k === 'format' && typeof v === 'string' ? used.add(v) : walk(v));
    };
    ruleModules.forEach((r) => walk(r.schema));
    expect([...used].filter((f) => !(f in ajvFormats))).toEqual([]);
  });

  it.each(mutationBases)('agree with the run-time compiled schema on mutations of the %s example', (_name, example) => {
    const kind = (example as { kind: string }).kind;
    const rules = rulesFor(kind)!;
    const runtime = compile(rules.schema);
    const fast = precompiled[kind]!;
    let count = 0;
    let denied = 0;
    for (const object of mutations(example)) {
      const a = runtime(object);
      const b = fast(object);
      expect({ valid: b, errors: fast.errors }).toEqual({ valid: a, errors: runtime.errors });
      count++;
      if (!a) denied++;
    }
    // Enough variety that both verdicts and many error kinds were compared (Work embeds raw manifests, which accept anything).
    expect(count).toBeGreaterThan(100);
    expect(denied).toBeGreaterThan(count / 4);
    expect(denied).toBeLessThan(count);
  });

  it('agree with the run-time compiled suite schema on good and broken policy test suites', () => {
    const runtime = compile(SUITE.schema);
    const fast = precompiled[SUITE.kind]!;
    const good = { cases: [{ name: 'n', object: 'member.yaml', now: '2026-01-01T00:00:00Z', uuid: '00000000-0000-4000-8000-000000000000', expect: { allowed: false, causes: [{ field: 'spec', type: 'Required' }] } }] };
    const broken: unknown[] = [
      good,
      {},
      [],
      { cases: [] },
      { cases: [{ name: '', object: 3, operation: 'MERGE', strict: 'yes', uuid: 'ABC', now: '2026-02-30T00:00:00Z', context: ['a', ''], expect: { allwed: true } }] },
      { cases: [{ name: 'n', object: {}, patch: [{ op: 'jump', path: 'x' }, 7], expect: { causes: [{ type: 'Nope' }], warnings: [''] } }] },
    ];
    for (const suite of broken) {
      const a = runtime(suite);
      expect({ valid: fast(suite), errors: fast.errors }).toEqual({ valid: a, errors: runtime.errors });
    }
    expect(fast(good)).toBe(true);
    expect(fast(broken[4])).toBe(false);
  });

  /**
   * The precompiled validator's errors are the run-time one's first ERRORS_KEPT, and its count says
   * there were more: a lower bound, since a loop past the bound stops at its first mistake.
   */
  function expectKeptAndCounted(fast: ValidateFunction, runtime: ValidateFunction, value: unknown) {
    expect(fast(value)).toBe(runtime(value));
    const all = runtime.errors!;
    expect(all.length).toBeGreaterThan(ERRORS_KEPT);
    expect(fast.errors).toEqual(all.slice(0, ERRORS_KEPT));
    const count = (fast as { errorCount?: number }).errorCount;
    expect(count).toBeGreaterThan(ERRORS_KEPT);
    expect(count).toBeLessThanOrEqual(all.length);
  }

  /** A list whose item reads are counted. */
  function countingList<T>(items: T[]): { list: T[]; reads: () => number } {
    let reads = 0;
    const list = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    return { list, reads: () => reads };
  }

  it('stop reading a list past the bound once it has a mistake of its own, and read a good list whole', () => {
    const kind = 'ResourceInterpreterWebhookConfiguration';
    const fast = precompiled[kind]!;
    const config = structuredClone(examples.find((e) => e.kind === kind)!) as { webhooks: { rules: { operations: unknown[] }[] }[] };
    const rule = config.webhooks[0]!.rules[0]!;
    const bad = countingList<unknown>(Array(200_000).fill(0));
    rule.operations = bad.list;
    expect(fast(config)).toBe(false);
    expect(fast.errors).toHaveLength(ERRORS_KEPT);
    expect((fast as { errorCount?: number }).errorCount).toBeGreaterThan(ERRORS_KEPT);
    expect(bad.reads()).toBeLessThan(ERRORS_KEPT + 10);
    // Past the bound (filled here by unknown fields), a list without a mistake is still read whole:
    // its verdict may decide an anyOf.
    const good = countingList<unknown>(Array(200_000).fill('InterpretReplica'));
    rule.operations = good.list;
    expect(fast(config)).toBe(true);
    const crowded = { ...Object.fromEntries(Array.from({ length: ERRORS_KEPT + 5 }, (_, i) => [`unknown${i}`, 1])), ...config };
    expect(fast(crowded)).toBe(false);
    expect((fast as { errorCount?: number }).errorCount).toBeGreaterThan(ERRORS_KEPT);
    expect(good.reads()).toBe(2 * 200_000);
  });

  /** A schema of its own, compiled as the build compiles the kinds (REWRITES). */
  const builtWithRewrites = (schema: object): ValidateFunction => validatorsFromSource(standaloneModule({ s: schema })).s!;

  it('give an anyOf the verdict ajv gives when a branch stops a list early', () => {
    // The first branch fails every item and stops; the second must still read every one.
    const schema = { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'array', items: { type: 'string', maxLength: 3 } }] };
    const fast = builtWithRewrites(schema);
    const runtime = compile(schema);
    const strings = Array(3 * ERRORS_KEPT).fill('abc');
    expect(fast(strings)).toBe(true);
    expect(runtime(strings)).toBe(true);
    // One bad item at the very end of the second branch's list: found, so the anyOf fails.
    const lastTooLong = [...strings.slice(1), 'abcd'];
    expectKeptAndCounted(fast, runtime, lastTooLong);
    expect(fast(lastTooLong)).toBe(false);
  });

  it('keep the first errors past the bound and count past it, whichever function found them', () => {
    const kind = 'ResourceInterpreterWebhookConfiguration';
    const config = structuredClone(examples.find((e) => e.kind === kind)!) as { webhooks: { rules: { operations: unknown[] }[] }[] };
    // Each rule is a function of its own: the second one's errors are taken in past the bound.
    const rule = config.webhooks[0]!.rules[0]!;
    config.webhooks[0]!.rules = [
      { ...rule, operations: Array(ERRORS_KEPT - 100).fill(0) },
      { ...rule, operations: Array(500).fill('MERGE') },
      { ...rule, operations: Array(300).fill(true) },
    ];
    expectKeptAndCounted(precompiled[kind]!, compile(rulesFor(kind)!.schema), config);
  });

  it('keep count past the bound where an anyOf drops the errors of a branch that failed', () => {
    const many = Array.from({ length: ERRORS_KEPT + 50 }, (_, i) => ({ name: `n${i}`, object: 'member.yaml', operation: 'MERGE', expect: { allowed: true } }));
    const suite = { cases: [...many, { name: 'x', object: 'member.yaml', expect: { allowed: true } }, { name: 'y', object: 5, expect: { allowed: true } }] };
    expectKeptAndCounted(precompiled[SUITE.kind]!, compile(SUITE.schema), suite);
  });

  it('refuse, through validate(), a status write whose object holds more mistakes outside status than they keep', async () => {
    const built = (await import(new URL('../../dist/src/index.js', import.meta.url).href)) as typeof import('../../src/index.js');
    const cluster = structuredClone(examples.find((e) => e.kind === 'Cluster')!) as { spec: { taints: unknown[] } };
    cluster.spec.taints = Array.from({ length: ERRORS_KEPT + 10 }, (_, i) => ({ key: `k${i}`, effect: 'Sometimes' }));
    const write = built.validate(cluster, { operation: 'UPDATE', subResource: 'status', oldObject: cluster });
    expect(write.allowed).toBe(false);
    expect(write.causes.map((c) => [c.type, c.message])).toEqual([['FieldValueForbidden', expect.stringMatching(/^Forbidden: not judged: the schema pass found more than/)]]);
    // Within the bound, the same write is judged: its mistakes are outside status.
    cluster.spec.taints = cluster.spec.taints.slice(0, 100);
    expect(built.validate(cluster, { operation: 'UPDATE', subResource: 'status', oldObject: cluster }).allowed).toBe(true);
  });
});

describe('splitting large subschemas into functions of their own', () => {
  /** The kind schemas compiled whole, as written: the reference the split validators must match. */
  const unsplit = (() => {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    const ajv = new Ajv(AJV_OPTIONS);
    for (const [name, format] of Object.entries(ajvFormats)) ajv.addFormat(name, format);
    for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword({ keyword });
    return (schema: object) => ajv.compile(schema);
  })();
  const withoutSchemaPath = (errors: ValidateFunction['errors']) => (errors ?? []).map(({ schemaPath: _, ...rest }) => rest);

  it('moves the large parts out, one function per part and kind: a part used twice in a kind is one function, a part two kinds use is two', () => {
    const bindingSchema = rulesFor('ClusterResourceBinding')!.schema;
    const binding = splitLargeSubschemas(bindingSchema, 'ClusterResourceBinding');
    const cluster = splitLargeSubschemas(rulesFor('Cluster')!.schema, 'Cluster');
    const references = (split: { root: object; shared: Record<string, object> }) =>
      JSON.stringify([split.root, ...Object.values(split.shared)]).match(/"\$ref":"[^"]*"/g) ?? [];
    expect(Object.keys(binding.shared).length).toBeGreaterThan(0);
    // The binding uses one ClusterAffinity part twice: placement.clusterAffinity and a static weight's targetCluster.
    expect(references(binding).length).toBeGreaterThan(Object.keys(binding.shared).length);
    // Both kinds have ObjectMeta, each its own copy.
    const metadataRef = (split: { root: object }) => (split.root as { properties: { metadata: { $ref?: string } } }).properties.metadata.$ref;
    expect(metadataRef(binding)).toMatch(/^fleetgate:schema\//);
    expect(metadataRef(cluster)).toMatch(/^fleetgate:schema\//);
    expect(metadataRef(binding)).not.toBe(metadataRef(cluster));
    expect(Object.keys(binding.shared).filter((id) => id in cluster.shared)).toEqual([]);
    // The same owner and schema give the same identifiers, so a build is reproducible.
    expect(Object.keys(splitLargeSubschemas(bindingSchema, 'ClusterResourceBinding').shared)).toEqual(Object.keys(binding.shared));
  });

  it('leaves in place a subschema whose references would not resolve elsewhere', () => {
    const big = (extra: object) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field${i}`, { type: 'string' }])), ...extra });
    const schema = { type: 'object', definitions: { s: { type: 'string' } }, properties: { plain: big({}), referring: big({ properties: { r: { $ref: '#/definitions/s' } } }) } };
    const split = splitLargeSubschemas(schema) as { root: { properties: Record<string, { $ref?: string }> }; shared: Record<string, object> };
    expect(split.root.properties.plain!.$ref).toMatch(/^fleetgate:schema\//);
    expect(split.root.properties.referring!.$ref).toBeUndefined();
    expect(Object.values(split.shared).every((s) => (s as { $id: string }).$id.startsWith('fleetgate:schema/'))).toBe(true);
  });

  it.each(examples.map((e) => [e.kind as string, e] as const))('changes no verdict or error on mutations of the %s example', (kind, example) => {
    const rules = rulesFor(kind)!;
    const whole = unsplit(rules.schema);
    const split = compile(rules.schema);
    // Splitting moves subschemas, not limits: the short values reach every keyword.
    for (const object of mutations(example, SHORT_BAD_VALUES)) {
      const a = whole(object);
      const b = split(object);
      expect({ valid: b, errors: withoutSchemaPath(split.errors) }).toEqual({ valid: a, errors: withoutSchemaPath(whole.errors) });
    }
  });
});
