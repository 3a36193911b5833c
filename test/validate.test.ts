import { describe, expect, it, vi } from 'vitest';
import { validate } from '../src/decode/object.js';
import { applyDefaults } from '../src/decode/object.js';
import { cluster } from './fixtures/cluster.js';
import { cronDeployment } from './fixtures/cronfederatedhpa.js';
import { ingress } from './fixtures/multiclusteringress.js';
import { mcs } from './fixtures/multiclusterservice.js';
import { config } from './fixtures/resourceinterpreterwebhookconfiguration.js';
import { examples } from './fixtures/index.js';
import { rulesFor } from '../rules/index.js';
import { judgeObject, type ValidationResult } from '../src/engine/validate.js';
import { changed, expectCauses, Invalid, NotSupported, Required } from './helpers.js';

const kindList =
  '"ResourceInterpreterWebhookConfiguration", "ResourceInterpreterCustomization", "MultiClusterIngress", "MultiClusterService", "ResourceRegistry", "Work", "ClusterResourceBinding", "Cluster", "CronFederatedHPA", "ClusterTaintPolicy", "FederatedResourceQuota", "WorkloadRebalancer", "Remedy"';

describe('validate', () => {
  it('allows DELETE and CONNECT without judging the object', () => {
    for (const operation of ['DELETE', 'CONNECT'] as const) {
      expect(validate('not an object', { operation })).toEqual({ allowed: true, causes: [], warnings: [], warningDetails: [] });
      expect(validate(changed(cluster, (o) => (o.spec.syncMode = 'Both')), { operation })).toEqual({ allowed: true, causes: [], warnings: [], warningDetails: [] });
    }
  });

  it('does not judge a write to a subresource the kinds do not have, as review() does not', () => {
    const result = validate(changed(cluster, (o) => (o.spec.syncMode = 'Both')), { operation: 'UPDATE', subResource: 'scale', oldObject: cluster });
    const warning = 'subresource "scale" not judged: fleetgate judges the objects and their status subresource';
    expect(result).toEqual({ allowed: true, causes: [], warnings: [warning], warningDetails: [{ field: '', message: warning }] });
  });

  it('refuses a value that is no object at the root, an absent one as null', () => {
    expect(validate(undefined).causes).toStrictEqual([
      { type: 'FieldValueInvalid', field: '', badValue: null, message: 'Invalid value: null: must be a Kubernetes object (a JSON object with apiVersion, kind and metadata)' },
    ]);
    expect(validate([1]).causes.map((c) => [c.type, c.field, c.badValue])).toEqual([['FieldValueInvalid', '', [1]]]);
  });

  it('names an unserved kind, or says a missing one is required, and lists the served kinds', () => {
    expect(validate({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }).causes).toStrictEqual([
      { type: 'FieldValueNotSupported', field: 'kind', badValue: 'Pod', message: `Unsupported value: "Pod": supported values: ${kindList}` },
    ]);
    for (const kind of [undefined, null, '']) {
      expect(validate({ apiVersion: 'v1', kind, metadata: { name: 'p' } }).causes).toStrictEqual([
        { type: 'FieldValueRequired', field: 'kind', message: `Required value: supported values: ${kindList}` },
      ]);
    }
    expect(validate({ apiVersion: 'v1', kind: 7, metadata: { name: 'p' } }).causes.map((c) => [c.type, c.badValue])).toEqual([['FieldValueNotSupported', 7]]);
  });

  it('names the one apiVersion the kind is served at', () => {
    const { causes } = validate(changed(cluster, (o) => (o.apiVersion = 'cluster.karmada.io/v1')));
    expect(causes.map((c) => c.message)).toEqual(['Unsupported value: "cluster.karmada.io/v1": supported values: "cluster.karmada.io/v1alpha1"']);
  });

  it('names a missing metadata once, by the name it lacks, as Kubernetes does', () => {
    const result = validate(changed(cluster, (o) => delete o.metadata));
    expect(result.causes.map((c) => c.message)).toEqual(['Required value: name or generateName is required']);
    expectCauses(changed(cluster, (o) => delete o.metadata), [Required('metadata.name')]);
    expectCauses(changed(cluster, (o) => (o.metadata = 5)), [Invalid('metadata')]);
  });

  it('still reports the other schema causes of an object without metadata', () => {
    expectCauses(changed(cluster, (o) => { delete o.metadata; o.spec.syncMode = 'Both'; }), [Required('metadata.name'), NotSupported('spec.syncMode')]);
  });

  it('says so when an UPDATE comes without the stored object, whose rules it then cannot apply', () => {
    const renamed = changed(cluster, (o) => (o.metadata.name = 'renamed'));
    for (const oldObject of [undefined, null, 'cluster']) {
      expect(validate(renamed, { operation: 'UPDATE', oldObject })).toEqual({ allowed: true, causes: [], warnings: [UPDATE_NOT_CHECKED], warningDetails: [{ field: '', message: UPDATE_NOT_CHECKED }] });
    }
    expect(validate(renamed, { operation: 'UPDATE', oldObject: cluster }).causes.map((c) => c.field)).toEqual(['metadata.name']);
    expect(validate(cluster, { operation: 'UPDATE', oldObject: cluster }).warnings).toEqual([]);
    expect(validate(cluster).warnings).toEqual([]);
  });
});

