import { describe, expect, it } from 'vitest';
import { ContextUnavailableError, review, type AdmissionReview } from '../../src/index.js';

const cluster = {
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'm1' },
  spec: { syncMode: 'Push', resourceModels: [{ grade: 0, ranges: [{ name: 'cpu', min: '0', max: '1' }] }] },
};

function admissionReview(object: unknown, overrides: Record<string, unknown> = {}, apiVersion = 'admission.k8s.io/v1') {
  return {
    apiVersion,
    kind: 'AdmissionReview',
    request: {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: 'cluster.karmada.io', version: 'v1alpha1', kind: 'Cluster' },
      resource: { group: 'cluster.karmada.io', version: 'v1alpha1', resource: 'clusters' },
      name: 'm1',
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      object,
      oldObject: null,
      dryRun: false,
      ...overrides,
    },
  };
}

const sync = (r: AdmissionReview | Promise<AdmissionReview>): AdmissionReview => {
  expect(r).not.toBeInstanceOf(Promise);
  return r as AdmissionReview;
};

const decodePatch = (patch: string | undefined) => JSON.parse(Buffer.from(patch ?? '', 'base64').toString('utf8'));

describe.each(['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'])('review() over %s', (version) => {
  it('allows a valid object and echoes uid, apiVersion and kind', () => {
    const out = sync(review(admissionReview(cluster, {}, version), { mode: 'validate' }));
    expect(out).toEqual({ apiVersion: version, kind: 'AdmissionReview', response: { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true } });
  });

  it('denies an invalid object with 422 Invalid, a kubectl-style message and causes', () => {
    const bad = { ...cluster, spec: { syncMode: 'Push', taints: [{ key: 'k', effect: 'Foo' }] } };
    const out = sync(review(admissionReview(bad, {}, version), { mode: 'validate' }));
    expect(out.apiVersion).toBe(version);
    expect(out.response?.allowed).toBe(false);
    expect(out.response?.patch).toBeUndefined();
    expect(out.response?.status).toEqual({
      code: 422,
      reason: 'Invalid',
      message:
        'Cluster.cluster.karmada.io "m1" is invalid: spec.taints[0].effect: Unsupported value: "Foo": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      details: {
        name: 'm1',
        group: 'cluster.karmada.io',
        kind: 'Cluster',
        causes: [
          {
            reason: 'FieldValueNotSupported',
            field: 'spec.taints[0].effect',
            message: 'Unsupported value: "Foo": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
          },
        ],
      },
    });
  });

  it('brackets several causes like an aggregate error', () => {
    const bad = { ...cluster, metadata: { name: 'M1' }, spec: { syncMode: 'X' } };
    const out = sync(review(admissionReview(bad, {}, version), { mode: 'validate' }));
    expect(out.response?.status?.message).toMatch(/^Cluster\.cluster\.karmada\.io "M1" is invalid: \[metadata\.name: Invalid value: "M1": .*, spec\.syncMode: Unsupported value: "X": supported values: "Push", "Pull"\]$/);
  });

  it('mutate returns a base64 JSON Patch, and no patch when nothing changes', () => {
    const bare = { ...cluster, spec: { syncMode: 'Push' } };
    const out = sync(review(admissionReview(bare, {}, version), { mode: 'mutate' }));
    expect(out.response?.allowed).toBe(true);
    expect(out.response?.patchType).toBe('JSONPatch');
    const patch = decodePatch(out.response?.patch);
    expect(patch).toEqual([{ op: 'add', path: '/spec/resourceModels', value: expect.any(Array) }]);
    expect(patch[0].value).toHaveLength(9);

    const unchanged = sync(review(admissionReview(cluster, {}, version), { mode: 'mutate' }));
    expect(unchanged.response).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
  });

  it('validate never returns a patch, even for an object with defaults to apply', () => {
    const bare = { ...cluster, spec: { syncMode: 'Push' } };
    const out = sync(review(admissionReview(bare, {}, version), { mode: 'validate' }));
    expect(out.response).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
  });

  it('allows DELETE without an object', () => {
    const out = sync(review(admissionReview(null, { operation: 'DELETE', oldObject: cluster }, version), { mode: 'validate' }));
    expect(out.response?.allowed).toBe(true);
  });
});

