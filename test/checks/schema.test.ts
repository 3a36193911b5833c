import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { Arr, Enum, Int32, Obj, Opt, Quantity, QuantityMap, ReqStr, Str } from '../../rules/_shared/schema.js';
import { checkSchema, notJudgedCause, unknownFieldCause } from '../../src/schema/pass.js';
import { compile } from '../../src/schema/validators.js';
import { kindValidatorReading } from '../../src/schema/validators.js';
import { pointerToPath } from '../../src/schema/pointer.js';
import { ERRORS_KEPT, GENERATED_VALIDATORS, schemaHash } from '../../src/schema/compiler.js';
import { formatCause } from '../../src/engine/field.js';
import { Invalid, NotSupported, Required, TooLong, type Want } from '../helpers.js';

const schema = Obj({
  mode: Enum(['Push', 'Pull']),
  optionalMode: Opt(Enum(['Push', 'Pull'])),
  name: ReqStr({ maxLength: 5, format: 'dns1123-label' }),
  note: Opt(Str()),
  count: Opt(Int32({ minimum: 1, maximum: 32 })),
  floor: Opt(Type.Integer({ minimum: 0 })),
  items: Opt(Arr(Obj({ effect: Enum(['A', 'B']), value: Opt(Str()) }), { minItems: 1 })),
  tags: Opt(Arr(Enum(['x', 'y']))),
  limits: Opt(QuantityMap()),
  size: Opt(Quantity()),
  'a/b': Opt(Enum(['z'])),
  ceiling: Opt(Type.Integer({ maximum: 10 })),
  code: Opt(Str({ minLength: 3 })),
  pair: Opt(Arr(Str(), { minItems: 2 })),
  few: Opt(Arr(Str(), { maxItems: 2 })),
  version: Opt(Type.Literal('v1')),
  ref: Opt(Str({ pattern: '^v' })),
});

const base = { mode: 'Push', name: 'web' };
const causes = (data: unknown): Want[] => checkSchema(schema, data).causes.map((c) => ({ type: c.type, field: c.field }));

