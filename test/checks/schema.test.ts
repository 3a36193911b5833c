import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { Arr, Enum, Int32, Obj, Opt, Quantity, QuantityMap, ReqStr, Str } from '../../rules/_shared/schema.js';
import { checkSchema, pointerToPath } from '../../src/schema.js';
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

  it('lists unknown fields separately, by path', () => {
    const result = checkSchema(schema, { ...base, extra: 1, items: [{ effect: 'A', other: 2 }] });
    expect(result.causes).toEqual([]);
    expect(result.unknownFields).toEqual(['extra', 'items[0].other']);
  });
});

describe('pointerToPath', () => {
  const nested = Obj({ spec: Obj({ overall: QuantityMap(), rules: Arr(Obj({ name: Str() })) }), raw: Type.Any() });
  it.each([
    ['', ''],
    ['/spec', 'spec'],
    ['/spec/rules/2/name', 'spec.rules[2].name'],
    ['/spec/overall/cpu', 'spec.overall[cpu]'],
    ['/spec/overall/example.com~1gpu', 'spec.overall[example.com/gpu]'],
    ['/raw/list/0', 'raw.list[0]'],
  ])('%j is %j', (pointer, path) => expect(pointerToPath(nested, pointer)).toBe(path));
});

describe('a required field written as null', () => {
  it('is reported as missing, as an empty required value is, for every kind', async () => {
    const { validate } = await import('../../src/index.js');
    const binding = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ClusterResourceBinding', metadata: { name: 'b' }, spec: { resource: null } };
    expect(validate(binding).causes.map((c) => [c.type, c.field])).toEqual([['FieldValueRequired', 'spec.resource']]);
    const optionalNull = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'c' }, spec: { syncMode: 'Push', provider: null } };
    expect(validate(optionalNull).causes.map((c) => [c.type, c.field])).toEqual([['FieldValueInvalid', 'spec.provider']]);
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
