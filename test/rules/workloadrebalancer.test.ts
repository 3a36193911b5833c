import { describe, expect, it } from 'vitest';
import { validate } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, Required, type Case } from '../helpers.js';

import { rebalancer } from '../fixtures/workloadrebalancer.js';

describe('WorkloadRebalancer', () => {
  it('accepts a realistic rebalancer of a Deployment, a namespaced ConfigMap and a cluster-scoped role', () => {
    const result = expectCauses(rebalancer, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name not a subdomain', edit: (o) => (o.metadata.name = 'Rebalance'), want: [Invalid('metadata.name')] },
    // spec and workloads (errors #7)
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'workloads missing', edit: (o) => delete o.spec.workloads, want: [Required('spec.workloads')] },
    { name: 'workloads empty', edit: (o) => (o.spec.workloads = []), want: [Required('spec.workloads')] },
    { name: 'workloads null', edit: (o) => (o.spec.workloads = null), want: [Required('spec.workloads')] },
    { name: 'workloads not a list', edit: (o) => (o.spec.workloads = { name: 'checkout' }), want: [Invalid('spec.workloads')] },
    { name: 'a single workload', edit: (o) => o.spec.workloads.splice(1), want: [] },
    { name: 'workload without apiVersion', edit: (o) => delete o.spec.workloads[0].apiVersion, want: [Required('spec.workloads[0].apiVersion')] },
    { name: 'workload with empty kind', edit: (o) => (o.spec.workloads[0].kind = ''), want: [Required('spec.workloads[0].kind')] },
    { name: 'workload without name', edit: (o) => delete o.spec.workloads[1].name, want: [Required('spec.workloads[1].name')] },
    { name: 'apiVersion not a group/version', edit: (o) => (o.spec.workloads[0].apiVersion = 'apps/v1/beta'), want: [Invalid('spec.workloads[0].apiVersion')] },
    { name: 'apiVersion with an empty group', edit: (o) => (o.spec.workloads[0].apiVersion = '/v1'), want: [Invalid('spec.workloads[0].apiVersion')] },
    { name: 'name with a slash', edit: (o) => (o.spec.workloads[0].name = 'shop/checkout'), want: [Invalid('spec.workloads[0].name')] },
    { name: 'name ..', edit: (o) => (o.spec.workloads[0].name = '..'), want: [Invalid('spec.workloads[0].name')] },
    { name: 'name with dots and capitals (any path segment)', edit: (o) => (o.spec.workloads[0].name = 'Checkout.v2'), want: [] },
    { name: 'namespace not a DNS label', edit: (o) => (o.spec.workloads[1].namespace = 'shop.eu'), want: [Invalid('spec.workloads[1].namespace')] },
    { name: 'namespace longer than 63', edit: (o) => (o.spec.workloads[1].namespace = 'n'.repeat(64)), want: [Invalid('spec.workloads[1].namespace')] },
    { name: 'namespace of exactly 63', edit: (o) => (o.spec.workloads[1].namespace = 'n'.repeat(63)), want: [] },
    { name: 'namespace empty (cluster-scoped)', edit: (o) => (o.spec.workloads[2].namespace = ''), want: [] },
    { name: 'unknown reference field', edit: (o) => (o.spec.workloads[0].uid = 'abc'), want: [Forbidden('spec.workloads[0].uid')], options: { strict: true } },
    // duplicates
    { name: 'duplicate workload', edit: (o) => o.spec.workloads.push({ ...o.spec.workloads[0] }), want: [Duplicate('spec.workloads[3]')] },
    {
      name: 'duplicate cluster-scoped workload, namespace empty vs absent',
      edit: (o) => o.spec.workloads.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespace: '', name: 'checkout-reader' }),
      want: [Duplicate('spec.workloads[3]')],
    },
    { name: 'same name in another namespace', edit: (o) => o.spec.workloads.push({ ...o.spec.workloads[0], namespace: 'shop-eu' }), want: [] },
    { name: 'same name, another kind', edit: (o) => o.spec.workloads.push({ ...o.spec.workloads[0], kind: 'StatefulSet' }), want: [] },
    { name: 'same name, another version', edit: (o) => o.spec.workloads.push({ ...o.spec.workloads[0], apiVersion: 'apps/v1beta2' }), want: [] },
    { name: 'incomplete repeat: only Required', edit: (o) => o.spec.workloads.push({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop' }), want: [Required('spec.workloads[3].name')] },
    ...([['without', 'apiVersion'], ['without', 'name'], ['with empty', 'apiVersion'], ['with empty', 'kind'], ['with empty', 'name']] as const).map(([how, field]): Case => ({
      name: `the same workload twice, ${how} ${field}: only Required`,
      edit: (o) => {
        if (how === 'without') delete o.spec.workloads[0][field];
        else o.spec.workloads[0][field] = '';
        o.spec.workloads.push({ ...o.spec.workloads[0] });
      },
      want: [Required(`spec.workloads[0].${field}`), Required(`spec.workloads[3].${field}`)],
    })),
    // ttlSecondsAfterFinished
    { name: 'ttl zero (delete immediately)', edit: (o) => (o.spec.ttlSecondsAfterFinished = 0), want: [] },
    { name: 'ttl negative', edit: (o) => (o.spec.ttlSecondsAfterFinished = -1), want: [Invalid('spec.ttlSecondsAfterFinished')] },
    { name: 'ttl beyond int32', edit: (o) => (o.spec.ttlSecondsAfterFinished = 2147483648), want: [Invalid('spec.ttlSecondsAfterFinished')] },
    { name: 'ttl max int32', edit: (o) => (o.spec.ttlSecondsAfterFinished = 2147483647), want: [] },
    { name: 'ttl fractional', edit: (o) => (o.spec.ttlSecondsAfterFinished = 1.5), want: [Invalid('spec.ttlSecondsAfterFinished')] },
    { name: 'ttl unset (never deleted)', edit: (o) => delete o.spec.ttlSecondsAfterFinished, want: [] },
    // status
    { name: 'finishTime not a time', edit: (o) => (o.status.finishTime = 'yesterday'), want: [Invalid('status.finishTime')] },
    { name: 'observedGeneration negative', edit: (o) => (o.status.observedGeneration = -1), want: [Invalid('status.observedGeneration')] },
    { name: 'observedGeneration beyond int32', edit: (o) => (o.status.observedGeneration = 4294967296), want: [] },
    { name: 'observed workload without workload', edit: (o) => delete o.status.observedWorkloads[0].workload, want: [Required('status.observedWorkloads[0].workload')] },
    { name: 'observed workload without kind', edit: (o) => delete o.status.observedWorkloads[0].workload.kind, want: [Required('status.observedWorkloads[0].workload.kind')] },
    { name: 'observed workload namespace invalid', edit: (o) => (o.status.observedWorkloads[1].workload.namespace = 'Shop'), want: [Invalid('status.observedWorkloads[1].workload.namespace')] },
    { name: 'observed workload name with a slash', edit: (o) => (o.status.observedWorkloads[1].workload.name = 'a/b'), want: [Invalid('status.observedWorkloads[1].workload.name')] },
    { name: 'result is open-ended while unfinished', edit: (o) => { delete o.status.finishTime; o.status.observedWorkloads[0].result = 'Pending'; }, want: [] },
    { name: 'no result while unfinished', edit: (o) => { delete o.status.finishTime; delete o.status.observedWorkloads[0].result; }, want: [] },
    { name: 'finished with a workload still pending', edit: (o) => (o.status.observedWorkloads[0].result = 'Pending'), want: [Invalid('status.observedWorkloads[0].result')] },
    { name: 'finished with a workload without result', edit: (o) => delete o.status.observedWorkloads[2].result, want: [Required('status.observedWorkloads[2].result')] },
    { name: 'finished with an empty result', edit: (o) => (o.status.observedWorkloads[2].result = ''), want: [Required('status.observedWorkloads[2].result')] },
    { name: 'finished with every workload Failed', edit: (o) => o.status.observedWorkloads.forEach((w: any) => (w.result = 'Failed')), want: [] },
    { name: 'result in the wrong case once finished', edit: (o) => (o.status.observedWorkloads[0].result = 'successful'), want: [Invalid('status.observedWorkloads[0].result')] },
    { name: 'result not a string', edit: (o) => (o.status.observedWorkloads[0].result = true), want: [Invalid('status.observedWorkloads[0].result')] },
    { name: 'empty status', edit: (o) => (o.status = {}), want: [] },
    { name: 'finishTime null is no finish time, so a result may be pending', edit: (o) => { o.status.finishTime = null; o.status.observedWorkloads[0].result = 'Pending'; }, want: [] },
    {
      name: 'clearing finishTime while a workload is pending',
      edit: (o) => { delete o.status.finishTime; o.status.observedWorkloads[0].result = 'Pending'; },
      want: [],
      options: { operation: 'UPDATE', subResource: 'status', oldObject: rebalancer },
    },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(rebalancer, edit), want, options);
  });

  it('says why an empty or null workload list is rejected', () => {
    for (const workloads of [[], null, undefined]) {
      const result = validate(changed(rebalancer, (o) => (o.spec.workloads = workloads)));
      expect(result.causes).toEqual([expect.objectContaining({ type: 'FieldValueRequired', field: 'spec.workloads' })]);
    }
    const nullResult = validate(changed(rebalancer, (o) => (o.spec.workloads = null)));
    expect(nullResult.causes[0]!.message).toBe('Required value: must have at least one item');
  });

  it('says a workload may be listed only once', () => {
    const result = validate(changed(rebalancer, (o) => o.spec.workloads.push({ ...o.spec.workloads[0] })));
    expect(result.causes.map((c) => c.message)).toEqual([
      'Duplicate value: {"apiVersion":"apps/v1","kind":"Deployment","namespace":"shop","name":"checkout"}: each workload may be listed only once',
    ]);
  });

  it('rejects bad status on the status subresource and ignores the spec there', () => {
    const statusWrite = changed(rebalancer, (o) => {
      o.spec.workloads = [];
      o.status.observedWorkloads[0].workload.namespace = 'Bad_NS';
    });
    expectCauses(statusWrite, [Invalid('status.observedWorkloads[0].workload.namespace')], { operation: 'UPDATE', subResource: 'status', oldObject: rebalancer });
  });

  it('judges finishTime where a write sets or changes it, not where it keeps the stored one', () => {
    const status = { operation: 'UPDATE', subResource: 'status', oldObject: rebalancer } as const;
    // Karmada's controller retrying a workload added after the rebalancer finished keeps the stored finishTime.
    const retrying = changed(rebalancer, (o) => o.status.observedWorkloads.push({ workload: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'cart' } }));
    expectCauses(retrying, [], status);
    // A write that moves finishTime while a workload has not ended is refused.
    const moved = changed(retrying, (o) => (o.status.finishTime = '2026-11-21T08:05:00Z'));
    expectCauses(moved, [Required('status.observedWorkloads[3].result')], status);
    const unfinished = changed(rebalancer, (o) => delete o.status.finishTime);
    const setting = changed(rebalancer, (o) => (o.status.observedWorkloads[1].result = 'Pending'));
    const denied = validate(setting, { ...status, oldObject: unfinished });
    expect(denied.causes.map((c) => c.message)).toEqual([
      'Invalid value: "Pending": status.finishTime is set by this write, so every workload must have ended Successful or Failed',
    ]);
  });

  it('allows the spec to change on UPDATE', () => {
    expectCauses(changed(rebalancer, (o) => o.spec.workloads.pop()), [], { operation: 'UPDATE', oldObject: rebalancer });
  });
});