describe('checkSchema: one cause per mistake, with the Kubernetes cause type', () => {
  it.each([
    ['a valid object', {}, []],
    ['a missing required enum', { mode: undefined }, [Required('mode')]],
    ['an empty required enum is missing', { mode: '' }, [Required('mode')]],
    ['an empty optional enum is an unsupported value', { optionalMode: '' }, [NotSupported('optionalMode')]],
    ['an unsupported enum value', { mode: 'Both' }, [NotSupported('mode')]],
    ['an enum value of the wrong type', { mode: 5 }, [Invalid('mode')]],
    ['an empty required enum inside a list item', { items: [{ effect: '' }] }, [Required('items[0].effect')]],
    ['an empty enum list element', { tags: [''] }, [NotSupported('tags[0]')]],
    ['an enum list element of the wrong type', { tags: [true] }, [Invalid('tags[0]')]],
    ['an empty required property with an escaped name', { 'a/b': '' }, [NotSupported('a/b')]],
    ['an empty required string', { name: '' }, [Required('name')]],
    ['a too long string', { name: 'abcdef' }, [TooLong('name')]],
    ['a bad format', { name: 'Web' }, [Invalid('name')]],
    ['a string of the wrong type', { note: 1 }, [Invalid('note')]],
    ['below a range', { count: 0 }, [Invalid('count')]],
    ['above a range', { count: 33 }, [Invalid('count')]],
    ['below a minimum', { floor: -1 }, [Invalid('floor')]],
    ['not an integer', { count: 1.5 }, [Invalid('count')]],
    ['an empty list that needs an item', { items: [] }, [Required('items')]],
    ['a map value that is not a quantity', { limits: { cpu: 'lots' } }, [Invalid('limits[cpu]')]],
    ['a map key with dots and slashes', { limits: { 'nvidia.com/gpu': 'x' } }, [Invalid('limits[nvidia.com/gpu]')]],
    ['a quantity as a JSON number', { size: 1.5 }, []],
    ['a quantity of the wrong type', { size: true }, [Invalid('size')]],
    ['a required value written as null', { mode: null }, [Required('mode')]],
    ['an empty required enum past the tenth list item', { items: [...Array(10).fill({ effect: 'A' }), { effect: '' }] }, [Required('items[10].effect')]],
    ['above a maximum with no minimum', { ceiling: 11 }, [Invalid('ceiling')]],
    ['shorter than a minimum length above one', { code: 'ab' }, [Invalid('code')]],
    ['fewer items than a minimum above one', { pair: ['a'] }, [Invalid('pair')]],
    ['more items than a maximum', { few: ['a', 'b', 'c'] }, [{ type: 'FieldValueTooMany', field: 'few' }]],
    ['a value other than a constant', { version: 'v2' }, [NotSupported('version')]],
    ['a keyword without a wording of its own', { ref: 'x' }, [Invalid('ref')]],
  ] as [string, Record<string, unknown>, Want[]][])('%s', (_name, edit, want) => {
    expect(causes({ ...base, ...edit })).toEqual(want);
  });

  it('words the causes as Kubernetes does', () => {
    const messages = checkSchema(schema, { ...base, mode: 'Both', count: 0, floor: -1, name: 'Web' }).causes.map((c) => `${c.field}: ${c.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        'mode: Unsupported value: "Both": supported values: "Push", "Pull"',
        'count: Invalid value: 0: must be between 1 and 32, inclusive',
        'floor: Invalid value: -1: must be greater than or equal to 0',
        expect.stringMatching(/^name: Invalid value: "Web": a lowercase RFC 1123 label/),
      ]),
    );
  });

  it('words the other causes as Kubernetes does', () => {
    const data = { ...base, mode: null, note: 1, size: true, items: [], ceiling: 11, code: 'ab', pair: ['a'], few: ['a', 'b', 'c'], version: 'v2', ref: 'x' };
    expect(checkSchema(schema, data).causes.map(formatCause).sort()).toEqual(
      [
        'mode: Required value',
        'note: Invalid value: 1: must be of type string',
        'size: Invalid value: true: must be of type string or number',
        'items: Required value: must have at least one item',
        'ceiling: Invalid value: 11: must be less than or equal to 10',
        'code: Invalid value: "ab": must be at least 3 characters',
        'pair: Invalid value: ["a"]: must have at least 2 items',
        'few: Too many: 3: must have at most 2 items',
        'version: Unsupported value: "v2": supported values: "v1"',
        `ref: Invalid value: "x": does not satisfy the schema's pattern`,
      ].sort(),
    );
  });

  it('reports a root that is not an object at the root, with its value', () => {
    for (const root of ['text', 5, null, undefined]) {
      expect(checkSchema(schema, root).causes.map((c) => [c.type, c.field, c.badValue])).toEqual([['FieldValueInvalid', '', root]]);
    }
  });

  it('keeps apart the causes in values an update leaves as stored', () => {
    const result = checkSchema(schema, { ...base, mode: 'Both', count: 0 }, undefined, { ...base, mode: 'Both', count: 5 });
    expect(result.causes.map((c) => c.field)).toEqual(['count']);
    expect(result.kept.map((c) => c.field)).toEqual(['mode']);
    const fromNull = checkSchema(schema, { ...base, limits: { cpu: 'lots' } }, undefined, { ...base, limits: null });
    expect([fromNull.causes.map((c) => c.field), fromNull.kept]).toEqual([['limits[cpu]'], []]);
  });

  it('reports an unknown field, when unknown fields are errors, as forbidden', () => {
    expect(formatCause(unknownFieldCause('spec.extra'))).toBe('spec.extra: Forbidden: unknown field');
  });

  it('lists unknown fields separately, by path', () => {
    const result = checkSchema(schema, { ...base, extra: 1, items: [{ effect: 'A', other: 2 }] });
    expect(result.causes).toEqual([]);
    expect(result.unknownFields).toEqual(['extra', 'items[0].other']);
  });
});

