import { describe, expect, it } from 'vitest';
import { applyDefaults, validate } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, TooLong, type Case } from '../helpers.js';

import { mcs } from '../fixtures/multiclusterservice.js';

const LB = 'status.loadBalancer.ingress';

describe('MultiClusterService', () => {
  it('accepts a realistic service with ports, provider and consumer clusters and status', () => {
    const result = expectCauses(mcs, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata: the name is a Service name, a DNS-1035 label
    { name: 'name with a dot', edit: (o) => (o.metadata.name = 'checkout.v2'), want: [Invalid('metadata.name')] },
    { name: 'name starting with a digit', edit: (o) => (o.metadata.name = '1checkout'), want: [Invalid('metadata.name')] },
    { name: 'name of 64', edit: (o) => (o.metadata.name = 'a'.repeat(64)), want: [Invalid('metadata.name')] },
    { name: 'name of 63', edit: (o) => (o.metadata.name = 'a'.repeat(63)), want: [] },
    { name: 'generateName ending in a dash', edit: (o) => { delete o.metadata.name; o.metadata.generateName = 'checkout-'; }, want: [] },
    { name: 'generateName starting with a digit', edit: (o) => { delete o.metadata.name; o.metadata.generateName = '1checkout-'; }, want: [Invalid('metadata.generateName')] },
    // spec and types
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'types missing', edit: (o) => delete o.spec.types, want: [Required('spec.types')] },
    { name: 'types empty', edit: (o) => (o.spec.types = []), want: [Required('spec.types')] },
    { name: 'type unsupported', edit: (o) => (o.spec.types = ['Headless']), want: [NotSupported('spec.types[0]')] },
    { name: 'type LoadBalancer', edit: (o) => (o.spec.types = ['LoadBalancer']), want: [] },
    { name: 'two distinct types', edit: (o) => (o.spec.types = ['CrossCluster', 'LoadBalancer']), want: [Invalid('spec.types')] },
    { name: 'repeated type is one type', edit: (o) => (o.spec.types = ['CrossCluster', 'CrossCluster']), want: [] },
    {
      name: 'two distinct types, one repeated',
      edit: (o) => (o.spec.types = ['CrossCluster', 'LoadBalancer', 'CrossCluster']),
      want: [Invalid('spec.types')],
    },
    { name: 'a supported and an unsupported type', edit: (o) => (o.spec.types = ['CrossCluster', 'Headless']), want: [NotSupported('spec.types[1]')] },
    // ports
    { name: 'port missing', edit: (o) => delete o.spec.ports[0].port, want: [Required('spec.ports[0].port')] },
    { name: 'port 0', edit: (o) => (o.spec.ports[0].port = 0), want: [Invalid('spec.ports[0].port')] },
    { name: 'port 65536', edit: (o) => (o.spec.ports[0].port = 65536), want: [Invalid('spec.ports[0].port')] },
    { name: 'port 65535', edit: (o) => (o.spec.ports[0].port = 65535), want: [] },
    { name: 'port 1', edit: (o) => (o.spec.ports[0].port = 1), want: [] },
    { name: 'port a string', edit: (o) => (o.spec.ports[0].port = '80'), want: [Invalid('spec.ports[0].port')] },
    { name: 'port name uppercase', edit: (o) => (o.spec.ports[0].name = 'HTTP'), want: [Invalid('spec.ports[0].name')] },
    { name: 'port name of 64', edit: (o) => (o.spec.ports[0].name = 'a'.repeat(64)), want: [Invalid('spec.ports[0].name')] },
    { name: 'port name of 63', edit: (o) => (o.spec.ports[0].name = 'a'.repeat(63)), want: [] },
    { name: 'port name all digits', edit: (o) => (o.spec.ports[0].name = '8080'), want: [] },
    { name: 'port name empty', edit: (o) => (o.spec.ports[0].name = ''), want: [] },
    { name: 'duplicate port names', edit: (o) => (o.spec.ports[1].name = 'http'), want: [Duplicate('spec.ports[1].name')] },
    { name: 'two unnamed ports', edit: (o) => o.spec.ports.push({ port: 9200 }), want: [] },
    { name: 'ports empty (all exposed)', edit: (o) => (o.spec.ports = []), want: [] },
    // provider and consumer clusters
    { name: 'provider cluster without name', edit: (o) => (o.spec.providerClusters[0] = {}), want: [Required('spec.providerClusters[0].name')] },
    { name: 'provider cluster name empty', edit: (o) => (o.spec.providerClusters[1].name = ''), want: [Required('spec.providerClusters[1].name')] },
    { name: 'provider cluster name uppercase', edit: (o) => (o.spec.providerClusters[0].name = 'Member1'), want: [Invalid('spec.providerClusters[0].name')] },
    { name: 'provider cluster name of 49', edit: (o) => (o.spec.providerClusters[0].name = 'a'.repeat(49)), want: [Invalid('spec.providerClusters[0].name')] },
    { name: 'provider cluster name of 48', edit: (o) => (o.spec.providerClusters[0].name = 'a'.repeat(48)), want: [] },
    { name: 'consumer cluster name with underscore', edit: (o) => (o.spec.consumerClusters[0].name = 'member_3'), want: [Invalid('spec.consumerClusters[0].name')] },
    { name: 'consumer cluster without name', edit: (o) => (o.spec.consumerClusters[0] = {}), want: [Required('spec.consumerClusters[0].name')] },
    { name: 'no provider or consumer clusters (all)', edit: (o) => { delete o.spec.providerClusters; delete o.spec.consumerClusters; }, want: [] },
    // deprecated fields
    { name: 'range with CrossCluster', edit: (o) => (o.spec.range = { clusterNames: ['member1'] }), want: [] },
    { name: 'range with LoadBalancer', edit: (o) => { o.spec.types = ['LoadBalancer']; o.spec.range = { clusterNames: ['member1'] }; }, want: [Forbidden('spec.range')] },
    { name: 'empty range with LoadBalancer', edit: (o) => { o.spec.types = ['LoadBalancer']; o.spec.range = {}; }, want: [Forbidden('spec.range')] },
    { name: 'range with no types', edit: (o) => { o.spec.types = []; o.spec.range = {}; }, want: [Required('spec.types')] },
    { name: 'range clusterNames not strings', edit: (o) => (o.spec.range = { clusterNames: [1] }), want: [Invalid('spec.range.clusterNames[0]')] },
    { name: 'serviceConsumptionClusters not a list', edit: (o) => (o.spec.serviceConsumptionClusters = 'member3'), want: [Invalid('spec.serviceConsumptionClusters')] },
    { name: 'serviceProvisionClusters not strings', edit: (o) => (o.spec.serviceProvisionClusters = [{ name: 'member1' }]), want: [Invalid('spec.serviceProvisionClusters[0]')] },
    { name: 'deprecated cluster lists', edit: (o) => { o.spec.serviceConsumptionClusters = ['member3']; o.spec.serviceProvisionClusters = ['member1']; }, want: [] },
    // status: conditions
    { name: 'condition status unsupported', edit: (o) => (o.status.conditions[0].status = 'Yes'), want: [NotSupported('status.conditions[0].status')] },
    { name: 'condition reason empty', edit: (o) => (o.status.conditions[0].reason = ''), want: [Required('status.conditions[0].reason')] },
    { name: 'condition type not CamelCase', edit: (o) => (o.status.conditions[0].type = 'ready'), want: [Invalid('status.conditions[0].type')] },
    { name: 'condition without lastTransitionTime', edit: (o) => delete o.status.conditions[1].lastTransitionTime, want: [Required('status.conditions[1].lastTransitionTime')] },
    { name: 'duplicate condition type', edit: (o) => (o.status.conditions[1].type = 'Ready'), want: [Duplicate('status.conditions[1].type')] },
    // status: load balancer
    { name: 'lb ip not an IP', edit: (o) => (o.status.loadBalancer.ingress[0].ip = '198.51.100.256'), want: [Invalid(`${LB}[0].ip`)] },
    { name: 'lb hostname an IP', edit: (o) => (o.status.loadBalancer.ingress[1].hostname = '198.51.100.8'), want: [Invalid(`${LB}[1].hostname`)] },
    { name: 'lb hostname with a trailing dot', edit: (o) => (o.status.loadBalancer.ingress[1].hostname = 'checkout.mcs.example.com.'), want: [Invalid(`${LB}[1].hostname`)] },
    { name: 'ipMode unsupported', edit: (o) => (o.status.loadBalancer.ingress[0].ipMode = 'Direct'), want: [NotSupported(`${LB}[0].ipMode`)] },
    { name: 'ipMode Proxy', edit: (o) => (o.status.loadBalancer.ingress[0].ipMode = 'Proxy'), want: [] },
    { name: 'ipMode without ip', edit: (o) => (o.status.loadBalancer.ingress[1].ipMode = 'VIP'), want: [Forbidden(`${LB}[1].ipMode`)] },
    { name: 'ipMode with an empty ip', edit: (o) => (o.status.loadBalancer.ingress[0].ip = ''), want: [Invalid(`${LB}[0].ip`)] },
    { name: 'ip without ipMode', edit: (o) => delete o.status.loadBalancer.ingress[0].ipMode, want: [] },
    { name: 'lb port missing', edit: (o) => delete o.status.loadBalancer.ingress[0].ports[1].port, want: [Required(`${LB}[0].ports[1].port`)] },
    { name: 'lb protocol missing', edit: (o) => delete o.status.loadBalancer.ingress[0].ports[0].protocol, want: [Required(`${LB}[0].ports[0].protocol`)] },
    { name: 'lb protocol unsupported', edit: (o) => (o.status.loadBalancer.ingress[0].ports[0].protocol = 'tcp'), want: [NotSupported(`${LB}[0].ports[0].protocol`)] },
    { name: 'lb protocol SCTP', edit: (o) => (o.status.loadBalancer.ingress[0].ports[0].protocol = 'SCTP'), want: [] },
    { name: 'lb port error not CamelCase', edit: (o) => (o.status.loadBalancer.ingress[0].ports[2].error = 'not ready'), want: [Invalid(`${LB}[0].ports[2].error`)] },
    { name: 'lb port error with domain', edit: (o) => (o.status.loadBalancer.ingress[0].ports[2].error = 'cloud.example.com/QuotaExceeded'), want: [] },
    { name: 'lb port error too long', edit: (o) => (o.status.loadBalancer.ingress[0].ports[2].error = `E${'e'.repeat(316)}`), want: [TooLong(`${LB}[0].ports[2].error`)] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(mcs, edit), want, options);
  });

  it('collects every cause in one pass', () => {
    const bad = changed(mcs, (o) => {
      o.metadata.name = 'checkout.v2';
      o.spec.types = ['CrossCluster', 'LoadBalancer'];
      o.spec.ports[1].name = 'http';
      o.spec.providerClusters[0].name = 'Member1';
      o.status.loadBalancer.ingress[1].ipMode = 'Proxy';
    });
    expectCauses(bad, [
      Invalid('metadata.name'),
      Invalid('spec.types'),
      Duplicate('spec.ports[1].name'),
      Invalid('spec.providerClusters[0].name'),
      Forbidden(`${LB}[1].ipMode`),
    ]);
  });

  it('words the type rules like Karmada', () => {
    const two = validate(changed(mcs, (o) => (o.spec.types = ['CrossCluster', 'LoadBalancer'])));
    expect(two.causes[0]!.message).toBe('Invalid value: ["CrossCluster","LoadBalancer"]: MultiClusterService types should not contain more than one type');
    const cluster = validate(changed(mcs, (o) => (o.spec.consumerClusters[0].name = 'a'.repeat(49))));
    expect(cluster.causes[0]!.message).toContain('must be no more than 48 characters');
  });

  it('says when range and ipMode are out of place', () => {
    const range = validate(changed(mcs, (o) => { o.spec.types = ['LoadBalancer']; o.spec.range = { clusterNames: ['member1'] }; }));
    expect(range.causes.map((c) => c.message)).toEqual(['Forbidden: may only be set when spec.types contains CrossCluster']);
    const ipMode = validate(changed(mcs, (o) => (o.status.loadBalancer.ingress[1].ipMode = 'VIP')));
    expect(ipMode.causes.map((c) => c.message)).toEqual(['Forbidden: may not be specified when `ip` is not']);
  });

  it('warns about each deprecated field that is present', () => {
    expect(expectCauses(changed(mcs, (o) => (o.spec.range = { clusterNames: ['member1'] })), []).warnings).toEqual([
      'spec.range is deprecated; use spec.providerClusters and spec.consumerClusters',
    ]);
    const all = changed(mcs, (o) => {
      o.spec.range = {};
      o.spec.serviceConsumptionClusters = [];
      o.spec.serviceProvisionClusters = ['member1'];
    });
    expect(expectCauses(all, []).warnings).toEqual([
      'spec.range is deprecated; use spec.providerClusters and spec.consumerClusters',
      'spec.serviceConsumptionClusters is deprecated; use spec.consumerClusters',
      'spec.serviceProvisionClusters is deprecated; use spec.providerClusters',
    ]);
  });

  describe('UPDATE', () => {
    const update = { operation: 'UPDATE' as const, oldObject: mcs };

    it('rejects a change of types and names the old value', () => {
      const result = expectCauses(changed(mcs, (o) => (o.spec.types = ['LoadBalancer'])), [Invalid('spec.types')], update);
      expect(result.causes[0]!.message).toBe('Invalid value: ["LoadBalancer"]: MultiClusterService types are immutable (was ["CrossCluster"])');
      expect(result.causes[0]!.badValue).toEqual(['LoadBalancer']);
    });

    it('compares types as ordered lists, repeats included', () => {
      const repeated = changed(mcs, (o) => (o.spec.types = ['CrossCluster', 'CrossCluster']));
      expectCauses(mcs, [Invalid('spec.types')], { operation: 'UPDATE', oldObject: repeated });
      // A stored object from before the one-type rule: reordering still counts as a change.
      const old = changed(mcs, (o) => (o.spec.types = ['CrossCluster', 'LoadBalancer']));
      const reordered = changed(mcs, (o) => (o.spec.types = ['LoadBalancer', 'CrossCluster']));
      const result = expectCauses(reordered, [Invalid('spec.types'), Invalid('spec.types')], { operation: 'UPDATE', oldObject: old });
      expect(result.causes.map((c) => c.message)).toContainEqual(expect.stringContaining('types are immutable'));
      // Left exactly as stored, as when a controller only relabels it: kept, with a warning.
      const relabelled = expectCauses(changed(old, (o) => (o.metadata.labels = { team: 'mesh' })), [], { operation: 'UPDATE', oldObject: old });
      expect(relabelled.warnings).toEqual([expect.stringMatching(/^spec\.types: .*\(as stored: this update does not change it, so it is not refused\)$/)]);
    });

    it('allows other spec changes when types stay the same', () => {
      const updated = changed(mcs, (o) => {
        o.spec.ports.push({ name: 'metrics', port: 9300 });
        o.spec.consumerClusters.push({ name: 'member4' });
        delete o.spec.providerClusters;
      });
      const result = expectCauses(updated, [], update);
      expect(result.warnings).toEqual([]);
    });

    it('does not check types on the status subresource', () => {
      const statusWrite = changed(mcs, (o) => {
        o.spec.types = ['LoadBalancer'];
        o.status.conditions[1].type = 'Ready';
      });
      expectCauses(statusWrite, [Duplicate('status.conditions[1].type')], { ...update, subResource: 'status' });
    });
  });

  it("adds Karmada's permanent-id label on CREATE and UPDATE, and nothing else", () => {
    const unlabelled = changed(mcs, (o) => delete o.metadata.labels);
    const label = { op: 'add', path: '/metadata/labels', value: { 'multiclusterservice.karmada.io/permanent-id': 'a-uuid' } };
    expect(applyDefaults(unlabelled, { uuid: () => 'a-uuid' }).patch).toEqual([label]);
    expect(applyDefaults(unlabelled, { operation: 'UPDATE', uuid: () => 'a-uuid' }).patch).toEqual([label]);
    expect(applyDefaults(mcs)).toEqual({ object: mcs, patch: [] });
  });
});
