/**
 * UPDATE judges what the write changes. A value that breaks the schema but is exactly as stored
 * is a warning, not a denial (Kubernetes ratchets CRD validation the same way); so is every cause
 * in a section (spec, webhooks) the write leaves as stored; and a status the write leaves as
 * stored is not judged: the API server restores it on every main-resource write,
 * and Karmada's controllers must be able to update objects stored before fleetgate, or before a
 * rule changed.
 */
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/decode/object.js';
import { applyDefaults } from '../../src/decode/object.js';
import { cronFHPA } from '../fixtures/cronfederatedhpa.js';
import { cluster } from '../fixtures/cluster.js';
import { binding } from '../fixtures/clusterresourcebinding.js';
import { work } from '../fixtures/work.js';
import { frq } from '../fixtures/federatedresourcequota.js';
import { config } from '../fixtures/resourceinterpreterwebhookconfiguration.js';
import { ric } from '../fixtures/resourceinterpretercustomization.js';
import { mcs } from '../fixtures/multiclusterservice.js';
import { remedy } from '../fixtures/remedy.js';
import { policy } from '../fixtures/clustertaintpolicy.js';
import { defaultResourceModels } from '../../rules/cluster.js';
import { changed, Duplicate, expectCauses, Forbidden, Invalid, NotSupported, Required } from '../helpers.js';

describe('UPDATE of an object stored with a mistake', () => {
  const storedCluster = changed(cluster, (o) => (o.spec.syncMode = 'Both'));
  const addTaint = (o: any) => o.spec.taints.push({ key: 'maintenance-window', effect: 'NoSchedule' });

  it('allows a write that leaves the bad value as stored, and says so', () => {
    const result = validate(changed(storedCluster, addTaint), { operation: 'UPDATE', oldObject: storedCluster });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toContain(
      'spec.syncMode: Unsupported value: "Both": supported values: "Push", "Pull" (as stored: this update does not change it, so it is not refused)',
    );
  });

  it('refuses the same value when the write sets it, on CREATE or UPDATE', () => {
    expectCauses(storedCluster, [NotSupported('spec.syncMode')]);
    expectCauses(storedCluster, [NotSupported('spec.syncMode')], { operation: 'UPDATE', oldObject: cluster });
    expectCauses(changed(storedCluster, (o) => (o.spec.syncMode = 'Neither')), [NotSupported('spec.syncMode')], { operation: 'UPDATE', oldObject: storedCluster });
  });

  it('never keeps a missing required field', () => {
    const storedWithout = changed(cluster, (o) => delete o.spec.syncMode);
    expectCauses(changed(storedWithout, addTaint), [Required('spec.syncMode')], { operation: 'UPDATE', oldObject: storedWithout });
  });

  it('keeps a Cluster endpoint Karmada took and the spec does not, while the controllers update the Cluster', () => {
    const joined = changed(cluster, (o) => (o.spec.apiEndpoint = 'https://my_cluster.corp.local:6443'));
    const tainted = validate(changed(joined, addTaint), { operation: 'UPDATE', oldObject: joined });
    expect(tainted.causes).toEqual([]);
    expect(tainted.warnings).toEqual([
      'spec.apiEndpoint: Invalid value: "https://my_cluster.corp.local:6443": host "my_cluster.corp.local" is neither a DNS name nor an IP address; desired format: hostname, hostname:port, IP or IP:port (as stored: this update does not change it, so it is not refused)',
    ]);
    expectCauses(joined, [Invalid('spec.apiEndpoint')]);
    expectCauses(changed(joined, (o) => (o.spec.apiEndpoint = 'https://other_cluster.corp.local:6443')), [Invalid('spec.apiEndpoint')], { operation: 'UPDATE', oldObject: joined });
  });

  it('keeps an enum value a newer schema dropped, as after an upgrade', () => {
    const stored = changed(binding, (o) => (o.spec.gracefulEvictionTasks = [{ fromCluster: 'member1', reason: 'TaintUntolerated', producer: 'taint-manager', purgeMode: 'Graciously' }]));
    const rescheduled = changed(stored, (o) => (o.spec.clusters = [{ name: 'member2', replicas: 2 }]));
    const result = validate(rescheduled, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings.some((w) => w.startsWith('spec.gracefulEvictionTasks[0].purgeMode: Unsupported value: "Graciously"'))).toBe(true);
  });
});