describe('a namespace', () => {
  const scoped = (scope: string) => examples.filter((e) => rulesFor(e.kind)!.scope === scope);

  it('on a cluster-scoped kind is ignored with a warning, as the API server clears it before validation', () => {
    expect(scoped('Cluster').map((e) => e.kind).sort()).toEqual(
      ['Cluster', 'ClusterResourceBinding', 'ClusterTaintPolicy', 'Remedy', 'ResourceInterpreterCustomization', 'ResourceInterpreterWebhookConfiguration', 'ResourceRegistry', 'WorkloadRebalancer'],
    );
    for (const example of scoped('Cluster')) {
      const withNamespace = changed(example, (o) => (o.metadata.namespace = 'default'));
      const ignored = `metadata.namespace: ignored: ${example.kind} is cluster-scoped; the API server clears the namespace before it validates or stores the object`;
      // In object order: warnings about the object as a whole first, then the namespace, then the spec's.
      const { warningDetails } = validate(example);
      const expected = [
        ...warningDetails.filter((w) => w.field === ''),
        { field: 'metadata.namespace', message: ignored },
        ...warningDetails.filter((w) => w.field !== ''),
      ];
      expect(validate(withNamespace)).toEqual({ allowed: true, causes: [], warnings: expected.map((w) => w.message), warningDetails: expected });
      expect(validate(withNamespace, { operation: 'UPDATE', oldObject: example }).causes).toEqual([]);
    }
  });

  it('on a namespaced kind must be a DNS label, and is immutable', () => {
    for (const example of scoped('Namespaced')) {
      expectCauses(changed(example, (o) => (o.metadata.namespace = 'Shop')), [Invalid('metadata.namespace')]);
      expect(validate(changed(example, (o) => (o.metadata.namespace = 'other')), { operation: 'UPDATE', oldObject: example }).causes.map((c) => c.field)).toEqual(['metadata.namespace']);
    }
  });
});

const UPDATE_NOT_CHECKED = 'update rules (immutable fields) not checked: no oldObject (the stored object) was given';

describe('an UPDATE that keeps a value as stored', () => {
  it('is told apart from one that adds a key named __proto__, which the stored map does not have', () => {
    const withHeaders = (headers: string) =>
      JSON.parse(`{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"name":"m1"},"spec":{"syncMode":"Push","proxyHeader":${headers}}}`);
    const stored = withHeaders('{"A":"b"}');
    const added = withHeaders('{"A":"b","__proto__":{}}');
    expectCauses(added, [Invalid('spec.proxyHeader[__proto__]')]);
    expect(validate(added, { operation: 'UPDATE', oldObject: stored }).causes.map((c) => c.field)).toEqual(['spec.proxyHeader[__proto__]']);
    // Stored so, the same value is kept with a warning.
    expect(validate(added, { operation: 'UPDATE', oldObject: added })).toMatchObject({ allowed: true, warnings: [expect.stringContaining('(as stored')] });
  });
});

