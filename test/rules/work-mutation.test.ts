/**
 * Karmada's mutation of Work manifests (pkg/webhook/work, pkg/resourceinterpreter/default/native/prune,
 * pkg/util's managed records), rule by rule: each manifest below goes through applyDefaults in a Work
 * whose permanent id is ID, and comes out as Karmada's webhook writes it.
 */
import { describe, expect, it } from 'vitest';
import { applyDefaults, validate } from '../../src/index.js';
import { review } from '../../src/admission/review.js';
import { compareCodePoints } from '../../rules/_shared/work-manifests.js';
import { changed, expectCauses, Invalid, Required, type Want } from '../helpers.js';

const ID = '5b4fa1a8-1f7e-4e1c-9e63-2b3b1f1c2c3d';
const PID = 'work.karmada.io/permanent-id';
const MA = 'resourcetemplate.karmada.io/managed-annotations';
const ML = 'resourcetemplate.karmada.io/managed-labels';

type Obj = Record<string, any>;

const workOf = (...manifests: unknown[]): Obj => ({
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: { name: 'w', namespace: 'karmada-es-member1', labels: { [PID]: ID } },
  spec: { workload: { manifests } },
});

/** The manifest as the mutation leaves it. */
function mutated(manifest: unknown): Obj {
  const { object, causes } = applyDefaults(workOf(manifest), { uuid: () => 'unused' });
  expect(causes).toBeUndefined();
  return (object as Obj).spec.workload.manifests[0];
}

/**
 * What Karmada adds to every manifest: the Work's id among its labels, and the sorted, comma-joined
 * keys of its annotations (with the two records themselves) and of its labels.
 */
function withRecords(manifest: Obj): Obj {
  const result = structuredClone(manifest);
  const metadata = (result.metadata ??= {});
  metadata.labels = { ...metadata.labels, [PID]: ID };
  const annotationKeys = new Set([...Object.keys(metadata.annotations ?? {}), MA, ML]);
  metadata.annotations = { ...metadata.annotations, [MA]: [...annotationKeys].sort().join(','), [ML]: Object.keys(metadata.labels).sort().join(',') };
  return result;
}

const meta = { name: 'app', namespace: 'default' };

describe('every manifest: what only its API server sets', () => {
  const serverSet: Obj = {
    creationTimestamp: '2026-11-20T08:00:00Z',
    deletionTimestamp: '2026-11-21T08:00:00Z',
    deletionGracePeriodSeconds: 30,
    generation: 4,
    managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    resourceVersion: '48213',
    selfLink: '/api/v1/namespaces/default/configmaps/app',
    uid: 'f3c1a2b4-1111-4c2d-9e8f-0a1b2c3d4e5f',
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }],
    finalizers: ['example.com/keep'],
  };
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: '1' } };

  it.each(Object.keys(serverSet))('metadata.%s is removed when present, and nothing else', (field) => {
    expect(mutated(changed(configMap, (o) => (o.metadata[field] = serverSet[field])))).toEqual(withRecords(configMap));
  });

  it('all of them at once, and status; a manifest without them only gains the records', () => {
    const full = changed(configMap, (o) => {
      Object.assign(o.metadata, serverSet);
      o.status = { phase: 'Active' };
    });
    expect(mutated(full)).toEqual(withRecords(configMap));
    expect(mutated(changed(configMap, (o) => (o.status = null)))).toEqual(withRecords(configMap));
    expect(mutated(configMap)).toEqual(withRecords(configMap));
  });

  it('fields of the same names elsewhere stay: only metadata and the top-level status are pruned', () => {
    const nested = changed(configMap, (o) => {
      o.data = { uid: 'x', status: 'y', generation: '1' };
      o.spec = { status: 'kept', finalizers: ['kept'] };
    });
    expect(mutated(nested)).toEqual(withRecords(nested));
  });
});

