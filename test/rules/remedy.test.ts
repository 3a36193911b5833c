import { describe, expect, it } from 'vitest';
import { validate } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, type Case } from '../helpers.js';

/** Moves traffic away from two clusters whose service DNS resolution fails. */
import { remedy } from '../fixtures/remedy.js';

const match = (o: any) => o.spec.decisionMatches[0].clusterConditionMatch;

describe('Remedy', () => {
  it('accepts a realistic TrafficControl remedy with a decision match', () => {
    expect(expectCauses(remedy, []).warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'DNS_Failure'), want: [Invalid('metadata.name')] },
    // spec
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'empty spec: no actions, every cluster, immediately', edit: (o) => (o.spec = {}), want: [] },
    // actions
    { name: 'actions omitted', edit: (o) => delete o.spec.actions, want: [] },
    { name: 'actions empty', edit: (o) => (o.spec.actions = []), want: [] },
    { name: 'action names are not restricted', edit: (o) => o.spec.actions.push('Cordon'), want: [] },
    { name: 'duplicate action', edit: (o) => o.spec.actions.push('Cordon', 'TrafficControl'), want: [Duplicate('spec.actions[2]')] },
    { name: 'actions differing in case are distinct', edit: (o) => o.spec.actions.push('trafficcontrol'), want: [] },
    { name: 'action not a string', edit: (o) => (o.spec.actions = [1]), want: [Invalid('spec.actions[0]')] },
    { name: 'actions not a list', edit: (o) => (o.spec.actions = 'TrafficControl'), want: [Invalid('spec.actions')] },
    // clusterAffinity
    { name: 'clusterAffinity omitted', edit: (o) => delete o.spec.clusterAffinity, want: [] },
    { name: 'clusterAffinity empty', edit: (o) => (o.spec.clusterAffinity = {}), want: [] },
    { name: 'clusterNames not a list', edit: (o) => (o.spec.clusterAffinity.clusterNames = 'member1'), want: [Invalid('spec.clusterAffinity.clusterNames')] },
    {
      name: 'labelSelector is not a Remedy clusterAffinity field',
      edit: (o) => (o.spec.clusterAffinity.labelSelector = { matchLabels: { env: 'prod' } }),
      want: [Forbidden('spec.clusterAffinity.labelSelector')],
      options: { strict: true },
    },
    {
      name: 'fieldSelector is not a Remedy clusterAffinity field',
      edit: (o) => (o.spec.clusterAffinity.fieldSelector = { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] }),
      want: [Forbidden('spec.clusterAffinity.fieldSelector')],
      options: { strict: true },
    },
    { name: 'exclude is not a Remedy clusterAffinity field', edit: (o) => (o.spec.clusterAffinity.exclude = ['member3']), want: [Forbidden('spec.clusterAffinity.exclude')], options: { strict: true } },
    // decisionMatches
    { name: 'decisionMatches omitted', edit: (o) => delete o.spec.decisionMatches, want: [] },
    { name: 'decisionMatches empty', edit: (o) => (o.spec.decisionMatches = []), want: [] },
    // Neither the spec nor Karmada's CRD requires it.
    { name: 'decision match without clusterConditionMatch', edit: (o) => (o.spec.decisionMatches[0] = {}), want: [] },
    { name: 'clusterConditionMatch not an object', edit: (o) => (o.spec.decisionMatches[0].clusterConditionMatch = 'Ready'), want: [Invalid('spec.decisionMatches[0].clusterConditionMatch')] },
    { name: 'conditionType missing', edit: (o) => delete match(o).conditionType, want: [Required('spec.decisionMatches[0].clusterConditionMatch.conditionType')] },
    { name: 'conditionType empty', edit: (o) => (match(o).conditionType = ''), want: [Required('spec.decisionMatches[0].clusterConditionMatch.conditionType')] },
    { name: 'conditionType not a condition type (CamelCase)', edit: (o) => (match(o).conditionType = 'dns_ready'), want: [Invalid('spec.decisionMatches[0].clusterConditionMatch.conditionType')] },
    { name: 'conditionType with a domain prefix', edit: (o) => (match(o).conditionType = 'example.com/DNSReady'), want: [] },
    { name: 'conditionStatus not a condition status', edit: (o) => (match(o).conditionStatus = 'Down'), want: [NotSupported('spec.decisionMatches[0].clusterConditionMatch.conditionStatus')] },
    { name: 'conditionStatus in the wrong case', edit: (o) => (match(o).conditionStatus = 'false'), want: [NotSupported('spec.decisionMatches[0].clusterConditionMatch.conditionStatus')] },
    { name: 'conditionStatus Unknown', edit: (o) => (match(o).conditionStatus = 'Unknown'), want: [] },
    { name: 'conditionStatus not a string is blamed once', edit: (o) => (match(o).conditionStatus = false), want: [Invalid('spec.decisionMatches[0].clusterConditionMatch.conditionStatus')] },
    { name: 'conditionStatus missing', edit: (o) => delete match(o).conditionStatus, want: [Required('spec.decisionMatches[0].clusterConditionMatch.conditionStatus')] },
    { name: 'conditionStatus empty', edit: (o) => (match(o).conditionStatus = ''), want: [Required('spec.decisionMatches[0].clusterConditionMatch.conditionStatus')] },
    { name: 'operator missing', edit: (o) => delete match(o).operator, want: [Required('spec.decisionMatches[0].clusterConditionMatch.operator')] },
    { name: 'operator In', edit: (o) => (match(o).operator = 'In'), want: [NotSupported('spec.decisionMatches[0].clusterConditionMatch.operator')] },
    { name: 'operator in the wrong case', edit: (o) => (match(o).operator = 'equal'), want: [NotSupported('spec.decisionMatches[0].clusterConditionMatch.operator')] },
    { name: 'operator NotEqual', edit: (o) => (match(o).operator = 'NotEqual'), want: [] },
    {
      name: 'several decision matches',
      edit: (o) => o.spec.decisionMatches.push({ clusterConditionMatch: { conditionType: 'Ready', operator: 'NotEqual', conditionStatus: 'True' } }),
      want: [],
    },
    { name: 'a decision match that is not an object', edit: (o) => (o.spec.decisionMatches = ['Ready']), want: [Invalid('spec.decisionMatches[0]')] },
    // status: content not given
    { name: 'any status content', edit: (o) => (o.status = { observedGeneration: 1 }), want: [] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(remedy, edit), want, options);
  });

  it('warns about fields Remedy does not have, unless strict', () => {
    const result = validate(changed(remedy, (o) => (o.spec.clusterAffinity.labelSelector = { matchLabels: { env: 'prod' } })));
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual(['unknown field "spec.clusterAffinity.labelSelector"']);
  });

  it('names the duplicate action', () => {
    const result = validate(changed(remedy, (o) => o.spec.actions.push('TrafficControl')));
    expect(result.causes.map((c) => `${c.field}: ${c.message}`)).toEqual(['spec.actions[1]: Duplicate value: "TrafficControl"']);
  });

  it('is the same on UPDATE and checks only metadata and status on the status subresource', () => {
    expectCauses(changed(remedy, (o) => (o.spec.actions = [])), [], { operation: 'UPDATE', oldObject: remedy });
    expectCauses(changed(remedy, (o) => (match(o).operator = 'In')), [], { operation: 'UPDATE', subResource: 'status', oldObject: remedy });
  });

  it('collects every cause in one pass', () => {
    const result = validate(
      changed(remedy, (o) => {
        o.spec.actions.push('TrafficControl');
        match(o).operator = 'Is';
        delete match(o).conditionStatus;
      }),
    );
    expect(result.causes.map((c) => c.field).sort()).toEqual(
      ['spec.actions[1]', 'spec.decisionMatches[0].clusterConditionMatch.conditionStatus', 'spec.decisionMatches[0].clusterConditionMatch.operator'].sort(),
    );
  });
});