describe('a rule that throws', () => {
  // runRules: on a well-formed object a throw is a bug and propagates; on one the schema pass
  // already found malformed (or holding a bad value kept as stored), the rule tripped over it.
  const throwing = () => vi.spyOn(rulesFor('Cluster')!, 'validate').mockImplementation(() => {
    throw new Error('rule bug');
  });

  it('propagates on an object the schema pass finds well formed', () => {
    const spy = throwing();
    try {
      expect(() => validate(cluster)).toThrow('rule bug');
      // An unknown field is a warning, not a mistake: the object is still well formed.
      expect(() => validate(changed(cluster, (o) => (o.spec.extra = 1)))).toThrow('rule bug');
      expect(() => validate(changed(cluster, (o) => (o.spec.region = 'us-west-2')), { operation: 'UPDATE', oldObject: cluster })).toThrow('rule bug');
    } finally {
      spy.mockRestore();
    }
  });

  it('is set aside on an object with schema causes, or with a bad value kept as stored', () => {
    const spy = throwing();
    try {
      expectCauses(changed(cluster, (o) => (o.spec.syncMode = 5)), [Invalid('spec.syncMode')]);
      const stored = changed(cluster, (o) => (o.spec.region = 5));
      const result = expectCauses(changed(stored, (o) => (o.metadata.labels = { team: 'sre' })), [], { operation: 'UPDATE', oldObject: stored });
      expect(result.warnings).toEqual([expect.stringMatching(/^spec\.region: Invalid value: 5: .*\(as stored: this update does not change it, so it is not refused\)$/)]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('a field written as null', () => {
  // As the API server reads it: it drops a null the schema does not allow before it validates
  // (CRDs), or decodes it as the zero value (Cluster). A YAML `zones:` with nothing after it is one.
  it.each([
    ['an optional list', changed(cluster, (o) => (o.spec.zones = null))],
    ['an optional string', changed(cluster, (o) => (o.spec.apiEndpoint = null))],
    ['an optional object', changed(cluster, (o) => (o.spec.secretRef = null))],
    ['an optional timestamp to be defaulted', changed(cluster, (o) => (o.spec.taints[1].timeAdded = null))],
    ['metadata labels', changed(cluster, (o) => (o.metadata.labels = null))],
    ['a label value', changed(cluster, (o) => (o.metadata.labels = { ...o.metadata.labels, team: null }))],
    ['the name, with a generateName', changed(cluster, (o) => { o.metadata.name = null; o.metadata.generateName = 'member-'; })],
    ['one of two exclusive backends', changed(ingress, (o) => (o.spec.defaultBackend.resource = null))],
    ['a deprecated field', changed(mcs, (o) => (o.spec.range = null))],
    ['a time zone', changed(cronDeployment, (o) => (o.spec.rules[0].timeZone = null))],
  ])('in %s is no value at all', (_, object) => {
    expect(validate(object)).toEqual({ allowed: true, causes: [], warnings: [], warningDetails: [] });
  });

  it('in a required field is a missing value, and in a list an item of the wrong type', () => {
    expectCauses(changed(cluster, (o) => (o.spec.syncMode = null)), [Required('spec.syncMode')]);
    expectCauses(changed(cluster, (o) => (o.spec.zones = ['zone-a', null])), [Invalid('spec.zones[1]')]);
    // The item is judged as written, null, not read away as a field would be.
    expect(validate(changed(cluster, (o) => (o.spec.zones = ['zone-a', null]))).causes).toStrictEqual([
      { type: 'FieldValueInvalid', field: 'spec.zones[1]', badValue: null, message: 'Invalid value: null: must be of type string' },
    ]);
    expectCauses(changed(cluster, (o) => { o.spec.zones = null; o.spec.syncMode = 'Both'; }), [expect.objectContaining({ field: 'spec.syncMode' })]);
  });

  it('in a label or annotation is the empty string, as ObjectMeta decodes it: the key is still judged', () => {
    expectCauses(changed(mcs, (o) => (o.metadata.labels = { 'Bad Key!': null })), [Invalid('metadata.labels')]);
    expectCauses(changed(mcs, (o) => (o.metadata.annotations = { 'Bad Key!': null })), [Invalid('metadata.annotations')]);
  });

  it('as the whole metadata is no metadata: the name it lacks is named', () => {
    expectCauses(changed(mcs, (o) => (o.metadata = null)), [Required('metadata.name')]);
  });

  it('in the stored object is read the same way', () => {
    const portTwice = (o: any) => o.spec.ports.push({ ...o.spec.ports[0] });
    const stored = changed(mcs, (o) => { portTwice(o); o.spec.range = null; });
    const relabelled = changed(stored, (o) => (o.metadata.labels = { team: 'mesh' }));
    const result = validate(relabelled, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/^spec\.ports\[\d\]\.name: Duplicate value: .*\(as stored: this update does not change it, so it is not refused\)$/)]);
    // A null in the stored object is as good as a missing field, never a value to compare with.
    const withoutTypes = changed(mcs, (o) => delete o.spec.types);
    const nullTypes = changed(mcs, (o) => (o.spec.types = null));
    expect(validate(mcs, { operation: 'UPDATE', oldObject: nullTypes })).toEqual(validate(mcs, { operation: 'UPDATE', oldObject: withoutTypes }));
    // A required field null in both is missing from both: a write that changes the section is refused.
    const nullBoth = changed(nullTypes, (o) => (o.spec.ports[0].port = 8081));
    expectCauses(nullBoth, [Required('spec.types')], { operation: 'UPDATE', oldObject: nullTypes });
  });

  it('in the stored object alone is read too: a write without it leaves the section as stored', () => {
    const portTwice = (o: any) => o.spec.ports.push({ ...o.spec.ports[0] });
    const stored = changed(mcs, (o) => { portTwice(o); o.spec.range = null; });
    const relabelled = changed(mcs, (o) => { portTwice(o); o.metadata.labels = { team: 'mesh' }; });
    const result = validate(relabelled, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/^spec\.ports\[\d\]\.name: Duplicate value: .*\(as stored: this update does not change it, so it is not refused\)$/)]);
  });

  it('in the stored object alone is read before the status rules compare with it', () => {
    // The stored execution recorded with a null, the write's without the field: the same execution, not a new one lacking it.
    const stored = changed(cronDeployment, (o) => (o.status.executionHistories[0].successfulExecutions[0].appliedReplicas = null));
    const write = changed(cronDeployment, (o) => {
      delete o.status.executionHistories[0].successfulExecutions[0].appliedReplicas;
      o.status.executionHistories[0].nextExecutionTime = '2026-11-24T13:00:00Z';
    });
    const status = { operation: 'UPDATE', subResource: 'status' } as const;
    expect(expectCauses(write, [], { ...status, oldObject: stored }).warnings).toEqual([]);
    expectCauses(write, [Required('status.executionHistories[0].successfulExecutions[0].appliedReplicas')], { ...status, oldObject: cronDeployment });
  });

  it('in several fields of one object is read in all of them', () => {
    const stored = changed(cluster, (o) => (o.spec.resourceModels[1].ranges[1].min = '5Gi'));
    const twoNulls = changed(stored, (o) => { o.spec.zone = null; o.spec.taints[0].value = null; });
    const result = validate(twoNulls, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual([expect.stringMatching(/^spec\.resourceModels\[1\]\.ranges\[1\]\.min: Invalid value: .*\(as stored: this update does not change it, so it is not refused\)$/)]);
  });

  it('in a required field of both objects is missing from both, whatever else its schema says of it', () => {
    // syncMode is an enum too, so ajv reports the null twice: as a type and as a value not listed.
    const stored = changed(cluster, (o) => (o.spec.syncMode = null));
    expectCauses(changed(stored, (o) => (o.spec.region = 'us-west-2')), [Required('spec.syncMode')], { operation: 'UPDATE', oldObject: stored });
  });

  it('is looked for in a stored object that refers to itself without running forever', () => {
    const stored: any = changed(mcs, () => undefined);
    stored.spec.self = stored;
    const result = validate(mcs, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
  });

  it('is read once: an object that keeps a null whatever is removed is judged, not read again and again', () => {
    Object.defineProperty(Object.prototype, 'range', { value: null, configurable: true, writable: true });
    try {
      expect(validate(mcs).allowed).toBe(true);
    } finally {
      delete (Object.prototype as { range?: unknown }).range;
    }
  });

  it('is defaulted as a missing field is', () => {
    const now = new Date('2026-11-23T06:00:00Z');
    const nullTime = changed(cluster, (o) => (o.spec.taints[1].timeAdded = null));
    expect(applyDefaults(nullTime, { now }).patch).toEqual([{ op: 'replace', path: '/spec/taints/1/timeAdded', value: '2026-11-23T06:00:00Z' }]);
    const nullLimits = changed(cronDeployment, (o) => (o.spec.rules[0].failedHistoryLimit = null));
    expect(applyDefaults(nullLimits).patch).toContainEqual({ op: 'replace', path: '/spec/rules/0/failedHistoryLimit', value: 3 });
    const nullTimeout = changed(config, (o) => {
      o.webhooks[1].timeoutSeconds = null;
      o.webhooks[1].clientConfig.service.port = null;
    });
    expect(applyDefaults(nullTimeout).patch).toEqual([
      { op: 'replace', path: '/webhooks/1/timeoutSeconds', value: 10 },
      { op: 'replace', path: '/webhooks/1/clientConfig/service/port', value: 443 },
    ]);
  });
});

describe('a status write', () => {
  const status = { operation: 'UPDATE', subResource: 'status', oldObject: cluster } as const;

  it('is judged on metadata, apiVersion and status, not on spec', () => {
    expectCauses(changed(cluster, (o) => (o.metadata.labels = { site: 5 })), [Invalid('metadata.labels[site]')], status);
    expectCauses(changed(cluster, (o) => delete o.apiVersion), [Required('apiVersion')], status);
    expectCauses(changed(cluster, (o) => (o.spec.syncMode = 'Both')), [], status);
  });

  it('warns about a status value kept as stored, and says nothing about the spec', () => {
    const stored = changed(cluster, (o) => {
      o.spec.syncMode = 'Both';
      o.status.nodeSummary.totalNum = 'three';
    });
    const write = changed(stored, (o) => (o.status.kubernetesVersion = 'v1.32.0'));
    const result = validate(write, { ...status, oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual([
      'status.nodeSummary.totalNum: Invalid value: "three": must be of type integer (as stored: this update does not change it, so it is not refused)',
    ]);
  });
});

describe('the context rules', () => {
  const headless = { spec: { clusterIP: 'None' } };
  const urlOnly = changed(config, (o) => (o.webhooks = [o.webhooks[0]]));
  const cause = {
    type: 'FieldValueInvalid',
    field: 'webhooks[1].clientConfig.service',
    badValue: 'karmada-system/interpreter-webhook',
    message:
      'Invalid value: "karmada-system/interpreter-webhook": cannot route to service with ClusterIP "None": point clientConfig.service at a Service with a cluster IP (ClusterIP, NodePort, LoadBalancer) or an ExternalName Service, or use clientConfig.url',
  };

  /** A judgement with lookups that answer at once, which is no Promise. */
  const now = (result: unknown): ValidationResult => {
    expect(result).not.toBeInstanceOf(Promise);
    return result as ValidationResult;
  };

  it('run through the lookups given, answering at once or later', async () => {
    expect(now(validate(config, { lookups: { getService: () => headless } })).causes).toStrictEqual([cause]);
    expect(validate(config, { lookups: { getService: () => ({ spec: { clusterIP: '10.0.0.1' } }) } })).toEqual({ allowed: true, causes: [], warnings: [], warningDetails: [] });
    const later = validate(config, { lookups: { getService: async () => headless } });
    expect(later).toBeInstanceOf(Promise);
    expect((await later).causes).toStrictEqual([cause]);
  });

  it('are skipped with a warning that names them when there are no lookups, or not the one they need', () => {
    const none = 'the Service behind clientConfig.service (ClusterIP "None" check) not checked: no lookups were supplied';
    expect(validate(config)).toEqual({ allowed: true, causes: [], warnings: [none], warningDetails: [{ field: '', message: none }] });
    const missing = 'the Service behind clientConfig.service (ClusterIP "None" check) not checked: the lookups have no getService';
    expect(now(validate(config, { lookups: { listResourceInterpreterCustomizations: () => [] } })).warnings).toEqual([missing]);
  });

  it('are not run, nor missed, for an object they do not concern', () => {
    const getService = vi.fn(() => headless);
    expect(validate(urlOnly, { lookups: { getService } })).toEqual({ allowed: true, causes: [], warnings: [], warningDetails: [] });
    expect(validate(urlOnly)).toEqual({ allowed: true, causes: [], warnings: [], warningDetails: [] });
    expect(now(validate(urlOnly, { lookups: {} })).warnings).toEqual([]);
    expect(getService).not.toHaveBeenCalled();
  });

  it('that name no lookups are called context rules in the warning', () => {
    const rules = { ...rulesFor('ResourceInterpreterWebhookConfiguration')!, lookupsNeeded: undefined };
    expect(judgeObject(rules, config, {})).toMatchObject({ warnings: ['context rules not checked: no lookups were supplied'] });
    expect(judgeObject(rules, config, { lookups: {} })).toMatchObject({ warnings: ['context rules not checked: the lookups have no getService'] });
  });
});

describe('a rule that throws', () => {
  const bug = new Error('a rule bug');
  const throwing = { ...rulesFor('Cluster')!, validateStatus: () => { throw bug; }, validateUpdate: () => { throw bug; } };
  const malformed = changed(cluster, (o) => (o.status.nodeSummary.totalNum = 'three'));
  const mistyped = { type: 'FieldValueInvalid', field: 'status.nodeSummary.totalNum', badValue: 'three', message: 'Invalid value: "three": must be of type integer' };

  it('on a well-formed object is a bug, and propagates', () => {
    expect(() => judgeObject({ ...throwing, validateUpdate: undefined }, cluster, {})).toThrow(bug);
    expect(() => judgeObject({ ...throwing, validateStatus: undefined }, cluster, { operation: 'UPDATE', oldObject: cluster })).toThrow(bug);
  });

  it('on an object the schema pass found malformed adds nothing: the schema causes are the answer', () => {
    expect(judgeObject(throwing, malformed, {})).toMatchObject({ allowed: false, causes: [mistyped] });
    expect(judgeObject({ ...throwing, validateStatus: undefined }, malformed, { operation: 'UPDATE', oldObject: cluster })).toMatchObject({ allowed: false, causes: [mistyped] });
  });

  it('in the metadata update checks is swallowed too when the object is malformed', () => {
    // A finalizer list that is not a string list, added while the object is being deleted: the schema pass refuses
    // its item, and the check that looks for new finalizers trips over the list.
    const deleting = changed(cluster, (o) => (o.metadata.deletionTimestamp = '2026-11-23T06:00:00Z'));
    const finalizers = new Proxy([10n], {
      get(list, key) {
        if (key === 'filter') throw new TypeError('not a list the check can read');
        return Reflect.get(list, key);
      },
    });
    const write = { ...deleting, metadata: { ...deleting.metadata, finalizers } };
    const result = validate(write, { operation: 'UPDATE', oldObject: deleting });
    expect(result.allowed).toBe(false);
    expect(result.causes.map((c) => [c.type, c.field])).toEqual([['FieldValueInvalid', 'metadata.finalizers[0]']]);
  });
});

describe('a status write runs the status rules alone', () => {
  it('a spec mistake only a rule finds refuses a write of the object, not of its status', () => {
    const bad = changed(cluster, (o) => (o.spec.apiEndpoint = 'https://10.0.0.256:6443'));
    const stored = changed(cluster, (o) => (o.spec.apiEndpoint = 'https://10.0.0.1:6443'));
    expect(validate(bad, { operation: 'UPDATE', oldObject: stored }).causes.map((c) => c.field)).toEqual(['spec.apiEndpoint']);
    expect(validate(bad, { operation: 'UPDATE', subResource: 'status', oldObject: stored })).toEqual({ allowed: true, causes: [], warnings: [], warningDetails: [] });
  });
});

describe('a CREATE', () => {
  it('is judged whole even when an old object is given: nothing is left as stored', () => {
    const bad = changed(cluster, (o) => (o.status.nodeSummary.totalNum = 'three'));
    expect(validate(bad, { operation: 'CREATE', oldObject: bad }).causes.map((c) => c.field)).toEqual(['status.nodeSummary.totalNum']);
    expect(validate(bad, { oldObject: bad }).causes.map((c) => c.field)).toEqual(['status.nodeSummary.totalNum']);
    expect(validate(bad, { operation: 'UPDATE', oldObject: bad }).causes).toEqual([]);
  });
});

describe('the context a rule reads', () => {
  it('names the operation, CREATE when none is given, and no subresource for a write of the object', () => {
    const seen: [string, string][] = [];
    const rules = { ...rulesFor('Cluster')!, validate: (_: unknown, ctx: { operation: string; subResource: string }) => void seen.push([ctx.operation, ctx.subResource]) };
    judgeObject(rules, cluster, {});
    judgeObject(rules, cluster, { operation: 'UPDATE', oldObject: cluster });
    expect(seen).toEqual([['CREATE', ''], ['UPDATE', '']]);
  });
});