describe('review() on input it cannot use', () => {
  const cases: [string, unknown, RegExp][] = [
    ['a non-object', 'hello', /not an AdmissionReview/],
    ['null', null, /not an AdmissionReview/],
    ['an array', [1, 2], /not an AdmissionReview/],
    ['another kind', { apiVersion: 'v1', kind: 'Pod' }, /not an AdmissionReview/],
    ['an unknown review version', { apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request: { uid: 'u' } }, /not an AdmissionReview/],
    ['no request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, /has no request/],
    ['another kind in admission.k8s.io', { ...admissionReview(cluster), kind: 'AdmissionResponse' }, /not an AdmissionReview/],
    ['no uid', admissionReview(cluster, { uid: '' }), /uid is required/],
    ['a uid that is no string', admissionReview(cluster, { uid: 42 }), /uid is required/],
    ['a bad operation', admissionReview(cluster, { operation: 'PATCH' }), /operation "PATCH"/],
    ['no object on CREATE', admissionReview(null), /no content to decode/],
    ['an omitted object on CREATE', admissionReview(undefined), /no content to decode/],
    ['an object that is not an object', admissionReview([1]), /not a JSON object/],
    ['an oldObject that is not an object', admissionReview(cluster, { operation: 'UPDATE', oldObject: 'x' }), /oldObject is not a JSON object/],
    // As on the wire: the JSON round trip drops the key (the helper's default is a null oldObject).
    ['an UPDATE without oldObject', JSON.parse(JSON.stringify(admissionReview(cluster, { operation: 'UPDATE', oldObject: undefined }))), /request.oldObject is empty/],
    ['an UPDATE with a null oldObject', admissionReview(cluster, { operation: 'UPDATE', oldObject: null }), /request.oldObject is empty/],
    ['a kind fleetgate does not serve', admissionReview({ ...cluster, kind: 'Pod' }, { kind: { group: '', version: 'v1', kind: 'Pod' } }), /kind "Pod" is not served/],
    ['the kind in another group', admissionReview(cluster, { kind: { group: 'cluster.example.org', version: 'v1alpha1', kind: 'Cluster' } }), /group "cluster.example.org" is not served/],
  ];

  it.each(cases)('answers 400 for %s', (_name, input, message) => {
    const out = sync(review(input, { mode: 'validate' }));
    expect(out.kind).toBe('AdmissionReview');
    expect(out.response?.allowed).toBe(false);
    expect(out.response?.status?.code).toBe(400);
    expect(out.response?.status?.message).toMatch(message);
  });

  it('echoes the uid it could read, and an empty uid otherwise', () => {
    expect(sync(review('hello', { mode: 'validate' })).response?.uid).toBe('');
    expect(sync(review(admissionReview(cluster, { uid: 42 }), { mode: 'validate' })).response?.uid).toBe('');
    expect(sync(review(admissionReview(cluster, { operation: 'PATCH' }), { mode: 'validate' })).response?.uid).toBe('705ab4f5-6393-11e8-b7cc-42010a800002');
  });

  const envelopes: [string, unknown, string][] = [
    ['missing fields', {}, 'null and null'],
    ['null fields', { apiVersion: null, kind: null }, 'null and null'],
    ['a number and a boolean', { apiVersion: 1, kind: true }, '1 and true'],
    ['an array and an object', { apiVersion: [], kind: { secret: 'x' } }, 'an array and an object'],
    ['a string of 64 characters', { apiVersion: 'v'.repeat(64), kind: 'Pod' }, `"${'v'.repeat(64)}" and "Pod"`],
    ['a string of 65 characters', { apiVersion: 'v'.repeat(65), kind: 'Pod' }, `"${'v'.repeat(64)}…" and "Pod"`],
  ];

  it.each(envelopes)('shows %s in the envelope error as it is typed', (_name, input, shown) => {
    const out = sync(review(input, { mode: 'validate' }));
    expect(out.response?.status).toEqual({
      code: 400,
      message: `the body is not an AdmissionReview: expected apiVersion admission.k8s.io/v1 or admission.k8s.io/v1beta1 and kind AdmissionReview, got ${shown}`,
    });
  });

  it('lists the served kinds comma-separated', () => {
    const out = sync(review(admissionReview({ ...cluster, kind: 'Pod' }, { kind: { group: '', version: 'v1', kind: 'Pod' } }), { mode: 'validate' }));
    expect(out.response?.status?.message).toMatch(/^kind "Pod" is not served by fleetgate; served kinds: (\w+, ){12}\w+$/);
  });

  it('ignores oldObject on CREATE', () => {
    const { oldObject: _omitted, ...request } = admissionReview(cluster).request;
    const omitted = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
    expect(sync(review(omitted, { mode: 'validate' })).response?.allowed).toBe(true);
    expect(sync(review(admissionReview(cluster, { oldObject: 'x' }), { mode: 'validate' })).response?.allowed).toBe(true);
  });

  it('takes the kind from the object when the request names none', () => {
    expect(sync(review(admissionReview(cluster, { kind: undefined }), { mode: 'validate' })).response?.allowed).toBe(true);
  });

  it('fills the request namespace into the object and the stored object alike', () => {
    const mcs = { apiVersion: 'networking.karmada.io/v1alpha1', kind: 'MultiClusterService', metadata: { name: 'web' }, spec: { types: ['CrossCluster'] } };
    const kind = { group: 'networking.karmada.io', version: 'v1alpha1', kind: 'MultiClusterService' };
    const update = admissionReview(mcs, { operation: 'UPDATE', oldObject: mcs, namespace: 'shop', kind, name: 'web' });
    expect(sync(review(update, { mode: 'validate' })).response?.allowed).toBe(true);
    const placed = { ...mcs, metadata: { name: 'web', namespace: 'shop' } };
    const updatePlaced = admissionReview(placed, { operation: 'UPDATE', oldObject: mcs, namespace: 'shop', kind, name: 'web' });
    expect(sync(review(updatePlaced, { mode: 'validate' })).response?.allowed).toBe(true);
  });

  it('keeps the namespace the object carries, and fills none into a cluster-scoped object', () => {
    const mcs = { apiVersion: 'networking.karmada.io/v1alpha1', kind: 'MultiClusterService', metadata: { name: 'web', namespace: 'Shop' }, spec: { types: ['CrossCluster'] } };
    const kind = { group: 'networking.karmada.io', version: 'v1alpha1', kind: 'MultiClusterService' };
    const denied = sync(review(admissionReview(mcs, { namespace: 'shop', kind, name: 'web' }), { mode: 'validate' }));
    expect(denied.response?.status?.details?.causes?.map((c) => [c.reason, c.field])).toEqual([['FieldValueInvalid', 'metadata.namespace']]);
    expect(sync(review(admissionReview(cluster, { namespace: 'shop' }), { mode: 'validate' })).response?.allowed).toBe(true);
  });

  it('reads a review without apiVersion as admission.k8s.io/v1, as controller-runtime does', () => {
    const { apiVersion: _omitted, ...unversioned } = admissionReview(cluster);
    const out = sync(review(unversioned, { mode: 'validate' }));
    expect(out).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true } });
  });

  it('answers 400 when a per-kind endpoint receives another kind', () => {
    const out = sync(review(admissionReview(cluster), { mode: 'validate', kind: 'Work' }));
    expect(out.response?.status).toEqual({ code: 400, message: 'this endpoint serves Work, but the request is for Cluster' });
    expect(sync(review(admissionReview(cluster), { mode: 'validate', kind: 'Cluster' })).response?.allowed).toBe(true);
  });

  it('answers 400 when the object is not of the kind the request names', () => {
    const remedyKind = { group: 'remedy.karmada.io', version: 'v1alpha1', kind: 'Remedy' };
    const status = (object: unknown) => sync(review(admissionReview(object, { kind: remedyKind }), { mode: 'validate' })).response?.status;
    expect(status(cluster)).toEqual({ code: 400, message: 'request.object has kind "Cluster", but request.kind names Remedy' });
    expect(status({ metadata: { name: 'm1' } })).toEqual({ code: 400, message: 'request.object has kind null, but request.kind names Remedy' });
    expect(sync(review(admissionReview({ ...cluster, kind: 'Remedy' }), { mode: 'validate' })).response?.status).toEqual({
      code: 400,
      message: 'request.object has kind "Remedy", but request.kind names Cluster',
    });
  });

  it('describes, not prints, a value that is no name where a name belongs', () => {
    const input = admissionReview({ ...cluster, kind: { secret: 'x'.repeat(100_000) } }, { kind: undefined });
    const message = sync(review(input, { mode: 'validate' })).response?.status?.message ?? '';
    expect(message).toMatch(/^kind an object is not served/);
    expect(message).not.toContain('secret');
    const long = sync(review(admissionReview({ ...cluster, kind: `K${'x'.repeat(1000)}` }, { kind: undefined }), { mode: 'validate' })).response?.status?.message ?? '';
    expect(long.length).toBeLessThan(400);
  });

  it('answers 400 when a per-kind endpoint receives a DELETE of another kind, and allows its own', () => {
    const deleteOf = (kind: Record<string, unknown> | undefined) => admissionReview(null, { operation: 'DELETE', oldObject: cluster, kind });
    const clusterKind = { group: 'cluster.karmada.io', version: 'v1alpha1', kind: 'Cluster' };
    expect(sync(review(deleteOf(clusterKind), { mode: 'validate', kind: 'Work' })).response?.status).toEqual({ code: 400, message: 'this endpoint serves Work, but the request is for Cluster' });
    // Without request.kind, the stored object names the kind.
    expect(sync(review(deleteOf(undefined), { mode: 'validate', kind: 'Work' })).response?.status?.code).toBe(400);
    expect(sync(review(deleteOf(clusterKind), { mode: 'validate', kind: 'Cluster' })).response?.allowed).toBe(true);
    expect(sync(review(deleteOf(clusterKind), { mode: 'validate' })).response?.allowed).toBe(true);
  });

  it('takes a DELETE\'s kind from request.kind first, and allows one whose kind is unknown', () => {
    const clusterKind = { group: 'cluster.karmada.io', version: 'v1alpha1', kind: 'Cluster' };
    const bare = admissionReview(null, { operation: 'DELETE', oldObject: null, kind: clusterKind });
    expect(sync(review(bare, { mode: 'validate', kind: 'Work' })).response?.status).toEqual({ code: 400, message: 'this endpoint serves Work, but the request is for Cluster' });
    const unknown = admissionReview(null, { operation: 'DELETE', oldObject: null, kind: undefined });
    expect(sync(review(unknown, { mode: 'validate', kind: 'Work' })).response?.allowed).toBe(true);
  });

  it('allows CONNECT without an object', () => {
    const out = sync(review(admissionReview(null, { operation: 'CONNECT', subResource: 'proxy' }), { mode: 'validate' }));
    expect(out.response?.allowed).toBe(true);
  });

  it('answers 400 when the review itself throws as it is read (getters, Proxies), and never echoes a name that is no string', () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const hostile = [
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', get request() { throw new Error('x'); } },
      new Proxy({}, { get() { throw new Error('p'); } }),
      revoked.proxy,
    ];
    for (const input of hostile) {
      const out = sync(review(input, { mode: 'validate' }));
      expect(out.kind).toBe('AdmissionReview');
      expect(out.response?.status?.code).toBe(400);
    }
    expect(sync(review(hostile[0], { mode: 'validate' })).response?.status?.message).toBe('the AdmissionReview cannot be read: x');
    const unnamed = admissionReview({ ...cluster, metadata: { generateName: 'm-' }, spec: { syncMode: 'Both' } }, { name: { evil: true } });
    const denied = sync(review(unnamed, { mode: 'validate' }));
    expect(denied.response?.status?.details?.name).toBe('');
  });

  it('never throws, whatever it is given', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 20000; i++) deep = (deep.spec = {}) as Record<string, unknown>;
    const hostile = [
      undefined, 0, true, Symbol.iterator, () => 1, new Date(), Object.create(null),
      JSON.parse('{"__proto__": {"polluted": true}, "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u", "operation": "CREATE", "object": {"__proto__": {"x": 1}, "constructor": {"prototype": {"y": 1}}, "apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "metadata": {"name": "m"}, "spec": {"syncMode": "Push"}}}}'),
      admissionReview(root),
      admissionReview({ ...cluster, spec: root }),
      admissionReview({ ...cluster, metadata: 'm1', spec: [] }),
      admissionReview({ ...cluster, spec: { syncMode: 'Push', taints: 'x', resourceModels: [null, 1, 'a'] } }),
    ];
    for (const input of hostile) {
      for (const mode of ['validate', 'mutate'] as const) {
        const out = review(input, { mode });
        expect(out).not.toBeInstanceOf(Promise);
        expect((out as AdmissionReview).kind).toBe('AdmissionReview');
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('review() details', () => {
  it('ignores subresources other than status and validates status writes', () => {
    const bad = { ...cluster, spec: { syncMode: 'X' }, status: { conditions: [{ type: 'Ready', status: 'Maybe', reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } };
    const proxy = sync(review(admissionReview(bad, { subResource: 'proxy' }), { mode: 'validate' }));
    expect(proxy.response?.allowed).toBe(true);
    const status = sync(review(admissionReview(bad, { subResource: 'status', operation: 'UPDATE', oldObject: cluster }), { mode: 'validate' }));
    expect(status.response?.status?.details?.causes?.map((c) => c.field)).toEqual(['status.conditions[0].status']);
  });

  it('passes warnings through on allowed and denied responses', () => {
    const zoned = { ...cluster, spec: { ...cluster.spec, zone: 'z1', extra: 1 } };
    const out = sync(review(admissionReview(zoned), { mode: 'validate' }));
    expect(out.response?.allowed).toBe(true);
    // In object order: zone comes before extra in the object.
    expect(out.response?.warnings).toEqual(['spec.zone is deprecated and never used; use spec.zones', 'unknown field "spec.extra"']);
  });

  it('answers 503 when a lookup cannot reach the control plane, and 500 for any other failure', async () => {
    const config = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterWebhookConfiguration',
      metadata: { name: 'hooks' },
      webhooks: [{ name: 'w.example.com', clientConfig: { service: { namespace: 'ns', name: 'svc' } }, interpreterContextVersions: ['v1alpha1'] }],
    };
    const request = admissionReview(config, { kind: { group: 'config.karmada.io', version: 'v1alpha1', kind: 'ResourceInterpreterWebhookConfiguration' } });
    const unavailable = () => {
      throw new ContextUnavailableError('the Service cache has not synced');
    };
    const down = await review(request, { mode: 'validate', lookups: { getService: unavailable } });
    expect(down.response?.allowed).toBe(false);
    expect(down.response?.status).toEqual({ code: 503, reason: 'ServiceUnavailable', message: 'the Service cache has not synced' });
    const rejected = await review(request, { mode: 'validate', lookups: { getService: () => Promise.reject(new ContextUnavailableError('timed out')) } });
    expect(rejected.response?.status?.code).toBe(503);
    const broken = await review(request, { mode: 'validate', lookups: { getService: () => { throw new Error('bug'); } } });
    expect(broken.response?.status).toEqual({ code: 500, message: 'internal error while reviewing the request: bug' });
  });

  it('uses the configured group domain', () => {
    const other = { ...cluster, apiVersion: 'cluster.example.org/v1alpha1' };
    const out = sync(review(admissionReview(other, { kind: { group: 'cluster.example.org', version: 'v1alpha1', kind: 'Cluster' } }), { mode: 'validate', groupDomain: 'example.org' }));
    expect(out.response?.allowed).toBe(true);
    const bad = { ...other, spec: { syncMode: 'X' } };
    const denied = sync(review(admissionReview(bad, { kind: { group: 'cluster.example.org', version: 'v1alpha1', kind: 'Cluster' } }), { mode: 'validate', groupDomain: 'example.org' }));
    expect(denied.response?.status?.message).toMatch(/^Cluster\.cluster\.example\.org "m1" is invalid: /);
    expect(denied.response?.status?.details?.group).toBe('cluster.example.org');
  });

  it('names the object by request.name when the object carries no name', () => {
    const unnamed = { ...cluster, metadata: {} };
    const out = sync(review(admissionReview(unnamed, { name: 'm1' }), { mode: 'validate' }));
    expect(out.response?.status?.details?.name).toBe('m1');
    expect(out.response?.status?.message).toMatch(/^Cluster\.cluster\.karmada\.io "m1" is invalid: metadata\.name: Required value/);
  });

  it('mutate defaults resource models only on CREATE, stamps NoExecute taints with the given time, and leaves status writes alone', () => {
    const bare = { ...cluster, spec: { syncMode: 'Push' } };
    const onUpdate = sync(review(admissionReview(bare, { operation: 'UPDATE', oldObject: bare }), { mode: 'mutate' }));
    expect(onUpdate.response).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
    const onStatus = sync(review(admissionReview(bare, { operation: 'UPDATE', oldObject: bare, subResource: 'status' }), { mode: 'mutate' }));
    expect(onStatus.response).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
    const tainted = { ...cluster, spec: { ...cluster.spec, taints: [{ key: 'k', effect: 'NoExecute' }] } };
    const stamped = sync(review(admissionReview(tainted), { mode: 'mutate', now: new Date('2026-03-04T05:06:07Z') }));
    expect(decodePatch(stamped.response?.patch)).toEqual([{ op: 'add', path: '/spec/taints/0/timeAdded', value: '2026-03-04T05:06:07Z' }]);
  });
});

describe('engine details', () => {
  it('keeps only status and metadata causes on a status write, whatever a field is called', async () => {
    const { validate } = await import('../../src/index.js');
    const result = validate({ ...cluster, metadataFoo: 1, statusBar: 2, status: { conditions: [] } }, { operation: 'UPDATE', subResource: 'status', oldObject: cluster });
    expect(result.warnings).toEqual([]);
  });

  it('does not take the string "1" and the number 1 for duplicates', async () => {
    const { validate } = await import('../../src/index.js');
    const remedy = { apiVersion: 'remedy.karmada.io/v1alpha1', kind: 'Remedy', metadata: { name: 'r' }, spec: { actions: ['1', 1] } };
    expect(validate(remedy).causes.map((c) => c.type)).toEqual(['FieldValueInvalid']);
  });
});
