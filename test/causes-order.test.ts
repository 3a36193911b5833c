import { describe, expect, it } from 'vitest';
import { inObjectOrder, validate, withoutRepeats } from '../src/validate.js';
import { invalid, required, type Cause } from '../src/field.js';
import { examples } from './fixtures/index.js';

const fields = (causes: Cause[]) => causes.map((c) => c.field);

describe('the causes of a verdict', () => {
  it('are listed identity, metadata, spec, status, each section in the order found', () => {
    const causes = [invalid('status.x', 1, 'a'), invalid('spec.b', 1, 'b'), invalid('metadata.name', 'x', 'c'), invalid('spec.a', 1, 'd'), required('kind')];
    expect(fields(inObjectOrder(causes))).toEqual(['kind', 'metadata.name', 'spec.b', 'spec.a', 'status.x']);
    const ordered = [required('apiVersion'), invalid('metadata.name', 'x', 'c'), invalid('spec.a', 1, 'd')];
    expect(inObjectOrder(ordered)).toBe(ordered);
  });

  it('put a metadata mistake before a spec mistake the schema found first', () => {
    const cluster = structuredClone(examples.find((e) => e.kind === 'Cluster')!) as Record<string, any>;
    cluster.spec.syncMode = 'Sometimes';
    cluster.metadata.name = 'Bad_Name';
    expect(fields(validate(cluster).causes)).toEqual(['metadata.name', 'spec.syncMode']);
  });

  it('name a repeated cause once, in short and in long lists alike', () => {
    const a = invalid('spec.a', 1, 'x');
    const short = [a, invalid('spec.b', 1, 'x'), { ...a }, invalid('spec.a', 1, 'other')];
    expect(withoutRepeats(short).map((c) => `${c.field} ${c.message}`)).toEqual(['spec.a Invalid value: 1: x', 'spec.b Invalid value: 1: x', 'spec.a Invalid value: 1: other']);
    const long = Array.from({ length: 40 }, (_, i) => invalid(`spec.list[${i % 30}]`, i % 30, 'bad'));
    expect(fields(withoutRepeats(long))).toEqual(Array.from({ length: 30 }, (_, i) => `spec.list[${i}]`));
    // Same field and message, another type: two causes.
    const sameText = [required('spec.a', 'x'), { ...required('spec.a', 'x'), type: 'FieldValueInvalid' as const }];
    expect(withoutRepeats(sameText)).toHaveLength(2);
    const distinct = [a, invalid('spec.b', 1, 'x')];
    expect(withoutRepeats(distinct)).toBe(distinct);
  });

  it('name one mistake once: a bad apiVersion or name type is not also reported as unsupported or missing', () => {
    const cluster = structuredClone(examples.find((e) => e.kind === 'Cluster')!) as Record<string, any>;
    const kinds = (edit: (o: Record<string, any>) => void) => {
      const o = structuredClone(cluster);
      edit(o);
      return validate(o).causes.map((c) => [c.type, c.field]);
    };
    expect(kinds((o) => delete o.apiVersion)).toEqual([['FieldValueRequired', 'apiVersion']]);
    expect(kinds((o) => (o.apiVersion = ''))).toEqual([['FieldValueRequired', 'apiVersion']]);
    expect(kinds((o) => (o.apiVersion = 5))).toEqual([['FieldValueInvalid', 'apiVersion']]);
    expect(kinds((o) => (o.apiVersion = 'cluster.karmada.io/v1'))).toEqual([['FieldValueNotSupported', 'apiVersion']]);
    expect(kinds((o) => (o.metadata.name = 5))).toEqual([['FieldValueInvalid', 'metadata.name']]);
    // null is no name, as the API server reads it: the name is missing, said once.
    expect(kinds((o) => (o.metadata.name = null))).toEqual([['FieldValueRequired', 'metadata.name']]);
    expect(kinds((o) => delete o.metadata.name)).toEqual([['FieldValueRequired', 'metadata.name']]);
  });

  it('show a value that is no object as it is, not as its type', () => {
    expect(validate('hello').causes[0]!.message).toMatch(/^Invalid value: "hello": must be a Kubernetes object/);
  });
});