describe('pointerToPath', () => {
  const nested = Obj({ spec: Obj({ overall: QuantityMap(), rules: Arr(Obj({ name: Str() })), byPattern: Type.Record(Type.String(), Quantity()) }), raw: Type.Any() });
  it.each([
    ['', ''],
    ['/spec', 'spec'],
    ['/spec/rules/2/name', 'spec.rules[2].name'],
    ['/spec/overall/cpu', 'spec.overall[cpu]'],
    ['/spec/overall/example.com~1gpu', 'spec.overall[example.com/gpu]'],
    ['/raw/list/0', 'raw.list[0]'],
    ['/raw/list/10', 'raw.list[10]'],
    ['/raw/v1', 'raw.v1'],
    ['/raw/1v', 'raw.1v'],
    ['/spec/byPattern/cpu', 'spec.byPattern[cpu]'],
  ])('%j is %j', (pointer, path) => expect(pointerToPath(nested, pointer)).toBe(path));
});

describe('a field written as null', () => {
  it('is reported as missing where the field is required, as an empty required value is; elsewhere it is no value', async () => {
    const { validate } = await import('../../src/index.js');
    const binding = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ClusterResourceBinding', metadata: { name: 'b' }, spec: { resource: null } };
    expect(validate(binding).causes.map((c) => [c.type, c.field])).toEqual([['FieldValueRequired', 'spec.resource']]);
    const optionalNull = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'c' }, spec: { syncMode: 'Push', provider: null } };
    expect(validate(optionalNull).causes).toEqual([]);
  });
});

describe('the places of schema errors, remembered per schema', () => {
  it('stay within a few MiB whatever places the errors are at', async () => {
    const { heapAfterGcMiB } = await import('../heap.js');
    const limits = Obj({ limits: QuantityMap() });
    // Each call errs at a new place: a map key of ~500 characters with a value that is no quantity.
    const atPlace = (i: number) => ({ limits: { [`${String(i).padStart(6, '0')}${'k'.repeat(490)}`]: 'lots' } });
    checkSchema(limits, atPlace(-1));
    const before = heapAfterGcMiB();
    // The cache starts over when full, so its peak, not its end, is what is bounded.
    let peak = 0;
    for (let i = 0; i < 10_000; i++) {
      checkSchema(limits, atPlace(i));
      if (i % 250 === 249) peak = Math.max(peak, heapAfterGcMiB() - before);
    }
    expect(peak).toBeLessThan(3);
  });

  it('read the bad value through the keys they keep, escaped keys included', () => {
    const limits = Obj({ limits: QuantityMap() });
    for (let round = 0; round < 2; round++) {
      const result = checkSchema(limits, { limits: { 'example.com/gpu': 'lots', 'a~b': 'many' } });
      expect(result.causes.map((c) => [c.field, c.badValue])).toEqual([
        ['limits[example.com/gpu]', 'lots'],
        ['limits[a~b]', 'many'],
      ]);
    }
  });
});