describe('kind-specific pruning', () => {
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta, spec: { replicas: 2 } };
  const revisions = { 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1,2', team: 'a' };

  it('Deployment: the revision annotations go, others stay', () => {
    const withRevisions = changed(deployment, (o) => (o.metadata.annotations = revisions));
    expect(mutated(withRevisions)).toEqual(withRecords(changed(deployment, (o) => (o.metadata.annotations = { team: 'a' }))));
    const one = changed(deployment, (o) => (o.metadata.annotations = { 'deployment.kubernetes.io/revision': '3' }));
    expect(mutated(one)).toEqual(withRecords(changed(deployment, (o) => (o.metadata.annotations = {}))));
    expect(mutated(deployment)).toEqual(withRecords(deployment));
  });

  it('another kind keeps the revision annotations: the rule goes by kind', () => {
    const statefulSet = changed(deployment, (o) => {
      o.kind = 'StatefulSet';
      o.metadata.annotations = revisions;
    });
    expect(mutated(statefulSet)).toEqual(withRecords(statefulSet));
  });

  describe('Job', () => {
    const job = (spec: Obj) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default' }, spec });
    const generated = {
      selector: { matchLabels: { 'controller-uid': 'u1', 'batch.kubernetes.io/controller-uid': 'u1', app: 'pi' } },
      template: {
        metadata: { labels: { 'controller-uid': 'u1', 'job-name': 'pi', 'batch.kubernetes.io/controller-uid': 'u1', 'batch.kubernetes.io/job-name': 'pi', app: 'pi' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] },
      },
    };
    const pruned = {
      selector: { matchLabels: { app: 'pi' } },
      template: { metadata: { labels: { app: 'pi' } }, spec: generated.template.spec },
    };

    it.each([
      ['absent', {}],
      ['false', { manualSelector: false }],
      ['null', { manualSelector: null }],
    ])('manualSelector %s: the generated selector and template labels go', (_, manual) => {
      expect(mutated(job({ ...manual, ...generated }))).toEqual(withRecords(job({ ...manual, ...pruned })));
    });

    it('manualSelector true: the selector is the user\'s and stays', () => {
      const manual = job({ manualSelector: true, ...generated });
      expect(mutated(manual)).toEqual(withRecords(manual));
    });

    it.each(['controller-uid', 'batch.kubernetes.io/controller-uid'])('each selector label on its own: %s', (label) => {
      const one = job({ selector: { matchLabels: { [label]: 'u1' } } });
      expect(mutated(one)).toEqual(withRecords(job({ selector: { matchLabels: {} } })));
    });

    it.each(['controller-uid', 'job-name', 'batch.kubernetes.io/controller-uid', 'batch.kubernetes.io/job-name'])('each template label on its own: %s', (label) => {
      const one = job({ template: { metadata: { labels: { [label]: 'x', app: 'pi' } } } });
      expect(mutated(one)).toEqual(withRecords(job({ template: { metadata: { labels: { app: 'pi' } } } })));
    });

    it('ttlSecondsAfterFinished goes, whatever manualSelector says', () => {
      for (const manualSelector of [undefined, true, false]) {
        const spec = { ...(manualSelector !== undefined ? { manualSelector } : {}), template: generated.template };
        const expected = manualSelector === true ? spec : { ...spec, template: pruned.template };
        expect(mutated(job({ ...spec, ttlSecondsAfterFinished: 100 }))).toEqual(withRecords(job(expected)));
      }
    });

    it('a Job without selector, template, labels or spec gains only the records', () => {
      for (const spec of [{}, { selector: null, template: null }, { selector: {}, template: { metadata: {} } }, { selector: { matchLabels: null } }]) {
        expect(mutated(job(spec))).toEqual(withRecords(job(spec)));
      }
      const noSpec = { apiVersion: 'batch/v1', kind: 'Job', metadata: meta };
      expect(mutated(noSpec)).toEqual(withRecords(noSpec));
    });
  });

  describe('Secret', () => {
    const token = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: { name: 'build-token', namespace: 'ci', annotations: { 'kubernetes.io/service-account.name': 'build', 'kubernetes.io/service-account.uid': 'u1' } },
      data: { token: 'dG9rZW4=', 'ca.crt': 'Y2E=' },
    };
    const prunedToken = changed(token, (o) => {
      delete o.metadata.annotations['kubernetes.io/service-account.uid'];
      o.data = null;
    });

    it('a service-account token loses the account uid and its data, which the member cluster fills in', () => {
      expect(mutated(token)).toEqual(withRecords(prunedToken));
    });

    it('without data it gains data: null, as Karmada writes it; with data: null nothing changes there', () => {
      expect(mutated(changed(token, (o) => delete o.data))).toEqual(withRecords(prunedToken));
      const { patch } = applyDefaults(workOf(prunedToken));
      expect(patch.map((op) => op.path).filter((p) => p.endsWith('/data'))).toEqual([]);
    });

    it('other secrets keep everything', () => {
      for (const type of ['Opaque', 'kubernetes.io/tls', undefined]) {
        const other = changed(token, (o) => (type === undefined ? delete o.type : (o.type = type)));
        expect(mutated(other)).toEqual(withRecords(other));
      }
    });
  });

  describe('ServiceAccount', () => {
    const account = (secrets: unknown) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'build', namespace: 'ci' }, secrets });

    it('the token secrets the member cluster made for it go, others stay', () => {
      expect(mutated(account([{ name: 'build-token-x7k2p' }, { name: 'registry' }]))).toEqual(withRecords(account([{ name: 'registry' }])));
      expect(mutated(account([{ name: 'registry' }, { name: 'build-token-x7k2p' }]))).toEqual(withRecords(account([{ name: 'registry' }])));
      expect(mutated(account([{ name: 'build-token-a' }]))).toEqual(withRecords(account([])));
    });

    it("of two token secrets in a row the second stays, as Karmada's loop steps over it", () => {
      const two = account([{ name: 'build-token-a' }, { name: 'build-token-b' }, { name: 'registry' }, { name: 'build-token-c' }]);
      expect(mutated(two)).toEqual(withRecords(account([{ name: 'build-token-b' }, { name: 'registry' }])));
    });

    it("another account's tokens, and secrets without a name, stay", () => {
      const others = account([{ name: 'deploy-token-a' }, { name: 'build-tokens' }, {}, { name: null }, { namespace: 'ci' }]);
      expect(mutated(others)).toEqual(withRecords(others));
      for (const secrets of [[], undefined]) expect(mutated(account(secrets))).toEqual(withRecords(account(secrets)));
    });

    it('an account without a name matches secrets named -token-…, as Go reads the missing name as ""', () => {
      const nameless = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'ci' }, secrets: [{ name: '-token-a' }, { name: 'build-token-a' }] };
      expect(mutated(nameless)).toEqual(withRecords({ ...nameless, secrets: [{ name: 'build-token-a' }] }));
    });
  });

  describe('Service', () => {
    const service = (spec: Obj) => ({ apiVersion: 'v1', kind: 'Service', metadata: meta, spec: { ports: [{ port: 80 }], ...spec } });

    it('a cluster IP, and the list of them, go: the member cluster allocates its own', () => {
      expect(mutated(service({ clusterIP: '10.96.0.12', clusterIPs: ['10.96.0.12', 'fd00::12'] }))).toEqual(withRecords(service({})));
      expect(mutated(service({ clusterIP: '10.96.0.12' }))).toEqual(withRecords(service({})));
      expect(mutated(service({ clusterIP: '', clusterIPs: [] }))).toEqual(withRecords(service({})));
    });

    it('a headless Service keeps clusterIP None; without clusterIP the list stays too', () => {
      const headless = service({ clusterIP: 'None', clusterIPs: ['None'] });
      expect(mutated(headless)).toEqual(withRecords(headless));
      const listOnly = service({ clusterIPs: ['10.96.0.12'] });
      expect(mutated(listOnly)).toEqual(withRecords(listOnly));
      expect(mutated(service({}))).toEqual(withRecords(service({})));
    });
  });

  describe('PersistentVolumeClaim', () => {
    const claim = (annotations?: Obj) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { ...meta, ...(annotations ? { annotations } : {}) }, spec: { resources: { requests: { storage: '1Gi' } } } });

    it('the node the scheduler picked goes; an empty one stays', () => {
      expect(mutated(claim({ 'volume.kubernetes.io/selected-node': 'node-3', team: 'a' }))).toEqual(withRecords(claim({ team: 'a' })));
      expect(mutated(claim({ 'volume.kubernetes.io/selected-node': '' }))).toEqual(withRecords(claim({ 'volume.kubernetes.io/selected-node': '' })));
      expect(mutated(claim())).toEqual(withRecords(claim()));
    });
  });
});

