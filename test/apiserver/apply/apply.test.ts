/**
 * The apply module as the API server calls it: apply and trackUpdate on real kinds, with
 * kube-apiserver's managedFields entries, conflict answers, request checks, the client-side apply
 * bridge for `kubectl`, and the migration kubectl performs from client-side apply.
 */
import { describe, expect, it } from 'vitest';
import { apply, checkPatchOptions, kindInfo, managedFieldsShapeError, managerOrUserAgent, trackUpdate, type ApplyRequest, type KubeStatus } from '../../../src/apiserver/apply/index.js';
import { FieldSet } from '../../../src/apiserver/apply/field-set.js';
import { fromFieldsV1, toFieldsV1 } from '../../../src/apiserver/apply/fields-v1.js';
import { rulesFor } from '../../../rules/index.js';
import { isRecord } from '../../../src/util/is.js';

const CLUSTER = kindInfo(rulesFor('Cluster')!, 'karmada.io');
const CRON = kindInfo(rulesFor('CronFederatedHPA')!, 'karmada.io');
const API = 'cluster.karmada.io/v1alpha1';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute, 0, 250));
const stamp = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00Z`;

type Obj = Record<string, unknown>;

function manifest(spec: Obj = { syncMode: 'Push' }, metadata: Obj = {}): Obj {
  return { apiVersion: API, kind: 'Cluster', metadata: { name: 'm1', ...metadata }, spec };
}

/** What the server adds when it stores an object. */
const stored = (object: Obj): Obj => ({ ...object, metadata: { ...(object.metadata as Obj), uid: 'u-1', resourceVersion: '7', creationTimestamp: stamp(0) } });

function ok(req: Partial<ApplyRequest> & Pick<ApplyRequest, 'applied'>): Obj {
  const r = apply({ live: undefined, manager: 'kubectl', force: false, kind: CLUSTER, name: 'm1', now: at(1), ...req });
  if (!r.ok) throw new Error(`apply failed: ${r.status.message}`);
  return r.object;
}
function refused(req: Partial<ApplyRequest> & Pick<ApplyRequest, 'applied'>): KubeStatus {
  const r = apply({ live: undefined, manager: 'kubectl', force: false, kind: CLUSTER, name: 'm1', now: at(1), ...req });
  if (r.ok) throw new Error('apply succeeded');
  return r.status;
}

const entries = (object: Obj) => ((object.metadata as Obj).managedFields ?? []) as Obj[];
const entry = (object: Obj, manager: string, operation = 'Apply') => entries(object).find((e) => e.manager === manager && e.operation === operation);
const fieldsOf = (object: Obj, manager: string, operation = 'Apply') => JSON.stringify(entry(object, manager, operation)?.fieldsV1);

describe('apply', () => {
  it('creates the object, owned by the applier in an entry shaped as kube writes it', () => {
    const r = apply({ live: undefined, applied: manifest({ syncMode: 'Push', taints: [{ key: 'a', effect: 'NoSchedule' }] }, { labels: { team: 'x' } }), manager: 'kubectl', force: false, kind: CLUSTER, name: 'm1', now: at(1) });
    expect(r.ok && r.created && r.changed).toBe(true);
    const object = (r as { object: Obj }).object;
    expect(entries(object)).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: API,
        time: stamp(1),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:team': {} } },
          'f:spec': { 'f:syncMode': {}, 'f:taints': { 'k:{"effect":"NoSchedule","key":"a"}': { '.': {}, 'f:effect': {}, 'f:key': {} } } },
        },
      },
    ]);
    // Key order inside an entry is kube's too.
    expect(Object.keys(entries(object)[0]!)).toEqual(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  });

  it('changes nothing at all when the same manifest is applied again: the very live object comes back', () => {
    const live = stored(ok({ applied: manifest() }));
    const text = JSON.stringify(live);
    const r = apply({ live, applied: manifest(), manager: 'kubectl', force: false, kind: CLUSTER, name: 'm1', now: at(9) });
    expect(r.ok && !r.changed && r.object === live).toBe(true);
    expect(JSON.stringify(live)).toBe(text);
  });

  it('applies a change and stamps the applier’s entry with the time', () => {
    const live = stored(ok({ applied: manifest() }));
    const object = ok({ live, applied: manifest({ syncMode: 'Pull' }), now: at(5) });
    expect((object.spec as Obj).syncMode).toBe('Pull');
    expect(entry(object, 'kubectl')?.time).toBe(stamp(5));
    expect((object.metadata as Obj).uid).toBe('u-1');
  });

  it('keeps managedFields where the stored object has them, so the text changes only where it must', () => {
    const live = stored(ok({ applied: manifest() }));
    const object = ok({ live, applied: manifest({ syncMode: 'Pull' }), now: at(5) });
    expect(Object.keys(object.metadata as Obj)).toEqual(Object.keys(live.metadata as Obj));
  });

  it('prunes what the applier no longer declares: a field, a keyed item, the last label', () => {
    const live = stored(ok({ applied: manifest({ syncMode: 'Push', region: 'eu', taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoSchedule' }] }, { labels: { team: 'x' } }) }));
    const object = ok({ live, applied: manifest({ syncMode: 'Push', taints: [{ key: 'b', effect: 'NoSchedule' }] }), now: at(2) });
    expect(object.spec).toEqual({ syncMode: 'Push', taints: [{ key: 'b', effect: 'NoSchedule' }] });
    expect((object.metadata as Obj).labels).toBeUndefined();
  });

  it('keeps what another manager owns when the applier stops declaring it', () => {
    let live = stored(ok({ applied: manifest({ syncMode: 'Push', region: 'eu' }) }));
    live = trackUpdate({ live, updated: { ...live, spec: { syncMode: 'Push', region: 'eu', zone: 'z' } }, manager: 'kubectl-edit', kind: CLUSTER, now: at(2) });
    const object = ok({ live, applied: manifest({ syncMode: 'Push' }), now: at(3) });
    expect(object.spec).toEqual({ syncMode: 'Push', zone: 'z' });
  });

  it('answers 409 with kube’s message for one conflict', () => {
    const live = stored(ok({ applied: manifest() }));
    const status = refused({ live, applied: manifest({ syncMode: 'Pull' }), manager: 'flux' });
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl": .spec.syncMode',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.syncMode' }] },
      code: 409,
    });
  });

  it('answers 409 listing every conflict by manager, updaters with their apiVersion', () => {
    let live = stored(ok({ applied: manifest({ syncMode: 'Push', region: 'eu', taints: [{ key: 'a', effect: 'NoSchedule', value: 'v' }] }) }));
    live = trackUpdate({ live, updated: { ...live, spec: { ...(live.spec as Obj), zone: 'z1' } }, manager: 'kubectl-edit', kind: CLUSTER, now: at(2) });
    const status = refused({ live, applied: manifest({ syncMode: 'Pull', zone: 'z2', taints: [{ key: 'a', effect: 'NoSchedule', value: 'w' }] }), manager: 'flux' });
    expect(status.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "kubectl":\n- .spec.syncMode\n- .spec.taints[effect="NoSchedule",key="a"].value\nconflicts with "kubectl-edit" using cluster.karmada.io/v1alpha1:\n- .spec.zone',
    );
    expect(status.details?.causes?.map((c) => `${c.message} ${c.field}`)).toEqual([
      'conflict with "kubectl" .spec.syncMode',
      'conflict with "kubectl" .spec.taints[effect="NoSchedule",key="a"].value',
      'conflict with "kubectl-edit" using cluster.karmada.io/v1alpha1 .spec.zone',
    ]);
  });

  it('takes the conflicting fields over with force, from every other manager', () => {
    const live = stored(ok({ applied: manifest({ syncMode: 'Push', region: 'eu' }) }));
    const object = ok({ live, applied: manifest({ syncMode: 'Pull' }), manager: 'flux', force: true, now: at(4) });
    expect((object.spec as Obj).syncMode).toBe('Pull');
    expect(fieldsOf(object, 'kubectl')).toBe('{"f:spec":{"f:region":{}}}');
    expect(fieldsOf(object, 'flux')).toBe('{"f:spec":{"f:syncMode":{}}}');
  });

  it('tracks managers per subresource, and leaves status to the status subresource', () => {
    const live = stored(ok({ applied: { ...manifest(), status: { kubernetesVersion: 'v1' } } }));
    // Through the main resource, status is nobody's.
    expect(fieldsOf(live, 'kubectl')).toBe('{"f:spec":{"f:syncMode":{}}}');
    const object = ok({ live, applied: { ...manifest({ syncMode: 'Pull' }), status: { kubernetesVersion: 'v2' } }, manager: 'agent', subresource: 'status', now: at(3) });
    const statusEntry = entries(object).find((e) => e.manager === 'agent');
    expect(statusEntry).toMatchObject({ operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:kubernetesVersion': {} } } });
    expect(Object.keys(statusEntry!).at(-1)).toBe('subresource');
  });

  it('names the subresource in a conflict with a status manager', () => {
    const live = stored(ok({ applied: { ...manifest(), status: { kubernetesVersion: 'v1' } }, manager: 'agent', subresource: 'status' }));
    const status = refused({ live, applied: { ...manifest(), status: { kubernetesVersion: 'v2' } }, manager: 'other', subresource: 'status' });
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "agent" with subresource "status": .status.kubernetesVersion');
  });

  it('creates a namespaced object in the request’s namespace, and refuses another namespace or name', () => {
    const cron = { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'CronFederatedHPA', metadata: { name: 'c' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, rules: [{ name: 'r', schedule: '0 * * * *' }] } };
    const created = ok({ applied: cron, kind: CRON, name: 'c', namespace: 'ns1' });
    expect((created.metadata as Obj).namespace).toBe('ns1');
    expect(fieldsOf(created, 'kubectl')).toContain('"f:rules":{"k:{\\"name\\":\\"r\\"}":{".":{},"f:name":{},"f:schedule":{}}}');
    expect(refused({ applied: { ...cron, metadata: { name: 'c', namespace: 'other' } }, kind: CRON, name: 'c', namespace: 'ns1' }).message).toBe(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    expect(refused({ applied: manifest(), name: 'm2' })).toMatchObject({ code: 400, reason: 'BadRequest', message: 'the name of the object (m1) does not match the name on the URL (m2)' });
  });
});

describe('refused applies', () => {
  it.each([
    ['another apiVersion', { ...manifest(), apiVersion: 'cluster.karmada.io/v1alpha2' }, 'invalid object type: cluster.karmada.io/v1alpha2, Kind=Cluster'],
    ['another kind', { ...manifest(), kind: 'Remedy' }, 'invalid object type: cluster.karmada.io/v1alpha1, Kind=Remedy'],
    ['no apiVersion nor kind', { metadata: { name: 'm1' } }, 'invalid object type: /, Kind='],
    ['managedFields set', manifest({ syncMode: 'Push' }, { managedFields: [] }), 'metadata.managedFields must be nil'],
    ['a list for a body', [manifest()], 'error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    [
      'a keyed item twice',
      manifest({ syncMode: 'Push', taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule', value: 'v' }] }),
      'failed to create typed patch object (/m1; cluster.karmada.io/v1alpha1, Kind=Cluster): .spec.taints: duplicate entries for key [effect="NoSchedule",key="a"]',
    ],
  ])('with %s: 400', (_name, applied, message) => {
    expect(refused({ applied })).toMatchObject({ code: 400, reason: 'BadRequest', message });
  });

  it('answers a clean 400, not a crash, for an object nested deeper than the walk reaches', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    const binding = kindInfo(rulesFor('ClusterResourceBinding')!, 'karmada.io');
    const applied = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ClusterResourceBinding', metadata: { name: 'b' }, spec: { resource: { apiVersion: 'v1', kind: 'X', name: 'x' } }, status: { aggregatedStatus: [{ clusterName: 'c', status: deep }] } };
    const r = apply({ live: undefined, applied, manager: 'm', force: false, kind: binding, name: 'b', now: at(1) });
    expect(r.ok ? 'ok' : r.status.message).toBe('the object is nested too deeply to apply');
  });

  it('merges deeply nested open values a normal request carries', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 300; i++) deep = { d: deep };
    const binding = kindInfo(rulesFor('ClusterResourceBinding')!, 'karmada.io');
    const applied = { apiVersion: 'work.karmada.io/v1alpha2', kind: 'ClusterResourceBinding', metadata: { name: 'b' }, spec: { resource: { apiVersion: 'v1', kind: 'X', name: 'x' }, placement: { clusterTolerations: [deep] } } };
    expect(apply({ live: undefined, applied, manager: 'm', force: false, kind: binding, name: 'b', now: at(1) }).ok).toBe(true);
  });
});

describe('patch options', () => {
  it('require fieldManager for an apply patch: 422 as kube words it', () => {
    expect(checkPatchOptions({ patchType: 'application/apply-patch+yaml', forceGiven: false })).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: 'Invalid',
      details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }] },
      code: 422,
    });
    expect(checkPatchOptions({ patchType: 'application/apply-patch+yaml', fieldManager: 'kubectl', forceGiven: true })).toBeUndefined();
  });

  it('forbid force on any other patch', () => {
    expect(checkPatchOptions({ patchType: 'application/merge-patch+json', forceGiven: true })?.message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    expect(checkPatchOptions({ patchType: 'application/merge-patch+json', forceGiven: false })).toBeUndefined();
  });

  it('limit a field manager to 128 bytes of printable characters, all causes at once', () => {
    const status = checkPatchOptions({ patchType: 'application/json-patch+json', fieldManager: `${'é'.repeat(64)}\u0007`, forceGiven: true })!;
    expect(status.details?.causes?.map((c) => `${c.field}: ${c.message}`)).toEqual([
      'force: Forbidden: may not be specified for non-apply patch',
      'fieldManager: Too long: may not be more than 128 bytes',
      expect.stringMatching(/^fieldManager: Invalid value: .*: invalid character U\+0007 \(at position 128\)$/),
    ]);
  });
});

describe('update tracking', () => {
  it('gives a create every field it sets, granular maps and structs owned themselves', () => {
    const object = trackUpdate({ live: undefined, updated: manifest({ syncMode: 'Push', taints: [{ key: 'a', effect: 'NoSchedule' }] }, { labels: { team: 'x' } }), manager: 'kubectl-create', kind: CLUSTER, now: at(1) });
    expect(entries(object)).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: API,
        time: stamp(1),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } },
          'f:spec': { '.': {}, 'f:syncMode': {}, 'f:taints': { '.': {}, 'k:{"effect":"NoSchedule","key":"a"}': { '.': {}, 'f:effect': {}, 'f:key': {} } } },
        },
      },
    ]);
  });

  it('gives an update what it changed and takes it from the applier; the applier then conflicts', () => {
    const live = stored(ok({ applied: manifest({ syncMode: 'Push', region: 'eu' }) }));
    const edited = trackUpdate({ live, updated: { ...live, spec: { syncMode: 'Pull', region: 'eu' } }, manager: 'kubectl-edit', kind: CLUSTER, now: at(2) });
    expect(fieldsOf(edited, 'kubectl')).toBe('{"f:spec":{"f:region":{}}}');
    expect(entry(edited, 'kubectl-edit', 'Update')).toMatchObject({ time: stamp(2), fieldsV1: { 'f:spec': { 'f:syncMode': {} } } });
    expect(refused({ live: edited, applied: manifest({ syncMode: 'Push', region: 'eu' }) }).message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using cluster.karmada.io/v1alpha1: .spec.syncMode',
    );
  });

  it('leaves managedFields as they are, time included, when an update changes nothing', () => {
    const live = stored(ok({ applied: manifest() }));
    const same = trackUpdate({ live, updated: structuredClone(live), manager: 'kubectl-edit', kind: CLUSTER, now: at(8) });
    expect(JSON.stringify(same)).toBe(JSON.stringify(live));
  });

  it('merges a manager’s later update into its entry, with the later time', () => {
    const live = stored(trackUpdate({ live: undefined, updated: manifest(), manager: 'ctl', kind: CLUSTER, now: at(1) }));
    const next = trackUpdate({ live, updated: { ...live, spec: { syncMode: 'Push', region: 'r' } }, manager: 'ctl', kind: CLUSTER, now: at(2) });
    expect(entries(next)).toHaveLength(1);
    expect(entry(next, 'ctl', 'Update')).toMatchObject({ time: stamp(2), fieldsV1: { 'f:spec': { '.': {}, 'f:region': {}, 'f:syncMode': {} } } });
  });

  it('does not start tracking an existing object nobody manages', () => {
    const live = stored(manifest());
    const updated = trackUpdate({ live, updated: { ...live, spec: { syncMode: 'Pull' } }, manager: 'm', kind: CLUSTER, now: at(2) });
    expect((updated.metadata as Obj).managedFields).toBeUndefined();
  });

  it('gives an unmanaged object’s fields to before-first-apply on its first apply', () => {
    const object = ok({ live: stored(manifest({ syncMode: 'Push', region: 'eu' })), applied: manifest({ syncMode: 'Push' }), manager: 'flux', now: at(3) });
    expect(entries(object).map((e) => `${e.manager} ${e.operation}`)).toEqual(['flux Apply', 'before-first-apply Update']);
    expect(object.spec).toEqual({ syncMode: 'Push', region: 'eu' });
  });

  it('records writes without fieldManager under the User-Agent’s product, or unknown', () => {
    expect(managerOrUserAgent('mine', 'kubectl/v1.32.4 (linux/amd64)')).toBe('mine');
    expect(managerOrUserAgent(undefined, 'kubectl/v1.32.4 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerOrUserAgent('', 'my\u0007tool/1.0')).toBe('mytool');
    expect(managerOrUserAgent(undefined, 'é'.repeat(100))).toBe('é'.repeat(64));
    const object = trackUpdate({ live: undefined, updated: manifest(), manager: managerOrUserAgent(undefined, undefined), kind: CLUSTER, now: at(1) });
    expect(entries(object)[0]!.manager).toBe('unknown');
  });

  it('keeps at most 10 update managers, merging the oldest into ancient-changes', () => {
    let live = stored(trackUpdate({ live: undefined, updated: manifest(), manager: 'creator', kind: CLUSTER, now: at(0) }));
    for (let i = 1; i <= 10; i++) {
      live = trackUpdate({ live, updated: { ...live, spec: { ...(live.spec as Obj), [`f${i}`]: 'x' } }, manager: `m${i}`, kind: CLUSTER, now: at(i) });
    }
    const managers = entries(live).map((e) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers[0]).toBe('ancient-changes');
    expect(managers).not.toContain('creator');
    expect(managers).not.toContain('m1');
    const ancient = fromFieldsV1(entries(live)[0]!.fieldsV1);
    expect(ancient.toString()).toContain('.spec.f1');
    expect(ancient.toString()).toContain('.spec.syncMode');
    expect(entries(live)[0]!.time).toBe(stamp(1));
  });

  it('takes managedFields a client writes (kubectl’s migration does), or clears them on [] and [{}]', () => {
    const live = stored(ok({ applied: manifest() }));
    const written = [{ manager: 'someone', operation: 'Apply', apiVersion: API, time: stamp(0), fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:syncMode': {} } } }];
    const taken = trackUpdate({ live, updated: { ...live, metadata: { ...(live.metadata as Obj), managedFields: written } }, manager: 'kubectl', kind: CLUSTER, now: at(2) });
    expect(entries(taken)).toEqual(written);
    for (const reset of [[], [{}]]) {
      const cleared = trackUpdate({ live, updated: { ...live, metadata: { ...(live.metadata as Obj), managedFields: reset } }, manager: 'kubectl', kind: CLUSTER, now: at(2) });
      expect((cleared.metadata as Obj).managedFields).toBeUndefined();
    }
  });

  it('keeps the stored managedFields when a client writes entries kube cannot read, or writes through status', () => {
    const live = stored(ok({ applied: manifest() }));
    const bad = [
      [{ manager: 'x', operation: 'Bogus', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: {} }],
      [{ manager: 'x', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }],
      [{ manager: 'x', operation: 'Apply', apiVersion: API, fieldsV1: {} }],
      [{ manager: 'x', operation: 'Apply', apiVersion: API, fieldsType: 'FieldsV2', fieldsV1: {} }],
      [{ manager: 'x', operation: 'Apply', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: { 'f:a': 7 } }],
      [{ manager: 7 }],
      [null],
      [{ manager: 'x', operation: 'Apply', apiVersion: API, time: '', fieldsType: 'FieldsV1', fieldsV1: {} }],
    ];
    for (const managedFields of bad) {
      const kept = trackUpdate({ live, updated: { ...live, metadata: { ...(live.metadata as Obj), managedFields } }, manager: 'kubectl', kind: CLUSTER, now: at(2) });
      expect(entries(kept)).toEqual(entries(live));
    }
    const written = [{ manager: 'someone', operation: 'Apply', apiVersion: API, fieldsType: 'FieldsV1', fieldsV1: {} }];
    const viaStatus = trackUpdate({ live, updated: { ...live, metadata: { ...(live.metadata as Obj), managedFields: written } }, manager: 'agent', subresource: 'status', kind: CLUSTER, now: at(2) });
    expect(entries(viaStatus)).toEqual(entries(live));
  });

  it('tells which written managedFields kube would not even decode, as Go words it', () => {
    expect(managedFieldsShapeError([{ manager: 7 }])).toBe('json: cannot unmarshal number into Go struct field ManagedFieldsEntry.managedFields.manager of type string');
    expect(managedFieldsShapeError('x')).toBe('json: cannot unmarshal string into Go struct field ObjectMeta.managedFields of type []v1.ManagedFieldsEntry');
    expect(managedFieldsShapeError([{ operation: 'Apply', time: 'yesterday' }])).toContain('parsing time "yesterday"');
    expect(managedFieldsShapeError([{ time: '2026-01-01t00:00:00z' }])).toContain('parsing time');
    expect(managedFieldsShapeError([{ manager: 'm', time: '2026-01-01T00:00:00Z', fieldsV1: { any: 1 } }])).toBeUndefined();
  });
});

describe('from client-side to server-side apply, as kubectl migrates', () => {
  /** The last-applied annotation kubectl's client-side apply writes: the manifest as JSON, a newline. */
  const annotated = (m: Obj): Obj => ({ ...m, metadata: { ...(m.metadata as Obj), annotations: { [LAST_APPLIED]: `${JSON.stringify(m)}\n` } } });
  const annotationPath = FieldSet.of([{ kind: 'field', name: 'metadata' }, { kind: 'field', name: 'annotations' }, { kind: 'field', name: LAST_APPLIED }]);

  /** Entries of `operation` owning the annotation (client-go's csaupgrade.FindFieldsOwners). */
  const owners = (object: Obj, operation: string) =>
    entries(object).filter((e) => e.operation === operation && annotationPath.difference(fromFieldsV1(e.fieldsV1)).empty());

  /** client-go's csaupgrade.UpgradeManagedFields for one client-side manager, into `kubectl`'s Apply entry. */
  function upgraded(object: Obj, csa: string): Obj[] {
    const list = entries(object).map((e) => ({ ...e }));
    let target = list.find((e) => e.manager === 'kubectl' && e.operation === 'Apply' && !e.subresource);
    if (!target) {
      target = list.find((e) => e.manager === csa && e.operation === 'Update' && !e.subresource)!;
      target.operation = 'Apply';
      target.manager = 'kubectl';
    }
    const old = list.find((e) => e.manager === csa && e.operation === 'Update' && !e.subresource && e.apiVersion === target!.apiVersion);
    if (old) target.fieldsV1 = toFieldsV1(fromFieldsV1(target.fieldsV1).union(fromFieldsV1(old.fieldsV1)));
    return list.filter((e) => !(e.manager === csa && e.operation === 'Update' && !e.subresource));
  }

  it('applies server-side over a client-side apply without conflicts, then hands the fields over', () => {
    const csaManifest = manifest({ syncMode: 'Push', region: 'eu', zone: 'z1' }, { labels: { team: 'x' } });
    // kubectl apply (client-side): a create recorded as an update by kubectl-client-side-apply.
    let live = stored(trackUpdate({ live: undefined, updated: annotated(csaManifest), manager: 'kubectl-client-side-apply', kind: CLUSTER, now: at(1) }));

    // kubectl apply --server-side, changing the zone: allowed, the live value is the one kubectl applied.
    const ssaManifest = manifest({ syncMode: 'Push', region: 'eu', zone: 'z2' }, { labels: { team: 'x' } });
    live = stored(ok({ live, applied: ssaManifest, now: at(2) }));
    expect((live.spec as Obj).zone).toBe('z2');
    // The annotation now holds the server-side manifest, as Go writes JSON.
    const annotation = ((live.metadata as Obj).annotations as Obj)[LAST_APPLIED] as string;
    expect(annotation).toBe('{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"labels":{"team":"x"},"name":"m1"},"spec":{"region":"eu","syncMode":"Push","zone":"z2"}}\n');

    // kubectl keeps the annotation: nobody applies it yet, so kubectl-last-applied applies just it.
    expect(owners(live, 'Apply')).toEqual([]);
    live = stored(ok({ live, applied: { apiVersion: API, kind: 'Cluster', metadata: { name: 'm1', annotations: { [LAST_APPLIED]: annotation } } }, manager: 'kubectl-last-applied', now: at(3) }));
    expect(owners(live, 'Apply').map((e) => e.manager)).toEqual(['kubectl-last-applied']);

    // csaupgrade: the client-side manager's fields join kubectl's, through a JSON patch of managedFields.
    const csa = owners(live, 'Update').map((e) => e.manager);
    expect(csa).toEqual(['kubectl-client-side-apply']);
    live = stored(trackUpdate({ live, updated: { ...live, metadata: { ...(live.metadata as Obj), managedFields: upgraded(live, 'kubectl-client-side-apply') } }, manager: 'kubectl', kind: CLUSTER, now: at(4) }));
    // kubectl-last-applied's apply changed no field, so its entry has no time, and sorts first.
    expect(entries(live).map((e) => `${e.manager} ${e.operation} ${e.time ?? 'no time'}`)).toEqual(['kubectl-last-applied Apply no time', `kubectl Apply ${stamp(2)}`]);

    // And kubectl applies again: a field dropped from the manifest, once client-side, is pruned now.
    live = stored(ok({ live, applied: manifest({ syncMode: 'Push', zone: 'z2' }, { labels: { team: 'x' } }), now: at(5) }));
    expect(live.spec).toEqual({ syncMode: 'Push', zone: 'z2' });
    expect(((live.metadata as Obj).annotations as Obj)[LAST_APPLIED]).toBeDefined();
  });

  it('forces only values kubectl itself applied client-side, and only for the manager kubectl', () => {
    const csaManifest = manifest({ syncMode: 'Push', region: 'eu' });
    let live = stored(trackUpdate({ live: undefined, updated: annotated(csaManifest), manager: 'kubectl-client-side-apply', kind: CLUSTER, now: at(1) }));
    expect(refused({ live, applied: manifest({ syncMode: 'Pull', region: 'eu' }), manager: 'flux' }).message).toContain('conflict with "kubectl-client-side-apply" using cluster.karmada.io/v1alpha1: .spec.syncMode');
    // Someone edited region since: that value is not kubectl's any more.
    live = trackUpdate({ live, updated: { ...live, spec: { syncMode: 'Push', region: 'us' } }, manager: 'kubectl-client-side-apply', kind: CLUSTER, now: at(2) });
    expect(refused({ live, applied: manifest({ syncMode: 'Pull', region: 'ap' }) }).message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using cluster.karmada.io/v1alpha1: .spec.region',
    );
  });

  it('leaves an object without the annotation without one', () => {
    const object = ok({ live: stored(ok({ applied: manifest() })), applied: manifest({ syncMode: 'Pull' }) });
    expect((object.metadata as Obj).annotations).toBeUndefined();
    expect(isRecord(object.metadata)).toBe(true);
  });
});