describe('UPDATE that leaves every field but metadata and status as stored', () => {
  // Objects Karmada stored, with what fleetgate's own rules (stricter than Karmada's) refuse.
  const storedWork = changed(work, (o) => o.spec.workload.manifests.push(o.spec.workload.manifests[0]));
  const storedQuota = changed(frq, (o) => (o.spec.staticAssignments[1].clusterName = o.spec.staticAssignments[0].clusterName));
  const storedConfig = changed(config, (o) => (o.webhooks[0].clientConfig.url = 'https://interpreter.karmada-system.svc:443/interpreter-workload'));
  const storedScript = changed(ric, (o) => (o.spec.customizations.retention.luaScript = 'x = 1'));
  const deleting = (o: any) => {
    o.metadata.deletionTimestamp = '2026-11-23T06:00:00Z';
    o.metadata.finalizers = ['example.com/cleanup'];
  };
  const finalizerRemoved = (o: any) => (o.metadata.finalizers = []);
  const labelled = (o: any) => (o.metadata.labels = { ...o.metadata.labels, owner: 'platform' });

  it.each([
    ['Work with a manifest listed twice', storedWork, Duplicate('spec.workload.manifests[2]')],
    ['FederatedResourceQuota with a cluster assigned twice', storedQuota, Duplicate('spec.staticAssignments[1].clusterName')],
    ['interpreter webhook calling an in-cluster host by URL', storedConfig, Invalid('webhooks[0].clientConfig.url')],
    ['customization whose script defines no Retain', storedScript, Invalid('spec.customizations.retention.luaScript')],
  ])('lets the controllers finish deleting a %s, with a warning for what it keeps', (_, stored, cause) => {
    expectCauses(stored, [cause]);
    const beingDeleted = changed(stored, deleting);
    const result = validate(changed(beingDeleted, finalizerRemoved), { operation: 'UPDATE', oldObject: beingDeleted });
    expect(result.causes).toEqual([]);
    expect(result.warnings.filter((w) => !w.endsWith('not checked: no lookups were supplied'))).toEqual([expect.stringMatching(new RegExp(`^${cause.field.replace(/[.[\]]/g, '\\$&')}: .*\\(as stored: this update does not change it, so it is not refused\\)$`))]);
    expectCauses(changed(stored, labelled), [], { operation: 'UPDATE', oldObject: stored });
  });

  it('still refuses the mistake once the write changes anything beside it in the same section', () => {
    expectCauses(changed(storedWork, (o) => (o.spec.suspendDispatching = true)), [Duplicate('spec.workload.manifests[2]')], { operation: 'UPDATE', oldObject: storedWork });
    expectCauses(changed(storedQuota, (o) => (o.spec.overall.pods = '200')), [Duplicate('spec.staticAssignments[1].clusterName')], { operation: 'UPDATE', oldObject: storedQuota });
    expectCauses(changed(storedConfig, (o) => (o.webhooks[1].timeoutSeconds = 5)), [Invalid('webhooks[0].clientConfig.url')], { operation: 'UPDATE', oldObject: storedConfig });
  });

  it('still judges metadata, and an unchanged section when there is no stored object to compare with', () => {
    expectCauses(changed(storedWork, (o) => (o.metadata.labels = { 'bad key!': 'x' })), [Invalid('metadata.labels')], { operation: 'UPDATE', oldObject: storedWork });
    expectCauses(changed(storedWork, (o) => (o.metadata.finalizers = ['new.example.com/x'])), [Forbidden('metadata.finalizers')], { operation: 'UPDATE', oldObject: changed(storedWork, deleting) });
    expect(validate(changed(storedWork, labelled), { operation: 'UPDATE' }).causes.map((c) => c.field)).toEqual(['spec.workload.manifests[2]']);
  });

  it('keeps a section as stored when the write only adds the defaults fleetgate fills in', () => {
    // Stored before fleetgate: a rule without a name, no history limits; a service without a port.
    const storedCron = changed(cronFHPA, (o) => delete o.spec.rules[0].name);
    const storedService = changed(config, (o) => {
      o.webhooks[1].clientConfig = { service: { path: '/interpret' }, caBundle: o.webhooks[1].clientConfig.caBundle };
    });
    for (const [stored, field] of [[storedCron, 'spec.rules[0].name'], [storedService, 'webhooks[1].clientConfig.service.name']] as const) {
      // The mutating webhook defaults the controller's write first; the validating one sees its result.
      const defaulted = applyDefaults(changed(stored, labelled), { operation: 'UPDATE' });
      expect(defaulted.patch).not.toEqual([]);
      const result = validate(defaulted.object, { operation: 'UPDATE', oldObject: stored });
      expect(result.causes).toEqual([]);
      expect(result.warnings).toContain(`${field}: Required value (as stored: this update does not change it, so it is not refused)`);
    }
    // Anything more than the defaults is a change, judged as before.
    const renamed = applyDefaults(changed(storedCron, (o) => (o.spec.rules[1].name = 'late-night')), { operation: 'UPDATE' }).object;
    expectCauses(renamed, [Required('spec.rules[0].name')], { operation: 'UPDATE', oldObject: storedCron });
  });

  it('keeps a required field missing from the stored section (a schema cause too)', () => {
    const storedWithout = changed(cluster, (o) => delete o.spec.syncMode);
    const result = validate(changed(storedWithout, labelled), { operation: 'UPDATE', oldObject: storedWithout });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual(['spec.syncMode: Required value (as stored: this update does not change it, so it is not refused)']);
  });
});

