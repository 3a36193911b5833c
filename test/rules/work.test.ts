import { describe, expect, it } from 'vitest';
import { validate, applyDefaults } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, TooLong, type Case } from '../helpers.js';

import { deployment, service, work } from '../fixtures/work.js';

describe('Work', () => {
  it('accepts a realistic Work carrying a Deployment and a Service, with status', () => {
    const result = expectCauses(work, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata (namespaced kind, default DNS-1123 subdomain names)
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'Nginx_Work'), want: [Invalid('metadata.name')] },
    { name: 'name with dots', edit: (o) => (o.metadata.name = 'nginx.deployment.v1'), want: [] },
    { name: 'name missing', edit: (o) => delete o.metadata.name, want: [Required('metadata.name')] },
    { name: 'namespace not a DNS label', edit: (o) => (o.metadata.namespace = 'karmada.es'), want: [Invalid('metadata.namespace')] },
    // spec
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'empty spec', edit: (o) => (o.spec = {}), want: [] },
    { name: 'workload without manifests', edit: (o) => (o.spec.workload = {}), want: [] },
    // The fixture's manifest statuses would index nothing (see 'ordinal against an empty manifest list').
    { name: 'no manifests', edit: (o) => { o.spec.workload.manifests = []; delete o.status.manifestStatuses; }, want: [] },
    { name: 'preserveResourcesOnDeletion not a boolean', edit: (o) => (o.spec.preserveResourcesOnDeletion = 'yes'), want: [Invalid('spec.preserveResourcesOnDeletion')] },
    { name: 'suspendDispatching true', edit: (o) => (o.spec.suspendDispatching = true), want: [] },
    { name: 'suspendDispatching not a boolean', edit: (o) => (o.spec.suspendDispatching = 1), want: [Invalid('spec.suspendDispatching')] },
    { name: 'manifests not a list', edit: (o) => (o.spec.workload.manifests = deployment), want: [Invalid('spec.workload.manifests')] },
    // manifests: applicable objects, contents not checked
    { name: 'manifest not an object', edit: (o) => (o.spec.workload.manifests[1] = 'kind: Service'), want: [Invalid('spec.workload.manifests[1]')] },
    { name: 'manifest null', edit: (o) => (o.spec.workload.manifests[1] = null), want: [Invalid('spec.workload.manifests[1]')] },
    { name: 'manifest without kind', edit: (o) => delete o.spec.workload.manifests[0].kind, want: [Required('spec.workload.manifests[0].kind')] },
    { name: 'manifest with null kind', edit: (o) => (o.spec.workload.manifests[0].kind = null), want: [Required('spec.workload.manifests[0].kind')] },
    { name: 'manifest with empty kind', edit: (o) => (o.spec.workload.manifests[0].kind = ''), want: [Required('spec.workload.manifests[0].kind')] },
    { name: 'manifest kind not a string', edit: (o) => (o.spec.workload.manifests[0].kind = 7), want: [Invalid('spec.workload.manifests[0].kind')] },
    { name: 'manifest without apiVersion', edit: (o) => delete o.spec.workload.manifests[1].apiVersion, want: [Required('spec.workload.manifests[1].apiVersion')] },
    { name: 'manifest with empty apiVersion', edit: (o) => (o.spec.workload.manifests[1].apiVersion = ''), want: [Required('spec.workload.manifests[1].apiVersion')] },
    { name: 'manifest without metadata', edit: (o) => delete o.spec.workload.manifests[1].metadata, want: [Required('spec.workload.manifests[1].metadata.name')] },
    { name: 'manifest metadata not an object', edit: (o) => (o.spec.workload.manifests[1].metadata = 'nginx'), want: [Invalid('spec.workload.manifests[1].metadata')] },
    { name: 'manifest without name', edit: (o) => delete o.spec.workload.manifests[0].metadata.name, want: [Required('spec.workload.manifests[0].metadata.name')] },
    { name: 'manifest name not a string', edit: (o) => (o.spec.workload.manifests[0].metadata.name = 1), want: [Invalid('spec.workload.manifests[0].metadata.name')] },
    { name: 'manifest with empty name', edit: (o) => (o.spec.workload.manifests[0].metadata.name = ''), want: [Required('spec.workload.manifests[0].metadata.name')] },
    {
      name: 'manifest with empty generateName and no name',
      edit: (o) => { delete o.spec.workload.manifests[0].metadata.name; o.spec.workload.manifests[0].metadata.generateName = ''; },
      want: [Required('spec.workload.manifests[0].metadata.name')],
    },
    {
      name: 'manifest with generateName and an empty name',
      edit: (o) => { o.spec.workload.manifests[0].metadata.name = ''; o.spec.workload.manifests[0].metadata.generateName = 'nginx-'; },
      want: [],
    },
    {
      name: 'manifest with generateName and a null name',
      edit: (o) => { o.spec.workload.manifests[0].metadata.name = null; o.spec.workload.manifests[0].metadata.generateName = 'nginx-'; },
      want: [],
    },
    {
      name: 'manifest with generateName and a name not a string',
      edit: (o) => { o.spec.workload.manifests[0].metadata.name = 1; o.spec.workload.manifests[0].metadata.generateName = 'nginx-'; },
      want: [Invalid('spec.workload.manifests[0].metadata.name')],
    },
    {
      name: 'manifest with generateName only',
      edit: (o) => { delete o.spec.workload.manifests[0].metadata.name; o.spec.workload.manifests[0].metadata.generateName = 'nginx-'; },
      want: [],
    },
    {
      name: 'manifest missing kind, apiVersion and name reports each',
      edit: (o) => (o.spec.workload.manifests[1] = { spec: {} }),
      want: [Required('spec.workload.manifests[1].kind'), Required('spec.workload.manifests[1].apiVersion'), Required('spec.workload.manifests[1].metadata.name')],
    },
    {
      name: 'manifest contents are not validated',
      edit: (o) => { o.spec.workload.manifests[0].spec.replicas = 'many'; o.spec.workload.manifests[0].whatever = { x: 1 }; o.spec.workload.manifests[1].status = { anything: true }; },
      want: [],
    },
    { name: 'custom resource manifest', edit: (o) => o.spec.workload.manifests.push({ apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } }), want: [] },
    // duplicate manifests
    { name: 'same manifest twice', edit: (o) => o.spec.workload.manifests.push(structuredClone(service)), want: [Duplicate('spec.workload.manifests[2]')] },
    {
      name: 'same object under another version of the group',
      edit: (o) => o.spec.workload.manifests.push({ ...structuredClone(deployment), apiVersion: 'apps/v1beta2' }),
      want: [Duplicate('spec.workload.manifests[2]')],
    },
    { name: 'same name, other kind', edit: (o) => o.spec.workload.manifests.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nginx', namespace: 'default' } }), want: [] },
    { name: 'same name and kind, other group', edit: (o) => o.spec.workload.manifests.push({ ...structuredClone(service), apiVersion: 'example.com/v1' }), want: [] },
    {
      name: 'same name and kind, other namespace',
      edit: (o) => o.spec.workload.manifests.push({ ...structuredClone(service), metadata: { name: 'nginx', namespace: 'prod' } }),
      want: [],
    },
    {
      name: 'same cluster-scoped manifest, namespace empty vs absent',
      edit: (o) => o.spec.workload.manifests.push(
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'nginx-reader' } },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'nginx-reader', namespace: '' } },
      ),
      want: [Duplicate('spec.workload.manifests[3]')],
    },
    {
      name: 'two generateName manifests are not duplicates',
      edit: (o) => o.spec.workload.manifests.push(
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { generateName: 'migrate-' } },
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { generateName: 'migrate-' } },
      ),
      want: [],
    },
    // status conditions
    { name: 'condition type outside the listed four', edit: (o) => (o.status.conditions[0].type = 'Dispatching'), want: [] },
    { name: 'Progressing and Degraded types', edit: (o) => { o.status.conditions[0].type = 'Progressing'; o.status.conditions[1].type = 'Degraded'; }, want: [] },
    { name: 'condition type not CamelCase', edit: (o) => (o.status.conditions[0].type = 'applied_ok'), want: [Invalid('status.conditions[0].type')] },
    { name: 'condition status unsupported', edit: (o) => (o.status.conditions[0].status = 'Yes'), want: [NotSupported('status.conditions[0].status')] },
    { name: 'condition reason empty', edit: (o) => (o.status.conditions[0].reason = ''), want: [Required('status.conditions[0].reason')] },
    { name: 'condition message may be empty', edit: (o) => (o.status.conditions[0].message = ''), want: [] },
    { name: 'condition message too long', edit: (o) => (o.status.conditions[0].message = 'x'.repeat(32769)), want: [TooLong('status.conditions[0].message')] },
    { name: 'condition without lastTransitionTime', edit: (o) => delete o.status.conditions[1].lastTransitionTime, want: [Required('status.conditions[1].lastTransitionTime')] },
    { name: 'duplicate condition type', edit: (o) => (o.status.conditions[1].type = 'Applied'), want: [Duplicate('status.conditions[1].type')] },
    // manifest statuses
    { name: 'manifest status without identifier', edit: (o) => delete o.status.manifestStatuses[0].identifier, want: [Required('status.manifestStatuses[0].identifier')] },
    ...(['kind', 'name', 'resource', 'version'] as const).map((field): Case => (
      { name: `identifier without ${field}`, edit: (o) => delete o.status.manifestStatuses[0].identifier[field], want: [Required(`status.manifestStatuses[0].identifier.${field}`)] }
    )),
    ...(['kind', 'name', 'version'] as const).map((field): Case => (
      { name: `identifier with empty ${field}`, edit: (o) => (o.status.manifestStatuses[1].identifier[field] = ''), want: [Required(`status.manifestStatuses[1].identifier.${field}`)] }
    )),
    // Karmada's work-status controller writes every identifier so: the key present, the value empty.
    { name: 'identifier with empty resource', edit: (o) => (o.status.manifestStatuses[1].identifier.resource = ''), want: [] },
    { name: 'identifier resource not a string', edit: (o) => (o.status.manifestStatuses[1].identifier.resource = 5), want: [Invalid('status.manifestStatuses[1].identifier.resource')] },
    { name: 'identifier without ordinal', edit: (o) => delete o.status.manifestStatuses[0].identifier.ordinal, want: [Required('status.manifestStatuses[0].identifier.ordinal')] },
    { name: 'identifier with negative ordinal', edit: (o) => (o.status.manifestStatuses[0].identifier.ordinal = -1), want: [Invalid('status.manifestStatuses[0].identifier.ordinal')] },
    { name: 'identifier with fractional ordinal', edit: (o) => (o.status.manifestStatuses[0].identifier.ordinal = 0.5), want: [Invalid('status.manifestStatuses[0].identifier.ordinal')] },
    { name: 'identifier ordinal past int32', edit: (o) => (o.status.manifestStatuses[0].identifier.ordinal = 2 ** 31), want: [Invalid('status.manifestStatuses[0].identifier.ordinal')] },
    { name: 'identifier ordinal at int32 max is past the manifest list', edit: (o) => (o.status.manifestStatuses[0].identifier.ordinal = 2 ** 31 - 1), want: [Invalid('status.manifestStatuses[0].identifier.ordinal')] },
    {
      name: 'the same negative ordinal twice is only a bad ordinal',
      edit: (o) => { o.status.manifestStatuses[0].identifier.ordinal = -1; o.status.manifestStatuses[1].identifier.ordinal = -1; },
      want: [Invalid('status.manifestStatuses[0].identifier.ordinal'), Invalid('status.manifestStatuses[1].identifier.ordinal')],
    },
    { name: 'cluster-scoped identifier without group and namespace', edit: (o) => { delete o.status.manifestStatuses[1].identifier.group; delete o.status.manifestStatuses[1].identifier.namespace; }, want: [] },
    { name: 'identifier namespace not a string', edit: (o) => (o.status.manifestStatuses[1].identifier.namespace = 5), want: [Invalid('status.manifestStatuses[1].identifier.namespace')] },
    { name: 'ordinal at the last manifest', edit: (o) => { o.status.manifestStatuses.pop(); o.status.manifestStatuses[0].identifier.ordinal = 1; }, want: [] },
    { name: 'ordinal past the manifest list', edit: (o) => (o.status.manifestStatuses[1].identifier.ordinal = 2), want: [Invalid('status.manifestStatuses[1].identifier.ordinal')] },
    {
      name: 'ordinal is not checked without a manifest list',
      edit: (o) => { delete o.spec.workload; o.status.manifestStatuses[1].identifier.ordinal = 7; },
      want: [],
    },
    {
      name: 'ordinal against an empty manifest list: nothing to index',
      edit: (o) => (o.spec.workload.manifests = []),
      want: [Invalid('status.manifestStatuses[0].identifier.ordinal'), Invalid('status.manifestStatuses[1].identifier.ordinal')],
    },
    { name: 'empty manifest list and no manifest statuses', edit: (o) => { o.spec.workload.manifests = []; o.status.manifestStatuses = []; }, want: [] },
    { name: 'duplicate ordinal', edit: (o) => (o.status.manifestStatuses[1].identifier.ordinal = 0), want: [Duplicate('status.manifestStatuses[1].identifier.ordinal')] },
    { name: 'health Unknown', edit: (o) => (o.status.manifestStatuses[0].health = 'Unknown'), want: [] },
    { name: 'health Unhealthy', edit: (o) => (o.status.manifestStatuses[0].health = 'Unhealthy'), want: [] },
    { name: 'health unsupported', edit: (o) => (o.status.manifestStatuses[0].health = 'Degraded'), want: [NotSupported('status.manifestStatuses[0].health')] },
    { name: 'status is raw', edit: (o) => (o.status.manifestStatuses[0].status = ['anything', 1]), want: [] },
    { name: 'status without manifest statuses', edit: (o) => delete o.status.manifestStatuses, want: [] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(work, edit), want, options);
  });

  it('collects every cause in one pass', () => {
    const bad = changed(work, (o) => {
      delete o.spec.workload.manifests[0].kind;
      o.spec.workload.manifests.push(structuredClone(service));
      o.status.manifestStatuses[0].health = 'Fine';
      o.status.manifestStatuses[1].identifier.ordinal = 9;
    });
    expectCauses(bad, [
      Required('spec.workload.manifests[0].kind'),
      Duplicate('spec.workload.manifests[2]'),
      NotSupported('status.manifestStatuses[0].health'),
      Invalid('status.manifestStatuses[1].identifier.ordinal'),
    ]);
  });

  it('explains the manifest and ordinal causes', () => {
    const missingKind = validate(changed(work, (o) => delete o.spec.workload.manifests[0].kind));
    expect(missingKind.causes[0]!.message).toContain("Object 'Kind' is missing");
    const outOfRange = validate(changed(work, (o) => (o.status.manifestStatuses[1].identifier.ordinal = 2)));
    expect(outOfRange.causes[0]!.message).toBe(
      "Invalid value: 2: must index spec.workload.manifests (0 to 1): the ordinal is the manifest's position in that list",
    );
    const nothingToIndex = validate(changed(work, (o) => (o.spec.workload.manifests = []))).causes;
    expect(nothingToIndex.map((c) => c.message)).toEqual([
      "Invalid value: 0: must index spec.workload.manifests, which is empty: the ordinal is the manifest's position in that list",
      "Invalid value: 1: must index spec.workload.manifests, which is empty: the ordinal is the manifest's position in that list",
    ]);
    const dup = validate(changed(work, (o) => o.spec.workload.manifests.push(structuredClone(deployment))));
    expect(dup.causes[0]!.badValue).toEqual({ group: 'apps', kind: 'Deployment', namespace: 'default', name: 'nginx' });
  });

  it('words each manifest and manifest-status cause', () => {
    const message = (edit: (o: any) => void) => validate(changed(work, edit)).causes.map((c) => c.message);
    expect(message((o) => (o.spec.workload.manifests[0].kind = 7))).toEqual(['Invalid value: 7: must be a string']);
    expect(message((o) => delete o.spec.workload.manifests[1].apiVersion)).toEqual(['Required value: the member cluster cannot apply a manifest without apiVersion']);
    expect(message((o) => (o.spec.workload.manifests[1].metadata = 'nginx'))).toEqual(['Invalid value: "nginx": must be an object']);
    expect(message((o) => delete o.spec.workload.manifests[1].metadata.name)).toEqual(['Required value: name or generateName is required']);
    expect(message((o) => o.spec.workload.manifests.push(structuredClone(service)))).toEqual([
      'Duplicate value: {"group":"","kind":"Service","namespace":"default","name":"nginx"}: a manifest may appear once per group, kind, namespace and name',
    ]);
    expect(message((o) => (o.status.manifestStatuses[1].identifier.ordinal = 0))).toEqual(['Duplicate value: 0: each manifest has one status']);
  });

  it('names a duplicate manifest by group, kind, namespace and name: core group and no namespace are empty', () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'nginx-reader' } };
    const dup = validate(changed(work, (o) => o.spec.workload.manifests.push(role, structuredClone(role), structuredClone(service))));
    expect(dup.causes.map((c) => c.badValue)).toEqual([
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespace: '', name: 'nginx-reader' },
      { group: '', kind: 'Service', namespace: 'default', name: 'nginx' },
    ]);
  });

  it('reports unknown fields as warnings, or as errors when strict', () => {
    const extra = changed(work, (o) => (o.spec.clusterName = 'member1'));
    expect(validate(extra).warnings).toEqual(['unknown field "spec.clusterName"']);
    expectCauses(extra, [Forbidden('spec.clusterName')], { strict: true });
    const extraStatus = changed(work, (o) => (o.status.manifestStatuses[0].identifier.uid = 'x'));
    expect(validate(extraStatus).warnings).toEqual(['unknown field "status.manifestStatuses[0].identifier.uid"']);
  });

  it('validates only metadata and status on the status subresource', () => {
    const statusWrite = changed(work, (o) => {
      delete o.spec.workload.manifests[0].kind;
      o.status.manifestStatuses[1].identifier.ordinal = 0;
    });
    expectCauses(statusWrite, [Duplicate('status.manifestStatuses[1].identifier.ordinal')], { operation: 'UPDATE', subResource: 'status', oldObject: work });
  });

  it('checks ordinals against the stored manifests on the status subresource', () => {
    const status = { operation: 'UPDATE' as const, subResource: 'status', oldObject: work };
    // A client with a stale copy: the spec it sends is ignored, the stored one has two manifests.
    const stale = changed(work, (o) => o.spec.workload.manifests.pop());
    expectCauses(stale, [], status);
    const grown = changed(work, (o) => {
      o.spec.workload.manifests.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nginx-conf', namespace: 'default' } });
      o.status.manifestStatuses[1].identifier.ordinal = 2;
    });
    expectCauses(grown, [Invalid('status.manifestStatuses[1].identifier.ordinal')], status);
    expectCauses(grown, []);
  });

  it('does not judge the stored status against a spec update that removes manifests', () => {
    // The API server keeps the stored status on an update of the Work itself: its entry for the removed manifest is stale, not new.
    const update = { operation: 'UPDATE' as const, oldObject: work };
    const shrunk = changed(work, (o) => o.spec.workload.manifests.pop());
    expectCauses(shrunk, [], update);
    // An entry the stored status does not have is still judged against the new spec.
    const moved = changed(shrunk, (o) => (o.status.manifestStatuses[1].identifier.name = 'elsewhere'));
    expectCauses(moved, [Invalid('status.manifestStatuses[1].identifier.ordinal')], update);
    // On CREATE there is no stored status.
    expectCauses(shrunk, [Invalid('status.manifestStatuses[1].identifier.ordinal')]);
    // A later status write that keeps the stale entry (the controller updating a condition) is not blocked by it.
    const conditionUpdate = changed(shrunk, (o) => (o.status.conditions[0].message = 'applied again'));
    expectCauses(conditionUpdate, [], { operation: 'UPDATE', subResource: 'status', oldObject: shrunk });
  });

  it('does not judge the stored status against a spec update that removes every manifest', () => {
    const update = { operation: 'UPDATE' as const, oldObject: work };
    const emptied = changed(work, (o) => (o.spec.workload.manifests = []));
    expectCauses(emptied, [], update);
    // A new entry has nothing to index, as on CREATE.
    const added = changed(emptied, (o) => (o.status.manifestStatuses[1].identifier.name = 'elsewhere'));
    expectCauses(added, [Invalid('status.manifestStatuses[1].identifier.ordinal')], update);
    // A later status write that keeps the stale entries is not blocked by them; one that adds an entry is.
    const status = { operation: 'UPDATE' as const, subResource: 'status', oldObject: emptied };
    expectCauses(changed(emptied, (o) => (o.status.conditions[0].message = 'applied again')), [], status);
    expectCauses(added, [Invalid('status.manifestStatuses[1].identifier.ordinal')], status);
  });

  it('checks immutable metadata on UPDATE', () => {
    expectCauses(changed(work, (o) => (o.spec.suspendDispatching = true)), [], { operation: 'UPDATE', oldObject: work });
    expectCauses(changed(work, (o) => (o.metadata.name = 'other')), [Invalid('metadata.name')], { operation: 'UPDATE', oldObject: work });
  });

  it('checks apiVersion against the group domain', () => {
    expectCauses(changed(work, (o) => (o.apiVersion = 'work.karmada.io/v1alpha2')), [NotSupported('apiVersion')]);
    expectCauses(work, [NotSupported('apiVersion')], { groupDomain: 'example.org' });
    expectCauses(changed(work, (o) => (o.apiVersion = 'work.example.org/v1alpha1')), [], { groupDomain: 'example.org' });
  });

  it("changes nothing in a Work as Karmada stores it, and writes no preserveResourcesOnDeletion: its default false is what unset means", () => {
    const before = structuredClone(work);
    expect(applyDefaults(work)).toEqual({ object: work, patch: [] });
    expect(applyDefaults(work, { operation: 'UPDATE' })).toEqual({ object: work, patch: [] });
    const bare = changed(work, (o) => { delete o.spec.preserveResourcesOnDeletion; delete o.spec.suspendDispatching; });
    expect(applyDefaults(bare).patch).toEqual([]);
    expect(work).toEqual(before);
  });
});