describe('the records and the label on every manifest', () => {
  const configMap = (metadata: Obj | undefined) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...(metadata ? { metadata } : {}), data: {} });

  it("label the manifest with the Work's id, replacing another", () => {
    const stale = configMap({ ...meta, labels: { [PID]: 'an-older-id', app: 'a' } });
    expect(mutated(stale).metadata.labels).toEqual({ [PID]: ID, app: 'a' });
  });

  it('record every annotation and label key, sorted byte-wise as Go sorts, with the records themselves', () => {
    const m = mutated(configMap({ ...meta, labels: { 'z-last': '1', A: '2', b: '3' }, annotations: { 'example.com/b': 'x', 'Example.com/a': 'y' } }));
    expect(m.metadata.annotations[MA]).toBe(`Example.com/a,example.com/b,${MA},${ML}`);
    expect(m.metadata.annotations[ML]).toBe(`A,b,${PID},z-last`);
  });

  it('replace stale records, and leave correct ones alone', () => {
    const stale = configMap({ ...meta, labels: { app: 'a', [PID]: ID }, annotations: { [MA]: 'old', [ML]: 'old' } });
    expect(mutated(stale)).toEqual(withRecords(configMap({ ...meta, labels: { app: 'a' } })));
    const current = mutated(stale);
    expect(applyDefaults(workOf(current)).patch).toEqual([]);
  });

  it('give a manifest without metadata, labels or annotations what it lacks', () => {
    expect(mutated(configMap(undefined)).metadata).toEqual({ annotations: { [MA]: `${MA},${ML}`, [ML]: PID }, labels: { [PID]: ID } });
    expect(mutated(configMap({ ...meta, labels: null, annotations: null }))).toEqual(withRecords(configMap(meta)));
    expect(mutated(configMap({ ...meta, labels: {}, annotations: {} }))).toEqual(withRecords(configMap(meta)));
  });

  it('write a null label or annotation as "", as Go reads it', () => {
    const nulls = mutated(configMap({ ...meta, labels: { app: null }, annotations: { note: null } }));
    expect(nulls.metadata.labels).toEqual({ app: '', [PID]: ID });
    expect(nulls.metadata.annotations).toEqual({ note: '', [MA]: `note,${MA},${ML}`, [ML]: `app,${PID}` });
  });

  it('use a new id in every manifest when the Work gets one', () => {
    const work = changed(workOf(configMap(meta), configMap({ ...meta, name: 'b' })), (o) => delete o.metadata.labels);
    const { object } = applyDefaults(work, { uuid: () => 'fresh-id' }) as { object: Obj };
    expect(object.metadata.labels).toEqual({ [PID]: 'fresh-id' });
    expect(object.spec.workload.manifests.map((m: Obj) => m.metadata.labels[PID])).toEqual(['fresh-id', 'fresh-id']);
  });

  it('are the same on CREATE and UPDATE, and a mutated Work is left as it is (Karmada runs on every write)', () => {
    const manifest = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { ...meta, uid: 'u', annotations: { 'deployment.kubernetes.io/revision': '2' } }, status: {} };
    const onCreate = applyDefaults(workOf(manifest));
    const onUpdate = applyDefaults(workOf(manifest), { operation: 'UPDATE' });
    expect(onUpdate.patch).toEqual(onCreate.patch);
    expect(applyDefaults(onCreate.object, { operation: 'UPDATE' }).patch).toEqual([]);
  });

  it('leave a Work without manifests, or with no list of them, as it is but for its label', () => {
    for (const spec of [{ workload: { manifests: [] } }, { workload: {} }, {}, { workload: { manifests: 'none' } }]) {
      const work = { ...workOf(), spec };
      expect(applyDefaults(work)).toEqual({ object: work, patch: [] });
    }
  });
});