describe('UPDATE of an object stored without its permanent id', () => {
  // A Work stored without fleetgate's (or Karmada's) mutation: no id, manifests unpruned, and a
  // manifest listed twice, which fleetgate refuses and Karmada does not.
  const PID = 'work.karmada.io/permanent-id';
  const stored = changed(work, (o) => {
    delete o.metadata.labels;
    for (const m of o.spec.workload.manifests) {
      delete m.metadata.labels[PID];
      m.metadata.resourceVersion = '912';
    }
    o.spec.workload.manifests.push(o.spec.workload.manifests[0]);
  });
  const labelled = (o: any) => (o.metadata.labels = { ...o.metadata.labels, owner: 'platform' });
  const asStored = 'spec.workload.manifests[2]: Duplicate value';

  it('keeps its spec as stored when the mutating webhook only gave it a new random id and pruned it', () => {
    expectCauses(stored, [Duplicate('spec.workload.manifests[2]')]);
    // The mutating webhook runs first, with a random UUID; validation then sees its result.
    const write = applyDefaults(changed(stored, labelled), { operation: 'UPDATE' }).object as any;
    const id = write.metadata.labels[PID];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(write.spec.workload.manifests.map((m: any) => m.metadata.labels[PID])).toEqual([id, id, id]);
    const result = validate(write, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings.some((w) => w.startsWith(asStored) && w.endsWith('(as stored: this update does not change it, so it is not refused)'))).toBe(true);
    // Twice more, with new UUIDs each time: no id is ever a change by itself.
    for (let i = 0; i < 2; i++) expect(validate(applyDefaults(changed(stored, labelled), { operation: 'UPDATE' }).object, { operation: 'UPDATE', oldObject: stored }).causes).toEqual([]);
  });

  it('judges the spec when its manifests carry another id than the write does: that is a change', () => {
    const write = applyDefaults(changed(stored, labelled), { operation: 'UPDATE', uuid: () => 'id-in-the-manifests' }).object as any;
    write.metadata.labels[PID] = 'another-id';
    expectCauses(write, [Duplicate('spec.workload.manifests[2]')], { operation: 'UPDATE', oldObject: stored });
    // A write without any id (no mutating webhook ran) that changes nothing in the spec keeps it as stored, as before.
    expectCauses(changed(stored, labelled), [], { operation: 'UPDATE', oldObject: stored });
  });

  it('judges the spec when the write replaced the stored id (its manifests now carry the new one)', () => {
    const storedWithId = applyDefaults(stored, { uuid: () => 'the-stored-id' }).object as any;
    const relabelled = changed(storedWithId, (o) => delete o.metadata.labels[PID]);
    const write = applyDefaults(relabelled, { operation: 'UPDATE' }).object;
    expectCauses(write, [Duplicate('spec.workload.manifests[2]')], { operation: 'UPDATE', oldObject: storedWithId });
    expectCauses(applyDefaults(changed(storedWithId, labelled), { operation: 'UPDATE' }).object, [], { operation: 'UPDATE', oldObject: storedWithId });
  });

  it('MultiClusterService and ClusterResourceBinding keep their id in metadata, which is always judged: their spec stays as stored', () => {
    const storedMcs = changed(mcs, (o) => {
      delete o.metadata.labels;
      o.spec.types = ['LoadBalancer'];
      o.spec.range = { clusterNames: ['member1'] };
    });
    expectCauses(storedMcs, [Forbidden('spec.range')]);
    const write = applyDefaults(changed(storedMcs, labelled), { operation: 'UPDATE' });
    expect(write.patch).not.toEqual([]);
    expectCauses(write.object, [], { operation: 'UPDATE', oldObject: storedMcs });
  });
});

