import { describe, expect, it } from 'vitest';
import { validate } from '../../src/index.js';
import { formatQuantity } from '../../rules/federatedresourcequota.js';
import { parseQuantity } from '../../src/checks/quantity.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, Required, type Case } from '../helpers.js';

import { frq } from '../fixtures/federatedresourcequota.js';

/** A DNS subdomain of `length` characters, for resource-name prefixes. */
const longPrefix = (length: number) => `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(length - 192)}`;

/** Adds the same resource to overall and to the first assignment, so only the resource-name rules are in play. */
const withResource = (name: string, value: string | number) => (o: any) => {
  o.spec.overall[name] = value;
  o.spec.staticAssignments[0].hard[name] = value;
};

describe('FederatedResourceQuota', () => {
  it('accepts a realistic quota whose assignments add up to overall by value', () => {
    const result = expectCauses(frq, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name of exactly 63', edit: (o) => (o.metadata.name = 'a'.repeat(63)), want: [] },
    { name: 'name longer than 63', edit: (o) => (o.metadata.name = 'a'.repeat(64)), want: [Invalid('metadata.name')] },
    { name: 'name a dotted subdomain', edit: (o) => (o.metadata.name = 'team.ml'), want: [] },
    { name: 'name not a subdomain', edit: (o) => (o.metadata.name = 'Team_ML'), want: [Invalid('metadata.name')] },
    { name: 'generateName too long', edit: (o) => { delete o.metadata.name; o.metadata.generateName = `${'a'.repeat(64)}-`; }, want: [Invalid('metadata.generateName')] },
    { name: 'bad namespace', edit: (o) => (o.metadata.namespace = 'Team'), want: [Invalid('metadata.namespace')] },
    // spec shape
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'overall missing', edit: (o) => { delete o.spec.overall; }, want: [Required('spec.overall')] },
    { name: 'overall missing, no assignments', edit: (o) => { delete o.spec.overall; delete o.spec.staticAssignments; }, want: [Required('spec.overall')] },
    { name: 'overall empty, no assignments', edit: (o) => { o.spec.overall = {}; delete o.spec.staticAssignments; }, want: [] },
    { name: 'overall not a map', edit: (o) => { o.spec.overall = ['cpu']; delete o.spec.staticAssignments; }, want: [Invalid('spec.overall')] },
    { name: 'overall value not a quantity', edit: (o) => (o.spec.overall.cpu = 'eight'), want: [Invalid('spec.overall[cpu]')] },
    {
      name: 'overall value not a quantity does not hide later causes',
      edit: (o) => {
        o.spec.overall.cpu = 'eight';
        o.spec.staticAssignments[1].hard['requests.storage'] = '10Gi';
      },
      want: [Invalid('spec.overall[cpu]'), Invalid('spec.staticAssignments[1].hard[requests.storage]')],
    },
    {
      name: 'overall missing does not hide assignment causes',
      edit: (o) => {
        delete o.spec.overall;
        o.spec.staticAssignments[1].hard.cpu = '-1';
      },
      want: [Required('spec.overall'), Invalid('spec.staticAssignments[1].hard[cpu]')],
    },
    // resource names
    ...['requests.cpu', 'limits.memory', 'ephemeral-storage', 'requests.storage', 'limits.ephemeral-storage', 'services.loadbalancers', 'persistentvolumeclaims', 'hugepages-2Mi', 'requests.hugepages-1Gi', 'count/deployments.apps', 'example.com/widgets', 'requests.nvidia.com/gpu'].map(
      (name): Case => ({ name: `resource ${name} accepted`, edit: withResource(name, '2'), want: [] }),
    ),
    ...['storage', 'gpu', 'limits.storage', 'requests.pods', 'hugepages-', 'hugepages-huge', 'hugepages-0', 'limits.hugepages-2Mi'].map(
      (name): Case => ({ name: `resource ${name} rejected`, edit: (o) => (o.spec.overall[name] = '2'), want: [Invalid(`spec.overall[${name}]`)] }),
    ),
    { name: 'resource not a qualified name', edit: (o) => (o.spec.overall['a/b/c'] = '1'), want: [Invalid('spec.overall[a/b/c]')] },
    { name: 'resource with an empty prefix', edit: (o) => (o.spec.overall['/gpu'] = '1'), want: [Invalid('spec.overall[/gpu]')] },
    // values
    { name: 'negative overall', edit: (o) => (o.spec.overall.memory = '-1Gi'), want: [Invalid('spec.overall[memory]')] },
    { name: 'zero overall with zero assignments', edit: (o) => { o.spec.overall.memory = '0'; o.spec.staticAssignments.forEach((a: any) => (a.hard.memory = '0')); }, want: [] },
    { name: 'fractional pods', edit: (o) => { o.spec.overall.pods = '100.5'; }, want: [Invalid('spec.overall[pods]')] },
    { name: 'fractional pods below the sum: one cause', edit: (o) => (o.spec.overall.pods = '1.5'), want: [Invalid('spec.overall[pods]')] },
    { name: 'pods as 1k is whole', edit: (o) => (o.spec.overall.pods = '1k'), want: [] },
    { name: 'pods as 1e2 is whole', edit: (o) => (o.spec.overall.pods = '1e2'), want: [] },
    { name: 'fractional extended resource', edit: (o) => (o.spec.overall['nvidia.com/gpu'] = '4500m'), want: [Invalid('spec.overall[nvidia.com/gpu]')] },
    { name: 'fractional object count', edit: withResource('count/deployments.apps', '0.5'), want: [Invalid('spec.overall[count/deployments.apps]'), Invalid('spec.staticAssignments[0].hard[count/deployments.apps]')] },
    // An extended resource is one whose `requests.` form is still a qualified name (prefix at most 253).
    { name: 'fractional extended resource with a 244-character prefix', edit: withResource(`${longPrefix(244)}/widgets`, '500m'), want: [Invalid(`spec.overall[${longPrefix(244)}/widgets]`), Invalid(`spec.staticAssignments[0].hard[${longPrefix(244)}/widgets]`)] },
    { name: 'fractional resource with a 245-character prefix is not an extended resource', edit: withResource(`${longPrefix(245)}/widgets`, '500m'), want: [] },
    { name: 'fractional kubernetes.io resource is not an integer resource', edit: withResource('example.kubernetes.io/bandwidth', '500m'), want: [] },
    { name: 'fractional requests. prefixed extended resource', edit: withResource('requests.nvidia.com/gpu', '500m'), want: [] },
    { name: 'fractional cpu', edit: withResource('requests.cpu', '0.5'), want: [] },
    { name: 'negative and fractional pods: one cause', edit: (o) => (o.spec.overall.pods = '-0.5'), want: [Invalid('spec.overall[pods]')] },
    // static assignments
    { name: 'assignment without clusterName', edit: (o) => delete o.spec.staticAssignments[0].clusterName, want: [Required('spec.staticAssignments[0].clusterName')] },
    { name: 'assignment with empty clusterName', edit: (o) => (o.spec.staticAssignments[0].clusterName = ''), want: [Required('spec.staticAssignments[0].clusterName')] },
    { name: 'clusterName not a DNS label', edit: (o) => (o.spec.staticAssignments[0].clusterName = 'member.one'), want: [Invalid('spec.staticAssignments[0].clusterName')] },
    { name: 'clusterName longer than 48', edit: (o) => (o.spec.staticAssignments[0].clusterName = 'm'.repeat(49)), want: [Invalid('spec.staticAssignments[0].clusterName')] },
    { name: 'clusterName of exactly 48', edit: (o) => (o.spec.staticAssignments[0].clusterName = 'm'.repeat(48)), want: [] },
    { name: 'assignment without hard', edit: (o) => delete o.spec.staticAssignments[1].hard, want: [Required('spec.staticAssignments[1].hard')] },
    { name: 'assignment with empty hard', edit: (o) => (o.spec.staticAssignments[1].hard = {}), want: [] },
    { name: 'assignment unknown field', edit: (o) => (o.spec.staticAssignments[0].soft = {}), want: [Forbidden('spec.staticAssignments[0].soft')], options: { strict: true } },
    {
      name: 'duplicate clusterName (counted once in the sums)',
      edit: (o) => o.spec.staticAssignments.push({ clusterName: 'member1', hard: { cpu: '1' } }),
      want: [Duplicate('spec.staticAssignments[2].clusterName')],
    },
    { name: 'assignment of a resource missing from overall', edit: (o) => (o.spec.staticAssignments[1].hard['requests.storage'] = '10Gi'), want: [Invalid('spec.staticAssignments[1].hard[requests.storage]')] },
    { name: 'assignment of an invalid resource: one cause', edit: (o) => (o.spec.staticAssignments[1].hard.storage = '10Gi'), want: [Invalid('spec.staticAssignments[1].hard[storage]')] },
    {
      name: 'invalid resource in overall and an assignment above it: one cause each',
      edit: (o) => {
        o.spec.overall.storage = '1';
        o.spec.staticAssignments[0].hard.storage = '2';
      },
      want: [Invalid('spec.overall[storage]'), Invalid('spec.staticAssignments[0].hard[storage]')],
    },
    {
      name: 'assignments without a clusterName are each counted in the sums',
      edit: (o) => {
        o.spec.staticAssignments[0].clusterName = '';
        o.spec.staticAssignments[1].clusterName = '';
        o.spec.staticAssignments[1].hard.cpu = '5';
      },
      want: [Required('spec.staticAssignments[0].clusterName'), Required('spec.staticAssignments[1].clusterName'), Invalid('spec.overall[cpu]')],
    },
    { name: 'assignment negative', edit: (o) => (o.spec.staticAssignments[1].hard.cpu = '-1'), want: [Invalid('spec.staticAssignments[1].hard[cpu]')] },
    { name: 'assignment fractional pods', edit: (o) => (o.spec.staticAssignments[1].hard.pods = '39.5'), want: [Invalid('spec.staticAssignments[1].hard[pods]')] },
    { name: 'assignment value not a quantity', edit: (o) => (o.spec.staticAssignments[1].hard.cpu = '3 cores'), want: [Invalid('spec.staticAssignments[1].hard[cpu]')] },
    // sums against overall, by value
    { name: 'assignments exceed overall cpu by 1m', edit: (o) => (o.spec.staticAssignments[1].hard.cpu = '3001m'), want: [Invalid('spec.overall[cpu]')] },
    { name: 'assignments exceed overall memory', edit: (o) => (o.spec.overall.memory = '31Gi'), want: [Invalid('spec.overall[memory]')] },
    { name: 'overall raised above the sum', edit: (o) => (o.spec.overall.cpu = '8.5'), want: [] },
    { name: 'overall equal to the sum in other units', edit: (o) => (o.spec.overall.memory = '32768Mi'), want: [] },
    { name: 'overall in milli equal to the sum', edit: (o) => (o.spec.overall.cpu = '8000m'), want: [] },
    { name: 'overall in nano and micro units equal to the sum', edit: (o) => { o.spec.overall.cpu = '8000000000n'; o.spec.staticAssignments[1].hard.cpu = '3000000u'; }, want: [] },
    { name: 'assignments exceed overall by 1n', edit: (o) => (o.spec.staticAssignments[1].hard.cpu = '3000000001n'), want: [Invalid('spec.overall[cpu]')] },
    // The API server reads a value finer than a nano-unit rounded up to the next one (resource.ParseQuantity).
    {
      name: 'overall finer than a nano-unit is 1n, enough for an assignment of 1n',
      edit: (o) => { o.spec.overall.memory = '1e-10'; o.spec.staticAssignments[0].hard.memory = '1n'; o.spec.staticAssignments[1].hard.memory = '0'; },
      want: [],
    },
    {
      name: 'overall finer than a nano-unit is 1n, less than assignments of 1n each',
      edit: (o) => { o.spec.overall.memory = '1e-10'; o.spec.staticAssignments[0].hard.memory = '1n'; o.spec.staticAssignments[1].hard.memory = '1n'; },
      want: [Invalid('spec.overall[memory]')],
    },
    {
      name: 'assignments are rounded one by one: 0.5n and 0.5n are 2n',
      edit: (o) => { o.spec.overall.memory = '1n'; o.spec.staticAssignments[0].hard.memory = '0.5n'; o.spec.staticAssignments[1].hard.memory = '0.5n'; },
      want: [Invalid('spec.overall[memory]')],
    },
    { name: 'resource given to one cluster only', edit: (o) => { delete o.spec.staticAssignments[1].hard.cpu; o.spec.overall.cpu = '5'; }, want: [] },
    { name: 'resource in overall never assigned', edit: (o) => (o.spec.overall['requests.storage'] = '1Ti'), want: [] },
    { name: 'negative overall is not also below the sum', edit: (o) => (o.spec.overall.cpu = '-8'), want: [Invalid('spec.overall[cpu]')] },
    { name: 'no static assignments', edit: (o) => delete o.spec.staticAssignments, want: [] },
    // status
    { name: 'status overall storage', edit: (o) => (o.status.overall.storage = '1Ti'), want: [Invalid('status.overall[storage]')] },
    { name: 'status overallUsed negative', edit: (o) => (o.status.overallUsed.cpu = '-100m'), want: [Invalid('status.overallUsed[cpu]')] },
    { name: 'status overallUsed above overall is not checked', edit: (o) => (o.status.overallUsed.cpu = '9'), want: [] },
    { name: 'aggregated hard fractional gpu', edit: (o) => (o.status.aggregatedStatus[0].hard['nvidia.com/gpu'] = '0.5'), want: [Invalid('status.aggregatedStatus[0].hard[nvidia.com/gpu]')] },
    { name: 'aggregated used bad resource', edit: (o) => (o.status.aggregatedStatus[1].used.gpu = '1'), want: [Invalid('status.aggregatedStatus[1].used[gpu]')] },
    { name: 'aggregated used not a quantity', edit: (o) => (o.status.aggregatedStatus[1].used.cpu = 'half'), want: [Invalid('status.aggregatedStatus[1].used[cpu]')] },
    { name: 'aggregated without clusterName', edit: (o) => delete o.status.aggregatedStatus[0].clusterName, want: [Required('status.aggregatedStatus[0].clusterName')] },
    { name: 'aggregated clusterName not a label', edit: (o) => (o.status.aggregatedStatus[0].clusterName = 'Member1'), want: [Invalid('status.aggregatedStatus[0].clusterName')] },
    { name: 'aggregated with clusterName only', edit: (o) => (o.status.aggregatedStatus[0] = { clusterName: 'member1' }), want: [] },
    { name: 'empty status', edit: (o) => (o.status = {}), want: [] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(frq, edit), want, options);
  });

  it('names the sum in the message, by value', () => {
    const result = validate(changed(frq, (o) => (o.spec.staticAssignments[1].hard.cpu = '3500m')));
    expect(result.causes).toEqual([
      expect.objectContaining({ field: 'spec.overall[cpu]', message: 'Invalid value: "8": overall is less than the sum of static assignments (8500m)' }),
    ]);
  });

  it('explains the quota rules in its messages', () => {
    const result = validate(
      changed(frq, (o) => {
        o.spec.overall.storage = '1Ti';
        o.spec.overall.pods = '1.5';
        o.spec.staticAssignments[0].hard['requests.memory'] = '1Gi';
        o.spec.overall.memory = '-1';
      }),
    );
    const byField = Object.fromEntries(result.causes.map((c) => [c.field, c.message]));
    expect(byField['spec.overall[storage]']).toMatch(/^Invalid value: "storage": must be a standard resource for quota/);
    expect(byField['spec.overall[pods]']).toBe('Invalid value: "1.5": must be an integer');
    expect(byField['spec.overall[memory]']).toBe('Invalid value: "-1": must be greater than or equal to 0');
    expect(byField['spec.staticAssignments[0].hard[requests.memory]']).toMatch(/is not a resource in spec.overall/);
  });

  it('words name and duplicate-cluster problems', () => {
    const messages = (edit: (o: any) => void) => validate(changed(frq, edit)).causes.map((c) => `${c.field}: ${c.message}`);
    // The subdomain's own 253-character limit is not repeated.
    expect(messages((o) => (o.metadata.name = 'a'.repeat(254)))).toEqual([
      `metadata.name: Invalid value: "${'a'.repeat(254)}": must be no more than 63 characters (the name is used as a label value)`,
    ]);
    expect(messages((o) => (o.metadata.name = 'A'.repeat(64)))).toEqual([
      expect.stringMatching(/^metadata\.name: Invalid value: "A{64}": must be no more than 63 characters \(the name is used as a label value\); a lowercase RFC 1123 subdomain must consist of/),
    ]);
    expect(messages((o) => o.spec.staticAssignments.push({ clusterName: 'member1', hard: { cpu: '1' } }))).toEqual([
      'spec.staticAssignments[2].clusterName: Duplicate value: "member1": a cluster may have only one static assignment',
    ]);
  });

  it('rejects bad status on the status subresource and ignores the spec there', () => {
    const statusWrite = changed(frq, (o) => {
      o.spec.overall.cpu = '1';
      o.status.overallUsed.storage = '1';
    });
    expectCauses(statusWrite, [Invalid('status.overallUsed[storage]')], { operation: 'UPDATE', subResource: 'status', oldObject: frq });
  });

  it('allows an UPDATE that changes the spec and keeps the name', () => {
    expectCauses(changed(frq, (o) => (o.spec.overall.cpu = '16')), [], { operation: 'UPDATE', oldObject: frq });
  });

  it('formats exact sums as quantity text', () => {
    const q = (s: string) => parseQuantity(s)!;
    expect(formatQuantity(q('8'))).toBe('8');
    expect(formatQuantity(q('8500m'))).toBe('8500m');
    expect(formatQuantity(q('0.5'))).toBe('500m');
    expect(formatQuantity(q('1500e-6'))).toBe('0.0015');
    expect(formatQuantity(q('32Gi'))).toBe('34359738368');
  });
});
