/**
 * Karmada's permanent-id labels: Work and MultiClusterService get one on CREATE and UPDATE,
 * ClusterResourceBinding on CREATE only, whenever the label is missing or empty.
 */
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../src/index.js';
import { review } from '../../src/admission/review.js';
import type { Operation } from '../../src/engine/rule.js';
import { mcs } from '../fixtures/multiclusterservice.js';
import { binding } from '../fixtures/clusterresourcebinding.js';
import { changed } from '../helpers.js';

const work = {
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: { name: 'w', namespace: 'karmada-es-member1', labels: { team: 'a' } },
  spec: { workload: { manifests: [] } },
};

const KINDS = [
  { kind: 'Work', object: work, label: 'work.karmada.io/permanent-id', operations: ['CREATE', 'UPDATE'] },
  { kind: 'MultiClusterService', object: mcs, label: 'multiclusterservice.karmada.io/permanent-id', operations: ['CREATE', 'UPDATE'] },
  { kind: 'ClusterResourceBinding', object: binding, label: 'clusterresourcebinding.karmada.io/permanent-id', operations: ['CREATE'] },
] as const;

const ID = '11111111-2222-4333-8444-555555555555';
const pointer = (label: string) => `/metadata/labels/${label.replace('/', '~1')}`;

/** The patch, with a UUID source that counts its calls. */
function defaulted(object: unknown, operation: Operation) {
  let calls = 0;
  const result = applyDefaults(object, { operation, uuid: () => (calls++, ID) });
  return { ...result, calls };
}

describe.each(KINDS)('$kind permanent-id label', ({ object, label, operations }) => {
  const withLabels = (labels: unknown) => changed(object, (o) => (o.metadata.labels = labels));
  const others = (object.metadata as { labels: Record<string, string> }).labels;
  const withoutId = Object.fromEntries(Object.entries(others).filter(([k]) => k !== label));

  describe.each(operations)('on %s', (operation) => {
    it('adds the label to the labels there are, or the labels to the metadata', () => {
      expect(defaulted(withLabels(withoutId), operation)).toMatchObject({ patch: [{ op: 'add', path: pointer(label), value: ID }], calls: 1 });
      expect(defaulted(withLabels(undefined), operation).patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { [label]: ID } }]);
      expect(defaulted(withLabels(null), operation).patch).toEqual([{ op: 'replace', path: '/metadata/labels', value: { [label]: ID } }]);
      expect(defaulted(changed(object, (o) => delete o.metadata), operation).patch).toEqual([{ op: 'add', path: '/metadata', value: { labels: { [label]: ID } } }]);
      const { object: result } = defaulted(withLabels(withoutId), operation);
      expect((result as any).metadata.labels).toEqual({ ...withoutId, [label]: ID });
    });

    it('replaces an empty or null value', () => {
      for (const value of ['', null]) {
        expect(defaulted(withLabels({ ...withoutId, [label]: value }), operation)).toMatchObject({ patch: [{ op: 'replace', path: pointer(label), value: ID }], calls: 1 });
      }
    });

    it('keeps a present value, and asks for no UUID', () => {
      const labelled = withLabels({ ...withoutId, [label]: 'kept' });
      expect(defaulted(labelled, operation)).toEqual({ object: labelled, patch: [], calls: 0 });
    });

    it('writes nothing into metadata or labels of a shape no object has: validation reports them', () => {
      for (const bad of [withLabels('team=a'), withLabels([label]), withLabels({ [label]: 7 }), changed(object, (o) => (o.metadata = 'm'))]) {
        expect(defaulted(bad, operation)).toEqual({ object: bad, patch: [], calls: 0 });
      }
    });
  });

  it(`takes a new random v4 UUID from crypto.randomUUID by default`, () => {
    const first = applyDefaults(withLabels(undefined)).object as any;
    const second = applyDefaults(withLabels(undefined)).object as any;
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(first.metadata.labels[label]).toMatch(uuid);
    expect(second.metadata.labels[label]).toMatch(uuid);
    expect(first.metadata.labels[label]).not.toBe(second.metadata.labels[label]);
  });
});

describe('a label removed on UPDATE', () => {
  it('gets a new id on a Work and a MultiClusterService: Karmada does not protect it', () => {
    for (const { object, label } of KINDS.slice(0, 2)) {
      const stored = changed(object, (o) => (o.metadata.labels[label] = 'the-old-id'));
      const removed = changed(stored, (o) => delete o.metadata.labels[label]);
      const review_ = reviewOf(removed, { operation: 'UPDATE', oldObject: stored });
      const answer = review(review_, { mode: 'mutate', uuid: () => ID }) as any;
      expect(answer.response.allowed).toBe(true);
      expect(patchOf(answer)).toEqual([{ op: 'add', path: pointer(label), value: ID }]);
    }
  });

  it('stays removed on a ClusterResourceBinding, which Karmada mutates on CREATE only', () => {
    const label = KINDS[2].label;
    const removed = changed(binding, (o) => delete o.metadata.labels[label]);
    const answer = review(reviewOf(removed, { operation: 'UPDATE', oldObject: binding }), { mode: 'mutate', uuid: () => ID }) as any;
    expect(answer.response).toEqual({ uid: 'u', allowed: true });
    // The same object is labelled on CREATE.
    expect(patchOf(review(reviewOf(removed), { mode: 'mutate', uuid: () => ID }))).toEqual([{ op: 'add', path: pointer(label), value: ID }]);
  });
});

describe('the mutate webhook paths', () => {
  it.each(KINDS)('label a $kind, and answer a status write with no patch', ({ object, label }) => {
    const unlabelled = changed(object, (o) => delete o.metadata.labels[label]);
    for (const kind of [undefined, object.kind]) {
      const answer = review(reviewOf(unlabelled), { mode: 'mutate', kind, uuid: () => ID });
      expect(patchOf(answer)).toEqual([{ op: 'add', path: pointer(label), value: ID }]);
    }
    const status = review(reviewOf(unlabelled, { operation: 'UPDATE', oldObject: unlabelled, subResource: 'status' }), { mode: 'mutate', uuid: () => ID }) as any;
    expect(status.response).toEqual({ uid: 'u', allowed: true });
  });
});

describe('the patch', () => {
  it("applies to the object the API server holds, even one without the namespace the request names", () => {
    const bare = { apiVersion: 'networking.karmada.io/v1alpha1', kind: 'MultiClusterService', spec: { types: ['CrossCluster'] } };
    const answer = review(reviewOf(bare, { namespace: 'shop' }), { mode: 'mutate', uuid: () => ID });
    expect(patchOf(answer)).toEqual([{ op: 'add', path: '/metadata', value: { labels: { [KINDS[1].label]: ID } } }]);
  });
});

function reviewOf(object: any, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', namespace: object.metadata?.namespace, object, ...extra } };
}

function patchOf(answer: unknown): unknown {
  const response = (answer as { response: { patch?: string; patchType?: string } }).response;
  expect(response.patchType).toBe('JSONPatch');
  return JSON.parse(Buffer.from(response.patch!, 'base64').toString());
}