describe('compareCodePoints: Go sorts strings by their UTF-8 bytes', () => {
  it('orders as Buffer.compare orders the UTF-8 encodings', () => {
    const words = ['a', 'B', 'é', '\uffff', '\ue000', '😀', '\ud7ff', 'ab', 'a', '', '~', '\u0080', '𝔸', 'z'];
    const byBytes = [...words].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...words].sort(compareCodePoints)).toEqual(byBytes);
    // UTF-16 order would put the emoji before U+E000.
    expect([...words].sort()).not.toEqual(byBytes);
  });
});

describe('a manifest the mutation cannot read', () => {
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta };
  const M = (k: number, rest = '') => `spec.workload.manifests[${k}]${rest}`;

  /** The causes the mutation refuses the Work for, as {type, field}; no patch with them, not even the label. */
  function refusal(work: Obj): Want[] {
    const unlabelled = changed(work, (o) => delete o.metadata.labels);
    const result = applyDefaults(unlabelled, { uuid: () => ID });
    expect(result.patch).toEqual([]);
    expect(result.object).toBe(unlabelled);
    return (result.causes ?? []).map((c) => ({ type: c.type, field: c.field }));
  }

  it.each([
    ['a string', 'kind: ConfigMap', [Invalid(M(0))]],
    ['null', null, [Invalid(M(0))]],
    ['a list', [configMap], [Invalid(M(0))]],
    ['without kind', { apiVersion: 'v1', metadata: meta }, [Required(M(0, '.kind'))]],
    ['with an empty kind', { ...configMap, kind: '' }, [Required(M(0, '.kind'))]],
    ['with a kind that is no string', { ...configMap, kind: 7 }, [Invalid(M(0, '.kind'))]],
    ['with metadata that is no object', { ...configMap, metadata: 'app' }, [Invalid(M(0, '.metadata'))]],
    ['with null metadata', { ...configMap, metadata: null }, [Invalid(M(0, '.metadata'))]],
    ['with labels that are no object', { ...configMap, metadata: { ...meta, labels: 'app=a' } }, [Invalid(M(0, '.metadata.labels'))]],
    ['with an annotation that is no string', { ...configMap, metadata: { ...meta, annotations: { replicas: 2, ok: 'x', n: null } } }, [Invalid(M(0, '.metadata.annotations[replicas]'))]],
    ['a Job whose manualSelector is no boolean', { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { manualSelector: 'true' } }, [Invalid(M(0, '.spec.manualSelector'))]],
    ['a Job whose spec is no object', { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: [] }, [Invalid(M(0, '.spec'))]],
    ['a Job whose selector is no object', { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { selector: 'app=pi' } }, [Invalid(M(0, '.spec.selector'))]],
    ['a Job with a selector label that is no string', { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { selector: { matchLabels: { 'controller-uid': 5 } } } }, [Invalid(M(0, '.spec.selector.matchLabels[controller-uid]'))]],
    ['a Job whose template metadata is no object', { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { template: { metadata: 1 } } }, [Invalid(M(0, '.spec.template.metadata'))]],
    ['a Job whose template labels are no object', { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { template: { metadata: { labels: [] } } } }, [Invalid(M(0, '.spec.template.metadata.labels'))]],
    ['a ServiceAccount secret that is no object', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta, secrets: ['app-token-a'] }, [Invalid(M(0, '.secrets[0]'))]],
    ['a ServiceAccount secret whose name is no string', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta, secrets: [{ name: 1 }] }, [Invalid(M(0, '.secrets[0].name'))]],
  ] as [string, unknown, Want[]][])('%s is refused, naming the manifest and the field', (_, manifest, want) => {
    expect(refusal(workOf(configMap, manifest))).toEqual(want.map((w) => ({ ...w, field: w.field.replace('[0]', '[1]') })));
  });

  it('every cause at once, in one pass', () => {
    const work = workOf('x', { ...configMap, kind: '' }, configMap, { ...configMap, metadata: { ...meta, labels: { a: 1, b: 2 } } });
    expect(refusal(work)).toEqual([Invalid(M(0)), Required(M(1, '.kind')), Invalid(M(3, '.metadata.labels[a]')), Invalid(M(3, '.metadata.labels[b]'))]);
  });

  it("says why in the cause's message", () => {
    const { causes } = applyDefaults(workOf(5, { apiVersion: 'v1', metadata: meta }));
    expect(causes!.map((c) => c.message)).toEqual([
      'Invalid value: 5: must be of type object: a manifest is a Kubernetes object, with apiVersion, kind and metadata',
      "Required value: Object 'Kind' is missing: the member cluster cannot apply the manifest",
    ]);
  });

  it('a manifest that is fine in these fields but lacks what validation requires (apiVersion, name) is mutated as Karmada mutates it', () => {
    const loose = { kind: 'ConfigMap', data: {} };
    expect(mutated(loose)).toEqual(withRecords(loose));
  });

  it('the mutate webhook answers 422 Invalid with every cause, and no patch', () => {
    const work = workOf('x', { ...configMap, kind: 7 });
    const answer = review({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'UPDATE', object: work, oldObject: work } }, { mode: 'mutate', kind: 'Work' }) as any;
    expect(answer.response.patch).toBeUndefined();
    expect(answer.response).toMatchObject({
      uid: 'u',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: 'Work.work.karmada.io "w" is invalid: [spec.workload.manifests[0]: Invalid value: "x": must be of type object: a manifest is a Kubernetes object, with apiVersion, kind and metadata, spec.workload.manifests[1].kind: Invalid value: 7: must be a string]',
      },
    });
    expect(answer.response.status.details.causes.map((c: Obj) => c.field)).toEqual([M(0), M(1, '.kind')]);
  });

  it('refuses more than 10,000 manifests, which cannot be stored once labelled, without reading them; validate() says so too', () => {
    const tiny = (n: number) => workOf(...Array.from({ length: n }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } })));
    expect(applyDefaults(tiny(10_000)).patch).toHaveLength(20_000);
    const many = tiny(10_001);
    many.spec.workload.manifests.push('not even an object');
    expect(refusal(many)).toEqual([{ type: 'FieldValueTooMany', field: 'spec.workload.manifests' }]);
    expect(applyDefaults(many).causes![0]!.message).toBe(
      "Too many: 10002: must have at most 10000 items: each manifest gains Karmada's id label and records (some 300 bytes), so a Work of more cannot be stored (etcd keeps objects up to 1.5 MiB by default)",
    );
    expect(validate(tiny(10_001)).causes.map((c) => c.type)).toEqual(['FieldValueTooMany']);
    expect(validate(tiny(10_000)).causes.map((c) => c.type)).not.toContain('FieldValueTooMany');
  });

  it('lists at most 1,000 causes, and says there were more', () => {
    const many = workOf(...Array.from({ length: 1500 }, () => 1));
    const result = applyDefaults(many);
    expect(result.causes).toHaveLength(1000);
    expect(result.truncated).toBe(true);
    const answer = review({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', object: many } }, { mode: 'mutate' }) as any;
    expect(answer.response.status.details.causes).toHaveLength(1000);
    expect(answer.response.status.message).toMatch(/more causes not listed: fleetgate lists the first 1000\]$/);
  });
});

