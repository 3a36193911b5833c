import { describe, expect, it } from 'vitest';
import { validate, type WorkloadRebalancer } from '../src/index.js';

// Compile-time checks, run by `npm test`'s typecheck: the kind types accept what a valid object holds.
describe('kind types', () => {
  it('WorkloadRebalancer: workloads is a list in the type and in the schema, null reported as missing', () => {
    const valid: WorkloadRebalancer = {
      apiVersion: 'apps.karmada.io/v1alpha1',
      kind: 'WorkloadRebalancer',
      metadata: { name: 'demo' },
      spec: { workloads: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }] },
    };
    expect(validate(valid).allowed).toBe(true);
    // @ts-expect-error null is what validate() reports as missing, so the type refuses it
    const nulled: WorkloadRebalancer = { ...valid, spec: { workloads: null } };
    expect(validate(nulled).causes.map((c) => [c.type, c.field])).toEqual([['FieldValueRequired', 'spec.workloads']]);
  });
});