describe('what counts as a section left as stored', () => {
  const labelled = (o: any) => (o.metadata.labels = { ...o.metadata.labels, owner: 'platform' });

  it('never metadata: a bad label the write leaves as it was is still refused', () => {
    const stored = changed(work, (o) => (o.metadata.labels = { 'bad key!': 'x' }));
    expectCauses(changed(stored, (o) => (o.spec.suspendDispatching = true)), [Invalid('metadata.labels')], { operation: 'UPDATE', oldObject: stored });
    expectCauses(changed(stored, (o) => (o.metadata.labels = { good: 'x' })), [], { operation: 'UPDATE', oldObject: stored });
  });

  it('never a section the stored object lacks too', () => {
    const stored = changed(cluster, (o) => delete o.spec);
    expectCauses(changed(stored, labelled), [Required('spec')], { operation: 'UPDATE', oldObject: stored });
    expectCauses(changed(cluster, labelled), [], { operation: 'UPDATE', oldObject: stored });
  });

  it('a section that differs only by the defaults an UPDATE fills in and by nulls the API server drops', () => {
    const stored = changed(cronFHPA, (o) => delete o.spec.rules[0].name);
    const defaulted = applyDefaults(changed(stored, labelled), { operation: 'UPDATE' }).object as any;
    // A null in a field the schema does not know: pruned by the API server, and not read away by the schema pass.
    defaulted.spec.rules[2].note = null;
    const result = validate(defaulted, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toContain('spec.rules[0].name: Required value (as stored: this update does not change it, so it is not refused)');
    expectCauses(changed(defaulted, (o) => (o.spec.rules[2].note = 'x')), [Required('spec.rules[0].name')], { operation: 'UPDATE', oldObject: stored });
  });

  it('not a section that gains the defaults only a CREATE fills in (a Cluster\'s resource models)', () => {
    const stored = changed(cluster, (o) => {
      delete o.spec.resourceModels;
      o.spec.zone = 'eu-central-1a';
    });
    expectCauses(stored, [Forbidden('spec.zone')]);
    expectCauses(changed(stored, labelled), [], { operation: 'UPDATE', oldObject: stored });
    expectCauses(changed(stored, (o) => (o.spec.resourceModels = defaultResourceModels())), [Forbidden('spec.zone')], { operation: 'UPDATE', oldObject: stored });
  });

  it('turns one mistake reported twice into one warning', () => {
    // Two keys that differ only past the 256 characters a value shows give the same cause.
    const stored = changed(policy, (o) => (o.spec.targetClusters.labelSelector.matchLabels = { [`${'A'.repeat(300)}1`]: 'v', [`${'A'.repeat(300)}2`]: 'v' }));
    expectCauses(stored, [Invalid('spec.targetClusters.labelSelector.matchLabels')]);
    const result = expectCauses(changed(stored, labelled), [], { operation: 'UPDATE', oldObject: stored });
    expect(result.warnings).toEqual([expect.stringMatching(/^spec\.targetClusters\.labelSelector\.matchLabels: Invalid value: "A{256}"\.\.\.: .*\(as stored: this update does not change it, so it is not refused\)$/)]);
  });
});

describe('UPDATE that leaves the status as stored', () => {
  // Two conditions of one type: refused wherever a write records them.
  const badStatus = changed(work, (o) => (o.status.conditions[1].type = o.status.conditions[0].type));

  it('does not judge the status on a main-resource write', () => {
    const specChange = changed(badStatus, (o) => (o.spec.suspendDispatching = true));
    expectCauses(specChange, [], { operation: 'UPDATE', oldObject: badStatus });
  });

  it('does not warn about a rule the status breaks on a main-resource write, as it does not judge it', () => {
    const specChange = changed(badStatus, (o) => (o.spec.suspendDispatching = true));
    expect(validate(specChange, { operation: 'UPDATE', oldObject: badStatus }).warnings).toEqual([]);
  });

  it('does not refuse it for a required field it lacks, either', () => {
    const stored = changed(work, (o) => delete o.status.conditions[0].reason);
    const relabelled = validate(changed(stored, (o) => (o.metadata.labels = { team: 'apps' })), { operation: 'UPDATE', oldObject: stored });
    expect(relabelled.causes).toEqual([]);
    expect(relabelled.warnings).toEqual(['status.conditions[0].reason: Required value (as stored: this update does not change it, so it is not refused)']);
    expectCauses(changed(stored, (o) => (o.status.conditions[1].message = 'changed')), [Required('status.conditions[0].reason')], { operation: 'UPDATE', oldObject: stored, subResource: 'status' });
  });

  it('judges it where the write changes it', () => {
    const reason = changed(badStatus, (o) => (o.status.conditions[0].reason = 'AppliedFailed'));
    expectCauses(reason, [Duplicate('status.conditions[1].type')], { operation: 'UPDATE', oldObject: badStatus, subResource: 'status' });
    expectCauses(badStatus, [Duplicate('status.conditions[1].type')], { operation: 'UPDATE', oldObject: work, subResource: 'status' });
    expectCauses(badStatus, [Duplicate('status.conditions[1].type')]);
  });
});

describe('UPDATE of values of any depth, or that are not JSON', () => {
  /** The object as the API server sends it: object and oldObject decoded apart, from the same text. */
  const decodedTwice = (text: string) => [JSON.parse(text), JSON.parse(text)] as const;
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('compares a status nested deeper than the stack with the stored one', () => {
    const [object, oldObject] = decodedTwice(JSON.stringify({ ...mcs, status: { x: '@' } }).replace('"@"', nested(20_000)));
    const result = validate(object, { operation: 'UPDATE', oldObject });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toContain('unknown field "status.x"');
  });

  it('keeps a mistake nested deeper than the stack when the write leaves it as stored', () => {
    const text = JSON.stringify({ ...mcs, metadata: { ...mcs.metadata, labels: { a: '@' } } }).replace('"@"', nested(20_000));
    const [object, oldObject] = decodedTwice(text);
    expect(validate(object, { operation: 'UPDATE', oldObject }).causes).toEqual([]);
    const [changedObject] = decodedTwice(text.replace(`${nested(1)}`, '[1]'));
    expectCauses(changedObject, [Invalid('metadata.labels[a]')], { operation: 'UPDATE', oldObject });
  });

  // A library caller may pass what no decoder makes. Such a value is the schema's mistake; kept as
  // stored, it must not reach rules that read only well-formed objects.
  it.each([
    ['a list that holds itself', (list: unknown[]) => list.push(list)],
    ['a BigInt', (list: unknown[]) => list.push(10n)],
  ])('keeps %s as stored without a rule tripping over it', (_name, spoil) => {
    const object = structuredClone(remedy) as { spec: { actions: unknown[] } };
    spoil(object.spec.actions);
    const result = validate(object, { operation: 'UPDATE', oldObject: object });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/^spec\.actions\[1\]: Invalid value: .*\(as stored/)]);
  });

  it.each([
    ['a BigInt', (execution: Record<string, unknown>) => (execution.note = 10n)],
    ['itself', (execution: Record<string, unknown>) => (execution.note = execution)],
  ])('compares a new CronFederatedHPA execution that holds %s in a field it does not know as new, without throwing', (_name, spoil) => {
    const stored = structuredClone(cronFHPA);
    const write = structuredClone(cronFHPA) as any;
    const execution = { scheduleTime: '2026-11-21T21:00:00Z', executionTime: '2026-11-21T21:00:00Z' };
    spoil(execution);
    write.status.executionHistories[1].successfulExecutions.push(execution);
    const options = { operation: 'UPDATE', subResource: 'status', oldObject: stored } as const;
    expectCauses(write, [Required('status.executionHistories[1].successfulExecutions[1].appliedMinReplicas')], options);
    (execution as Record<string, unknown>).appliedMinReplicas = 1;
    expect(expectCauses(write, [], options).warnings).toEqual(['unknown field "status.executionHistories[1].successfulExecutions[1].note"']);
  });

  it('judges a changed section whose stored version cannot be copied to fill in defaults', () => {
    const stored = changed(cronFHPA, (o) => delete o.spec.rules[0].name);
    (stored.spec as Record<string, unknown>).hook = () => 1;
    const object = { ...stored, spec: { ...stored.spec, rules: [stored.spec.rules[0], { ...stored.spec.rules[1], name: 'late-night' }, stored.spec.rules[2]] } };
    expect(validate(object, { operation: 'UPDATE', oldObject: stored }).causes.map((c) => c.field)).toEqual(['spec.rules[0].name']);
  });
});