describe('validate() reports the fields the mutation refuses, so the CLI and the webhook agree', () => {
  const base = workOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta });
  const M = (rest: string) => `spec.workload.manifests[0]${rest}`;

  it.each([
    ['a label that is no string', (o: Obj) => (o.spec.workload.manifests[0].metadata.labels = { a: 1 }), [Invalid(M('.metadata.labels[a]'))]],
    ['annotations that are no object', (o: Obj) => (o.spec.workload.manifests[0].metadata.annotations = 'x'), [Invalid(M('.metadata.annotations'))]],
    ['a Job manualSelector that is no boolean', (o: Obj) => Object.assign(o.spec.workload.manifests[0], { apiVersion: 'batch/v1', kind: 'Job', spec: { manualSelector: 1 } }), [Invalid(M('.spec.manualSelector'))]],
    ['a ServiceAccount secret that is no object', (o: Obj) => Object.assign(o.spec.workload.manifests[0], { kind: 'ServiceAccount', secrets: [null] }), [Invalid(M('.secrets[0]'))]],
  ] as [string, (o: Obj) => void, Want[]][])('%s', (_, edit, want) => {
    expectCauses(changed(base, edit), want);
  });

  it('and allows what the mutation reads as absent', () => {
    const fine = changed(base, (o) =>
      o.spec.workload.manifests.push(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', labels: { a: null }, annotations: null } },
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { manualSelector: null, selector: { matchLabels: null }, template: null } },
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 's' }, secrets: [{}, { name: null }] },
      ),
    );
    expectCauses(fine, []);
    expect(validate(fine).warnings).toEqual([]);
  });
});
