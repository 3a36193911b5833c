/** kube's IgnoreManagedFieldsTimestampsTransformer: an update that changes only managedFields times stores the stored times. */
import { describe, expect, it } from 'vitest';
import { keepTimesOfUnchangedObject } from '../../../src/apiserver/apply/index.js';

const entry = (manager: string, time: string | undefined, fields: object = { 'f:spec': { 'f:a': {} } }) => ({
  manager,
  operation: 'Apply',
  apiVersion: 'v',
  ...(time !== undefined ? { time } : {}),
  fieldsType: 'FieldsV1',
  fieldsV1: fields,
});
const object = (managedFields: object[], spec: object = { a: 1 }) => ({ apiVersion: 'v', kind: 'K', metadata: { name: 'n', managedFields, resourceVersion: '3' }, spec });
const T1 = '2026-01-01T00:01:00Z';
const T2 = '2026-01-01T00:02:00Z';

describe('keepTimesOfUnchangedObject', () => {
  it('puts the stored times back when nothing but times changed, keeping the key order', () => {
    const stored = object([entry('a', T1), entry('b', undefined)]);
    const next = object([entry('a', T2), entry('b', T2)]);
    const kept = keepTimesOfUnchangedObject(next, stored) as any;
    expect(kept).toEqual(stored);
    expect(Object.keys(kept.metadata.managedFields[0])).toEqual(Object.keys(stored.metadata.managedFields[0]!));
  });

  it('leaves the update as it is when anything else changed', () => {
    const stored = object([entry('a', T1)]);
    for (const next of [
      object([entry('a', T2)], { a: 2 }), // the object
      object([entry('a', T2, { 'f:spec': { 'f:b': {} } })]), // an entry's fields
      object([entry('a', T2), entry('b', T2)]), // an entry added
      object([entry('c', T2)]), // another manager
    ]) {
      expect(keepTimesOfUnchangedObject(next, stored)).toBe(next);
    }
  });

  it('returns the very object when no time changed, or there are no managedFields', () => {
    const stored = object([entry('a', T1)]);
    const same = object([entry('a', T1)], { a: 2 });
    expect(keepTimesOfUnchangedObject(same, stored)).toBe(same);
    const bare = { metadata: { name: 'n' } };
    expect(keepTimesOfUnchangedObject(bare, { metadata: { name: 'n' } })).toBe(bare);
  });
});
