import { describe, expect, it } from 'vitest';
import { validate } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, type Case } from '../helpers.js';

/** Taints unhealthy production clusters in two regions and lifts the taints once they are Ready again. */
import { policy } from '../fixtures/clustertaintpolicy.js';

describe('ClusterTaintPolicy', () => {
  it('accepts a realistic policy with add and remove conditions and target clusters', () => {
    expect(expectCauses(policy, []).warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'Not_Ready'), want: [Invalid('metadata.name')] },
    // spec and taints
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'taints missing', edit: (o) => delete o.spec.taints, want: [Required('spec.taints')] },
    { name: 'taints empty', edit: (o) => (o.spec.taints = []), want: [Required('spec.taints')] },
    { name: 'a single taint', edit: (o) => (o.spec.taints = [{ key: 'maintenance', effect: 'NoSchedule' }]), want: [] },
    { name: 'taint without key', edit: (o) => delete o.spec.taints[0].key, want: [Required('spec.taints[0].key')] },
    { name: 'taint with empty key', edit: (o) => (o.spec.taints[0].key = ''), want: [Required('spec.taints[0].key')] },
    { name: 'taint key not a qualified name', edit: (o) => (o.spec.taints[0].key = 'not ready'), want: [Invalid('spec.taints[0].key')] },
    { name: 'taint key with two slashes', edit: (o) => (o.spec.taints[0].key = 'a/b/c'), want: [Invalid('spec.taints[0].key')] },
    { name: 'taint without effect', edit: (o) => delete o.spec.taints[0].effect, want: [Required('spec.taints[0].effect')] },
    { name: 'taint effect unsupported', edit: (o) => (o.spec.taints[0].effect = 'Foo'), want: [NotSupported('spec.taints[0].effect')] },
    { name: 'taint effect in the wrong case', edit: (o) => (o.spec.taints[0].effect = 'noschedule'), want: [NotSupported('spec.taints[0].effect')] },
    { name: 'taint value not a label value', edit: (o) => (o.spec.taints[2].value = 'bad value'), want: [Invalid('spec.taints[2].value')] },
    { name: 'taint value of 63 characters', edit: (o) => (o.spec.taints[2].value = 'v'.repeat(63)), want: [] },
    { name: 'taint value of 64 characters', edit: (o) => (o.spec.taints[2].value = 'v'.repeat(64)), want: [Invalid('spec.taints[2].value')] },
    { name: 'taint value empty', edit: (o) => (o.spec.taints[2].value = ''), want: [] },
    { name: 'taint timeAdded is not a policy field', edit: (o) => (o.spec.taints[0].timeAdded = '2026-11-01T10:00:00Z'), want: [Forbidden('spec.taints[0].timeAdded')], options: { strict: true } },
    { name: 'duplicate taint key and effect', edit: (o) => o.spec.taints.push({ key: 'example.com/degraded', effect: 'PreferNoSchedule' }), want: [Duplicate('spec.taints[3]')] },
    { name: 'duplicate taint with another value', edit: (o) => o.spec.taints.push({ key: 'cluster.karmada.io/not-ready', value: 'x', effect: 'NoSchedule' }), want: [Duplicate('spec.taints[3]')] },
    { name: 'same key with another effect', edit: (o) => o.spec.taints.push({ key: 'example.com/degraded', effect: 'NoSchedule' }), want: [] },
    // NoExecute
    { name: 'NoExecute allowed by default', edit: (o) => (o.spec.taints = [{ key: 'evict', effect: 'NoExecute' }]), want: [] },
    { name: 'NoExecute allowed when enabled', edit: () => {}, want: [], options: { allowNoExecuteTaintPolicy: true } },
    { name: 'NoExecute forbidden when disabled', edit: () => {}, want: [Forbidden('spec.taints[1]')], options: { allowNoExecuteTaintPolicy: false } },
    {
      name: 'disabling NoExecute leaves the other effects alone',
      edit: (o) => o.spec.taints.splice(1, 1),
      want: [],
      options: { allowNoExecuteTaintPolicy: false },
    },
    // match conditions
    { name: 'add condition without conditionType', edit: (o) => delete o.spec.addOnConditions[0].conditionType, want: [Required('spec.addOnConditions[0].conditionType')] },
    { name: 'add condition with empty conditionType', edit: (o) => (o.spec.addOnConditions[0].conditionType = ''), want: [Required('spec.addOnConditions[0].conditionType')] },
    { name: 'conditionType not a condition type (CamelCase)', edit: (o) => (o.spec.addOnConditions[0].conditionType = 'custom_condition'), want: [Invalid('spec.addOnConditions[0].conditionType')] },
    { name: 'conditionType with a bad domain prefix', edit: (o) => (o.spec.removeOnConditions[0].conditionType = 'Example.com/Ready'), want: [Invalid('spec.removeOnConditions[0].conditionType')] },
    { name: 'conditionType invented by another controller', edit: (o) => (o.spec.removeOnConditions[0].conditionType = 'example.com/DiskPressure'), want: [] },
    { name: 'statusValue not a condition status', edit: (o) => (o.spec.addOnConditions[1].statusValues = ['False', 'Maybe']), want: [NotSupported('spec.addOnConditions[1].statusValues[1]')] },
    { name: 'statusValue in the wrong case', edit: (o) => (o.spec.removeOnConditions[0].statusValues = ['true']), want: [NotSupported('spec.removeOnConditions[0].statusValues[0]')] },
    { name: 'statusValues True, False and Unknown', edit: (o) => (o.spec.removeOnConditions[0].statusValues = ['True', 'False', 'Unknown']), want: [] },
    { name: 'add condition without operator', edit: (o) => delete o.spec.addOnConditions[1].operator, want: [Required('spec.addOnConditions[1].operator')] },
    { name: 'add condition operator Exists', edit: (o) => (o.spec.addOnConditions[1].operator = 'Exists'), want: [NotSupported('spec.addOnConditions[1].operator')] },
    { name: 'remove condition operator Equal', edit: (o) => (o.spec.removeOnConditions[0].operator = 'Equal'), want: [NotSupported('spec.removeOnConditions[0].operator')] },
    { name: 'add condition without statusValues', edit: (o) => delete o.spec.addOnConditions[0].statusValues, want: [Required('spec.addOnConditions[0].statusValues')] },
    { name: 'remove condition with empty statusValues', edit: (o) => (o.spec.removeOnConditions[0].statusValues = []), want: [Required('spec.removeOnConditions[0].statusValues')] },
    { name: 'statusValues not strings', edit: (o) => (o.spec.removeOnConditions[0].statusValues = [true]), want: [Invalid('spec.removeOnConditions[0].statusValues[0]')] },
    { name: 'no conditions at all', edit: (o) => { delete o.spec.addOnConditions; delete o.spec.removeOnConditions; }, want: [] },
    { name: 'empty condition lists', edit: (o) => { o.spec.addOnConditions = []; o.spec.removeOnConditions = []; }, want: [] },
    { name: 'condition with an unknown field', edit: (o) => (o.spec.addOnConditions[0].values = ['True']), want: [Forbidden('spec.addOnConditions[0].values')], options: { strict: true } },
    // target clusters
    { name: 'no targetClusters selects every cluster', edit: (o) => delete o.spec.targetClusters, want: [] },
    { name: 'field selector key outside provider/region/zone', edit: (o) => (o.spec.targetClusters.fieldSelector.matchExpressions[0].key = 'name'), want: [NotSupported('spec.targetClusters.fieldSelector.matchExpressions[0].key')] },
    ...['provider', 'zone'].map((k): Case => ({ name: `field selector key ${k}`, edit: (o) => (o.spec.targetClusters.fieldSelector.matchExpressions[0].key = k), want: [] })),
    { name: 'field selector operator Exists', edit: (o) => (o.spec.targetClusters.fieldSelector.matchExpressions[0].operator = 'Exists'), want: [NotSupported('spec.targetClusters.fieldSelector.matchExpressions[0].operator')] },
    {
      name: 'field selector DoesNotExist is blamed once',
      edit: (o) => (o.spec.targetClusters.fieldSelector.matchExpressions[0].operator = 'DoesNotExist'),
      want: [NotSupported('spec.targetClusters.fieldSelector.matchExpressions[0].operator')],
    },
    { name: 'field selector NotIn', edit: (o) => (o.spec.targetClusters.fieldSelector.matchExpressions[0].operator = 'NotIn'), want: [] },
    { name: 'field selector In without values', edit: (o) => delete o.spec.targetClusters.fieldSelector.matchExpressions[0].values, want: [Required('spec.targetClusters.fieldSelector.matchExpressions[0].values')] },
    { name: 'label selector value not a label value', edit: (o) => (o.spec.targetClusters.labelSelector.matchLabels.env = 'prod env'), want: [Invalid('spec.targetClusters.labelSelector.matchLabels[env]')] },
    { name: 'label selector key not qualified', edit: (o) => (o.spec.targetClusters.labelSelector.matchLabels = { 'bad key': 'x' }), want: [Invalid('spec.targetClusters.labelSelector.matchLabels')] },
    { name: 'label selector NotIn without values', edit: (o) => (o.spec.targetClusters.labelSelector.matchExpressions[0].values = []), want: [Required('spec.targetClusters.labelSelector.matchExpressions[0].values')] },
    { name: 'label selector Exists with values', edit: (o) => (o.spec.targetClusters.labelSelector.matchExpressions[1].values = ['yes']), want: [Forbidden('spec.targetClusters.labelSelector.matchExpressions[1].values')] },
    { name: 'label selector operator unsupported', edit: (o) => (o.spec.targetClusters.labelSelector.matchExpressions[1].operator = 'Gt'), want: [NotSupported('spec.targetClusters.labelSelector.matchExpressions[1].operator')] },
    { name: 'clusterNames not a list', edit: (o) => (o.spec.targetClusters.clusterNames = 'member1'), want: [Invalid('spec.targetClusters.clusterNames')] },
    // status: content not given
    { name: 'any status content', edit: (o) => (o.status = { observedGeneration: 3, anything: ['goes'] }), want: [] },
    { name: 'status not an object', edit: (o) => (o.status = 'ok'), want: [Invalid('status')] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(policy, edit), want, options);
  });

  it('uses Karmada wording for a forbidden NoExecute taint and a duplicate taint', () => {
    const noExecute = validate(policy, { allowNoExecuteTaintPolicy: false });
    expect(noExecute.causes.map((c) => c.message)).toEqual([
      'Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags',
    ]);
    const dup = validate(changed(policy, (o) => o.spec.taints.push({ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' })));
    expect(dup.causes[0]!.message).toContain('taints must be unique by key and effect pair');
  });

  it('reports a forbidden duplicate NoExecute taint for both reasons', () => {
    expectCauses(
      changed(policy, (o) => o.spec.taints.push({ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' })),
      [Forbidden('spec.taints[1]'), Forbidden('spec.taints[3]'), Duplicate('spec.taints[3]')],
      { allowNoExecuteTaintPolicy: false },
    );
  });

  it('is the same on UPDATE: nothing is immutable', () => {
    const updated = changed(policy, (o) => {
      o.spec.taints = [{ key: 'other', effect: 'NoSchedule' }];
      o.spec.addOnConditions[0].operator = 'In';
    });
    expectCauses(updated, [], { operation: 'UPDATE', oldObject: policy });
  });

  it('checks only metadata and status on the status subresource', () => {
    expectCauses(changed(policy, (o) => (o.spec.taints = [])), [], { operation: 'UPDATE', subResource: 'status', oldObject: policy });
    expectCauses(policy, [], { operation: 'UPDATE', subResource: 'status', oldObject: policy, allowNoExecuteTaintPolicy: false });
  });

  it('collects every cause in one pass', () => {
    const result = validate(
      changed(policy, (o) => {
        o.spec.taints[0].effect = 'Foo';
        o.spec.addOnConditions[0].operator = 'Exists';
        o.spec.removeOnConditions[0].statusValues = [];
        o.spec.targetClusters.fieldSelector.matchExpressions[0].key = 'name';
      }),
    );
    expect(result.causes.map((c) => c.field).sort()).toEqual(
      ['spec.taints[0].effect', 'spec.addOnConditions[0].operator', 'spec.removeOnConditions[0].statusValues', 'spec.targetClusters.fieldSelector.matchExpressions[0].key'].sort(),
    );
  });
});