describe('the validators a build precompiled', () => {
  const rules = { kind: 'Widget', schema: Obj({ name: ReqStr() }) };
  const request = `./${GENERATED_VALIDATORS}`;

  /** A kindValidator whose read of the precompiled module gets `load`'s answer (other requests fail the test). */
  function kindValidatorWith(load: () => unknown) {
    let reads = 0;
    const kindValidator = kindValidatorReading((id) => {
      expect(id).toBe(request);
      reads++;
      return load();
    });
    return { kindValidator, reads: () => reads };
  }
  const built = (hash: string) => {
    const precompiled = Object.assign(() => true, { errors: null });
    return { precompiled, factory: Object.assign(() => ({ Widget: precompiled }), { schemaHashes: { Widget: hash } }) };
  };

  it('are used when made from the very schema', () => {
    const { precompiled, factory } = built(schemaHash(rules.schema));
    const { kindValidator } = kindValidatorWith(() => factory);
    expect(kindValidator(rules)).toBe(precompiled);
  });

  it('are not used when stale: the schema is compiled here', () => {
    const { precompiled, factory } = built('stale');
    const { kindValidator } = kindValidatorWith(() => factory);
    const fn = kindValidator(rules);
    expect(fn).not.toBe(precompiled);
    expect(checkSchema(rules.schema, {}, fn).causes.map((c) => [c.type, c.field])).toEqual([['FieldValueRequired', 'name']]);
  });

  it('are not needed when the build did not make them', () => {
    const missing = Object.assign(new Error(`Cannot find module '${request}'\nRequire stack:\n- src/schema.ts`), { code: 'MODULE_NOT_FOUND' });
    const { kindValidator } = kindValidatorWith(() => {
      throw missing;
    });
    expect(checkSchema(rules.schema, {}, kindValidator(rules)).causes.map((c) => c.field)).toEqual(['name']);
  });

  it.each([
    ['fails to load', new SyntaxError(`${request}: Unexpected token\n  at line 1`), `${request}: Unexpected token`],
    ['needs a module that is missing', Object.assign(new Error(`Cannot find module 'ajv/dist/runtime/equal'\nRequire stack:\n- ${request}`), { code: 'MODULE_NOT_FOUND' }), `Cannot find module 'ajv/dist/runtime/equal'`],
  ])('are an error, on every use and read once, when the module %s', (_name, failure, firstLine) => {
    const { kindValidator, reads } = kindValidatorWith(() => {
      throw failure;
    });
    for (const kind of ['Widget', 'Gadget']) {
      expect(() => kindValidator({ ...rules, kind })).toThrow(
        expect.objectContaining({ message: `cannot load the precompiled validators (${GENERATED_VALIDATORS}): ${firstLine}; rebuild with npm run build`, cause: failure }),
      );
    }
    expect(reads()).toBe(1);
  });
});

describe('errors a precompiled validator counted but did not keep (past ERRORS_KEPT)', () => {
  /** The run-time validator, keeping its first `kept` errors and counting them all, as a precompiled one does. */
  function keepingFirst(kept: number) {
    const real = compile(schema);
    const fn = Object.assign(
      (data: unknown) => {
        const valid = real(data);
        fn.errors = real.errors?.slice(0, kept) ?? null;
        fn.errorCount = real.errors?.length ?? 0;
        return valid;
      },
      { errors: null as unknown, errorCount: 0 },
    );
    return fn as unknown as Parameters<typeof checkSchema>[2];
  }
  const tenBadTags = { mode: 'Push', name: 'web', tags: Array(10).fill('z') };

  it('still refuse the object: the causes of those kept are listed, and the rest said to be more', () => {
    const result = checkSchema(schema, { ...tenBadTags, mode: 'Both' }, keepingFirst(3));
    expect(result.causes.map((c) => c.field)).toEqual(['mode', 'tags[0]', 'tags[1]']);
    expect(result.truncated).toBe(true);
    expect(result.unjudged).toBeUndefined();
  });

  it('leave a write unjudged when none of those kept could refuse it', () => {
    const tagsIgnored = (section: string) => (section === 'tags' ? 'ignored' : 'decides') as 'ignored' | 'decides';
    const result = checkSchema(schema, tenBadTags, keepingFirst(3), undefined, tagsIgnored);
    expect(result.unjudged).toBe(true);
    // Every error kept: judged as before.
    const whole = checkSchema(schema, tenBadTags, keepingFirst(100), undefined, tagsIgnored);
    expect(whole.unjudged).toBeUndefined();
    expect(whole.truncated).toBeUndefined();
    expect(whole.causes).toHaveLength(10);
  });

  it('are named in the cause that refuses an unjudged write', () => {
    expect(formatCause(notJudgedCause())).toBe(
      `Forbidden: not judged: the schema pass found more than ${ERRORS_KEPT} mistakes and read the first ${ERRORS_KEPT}, none of which refuses this write`,
    );
  });
});
