import { describe, expect, it } from 'vitest';
import { DELETION_PROTECTED_MESSAGE, DELETION_PROTECTION_LABEL, review, validate, type AdmissionReview } from '../src/index.js';
import { examples } from './fixtures/index.js';
import { changed } from './helpers.js';

// Karmada's words (pkg/webhook/resourcedeletionprotection/validating.go), spelt out here so a change to the constant shows.
const KARMADA_MESSAGE = 'This resource is protected, please make sure to remove the label: resourcetemplate.karmada.io/deletion-protected';
const LABEL_FIELD = 'metadata.labels[resourcetemplate.karmada.io/deletion-protected]';

const labelled = <T>(object: T, value: unknown): T => changed(object, (o) => (o.metadata.labels = { ...o.metadata.labels, [DELETION_PROTECTION_LABEL]: value }));

describe('deletion protection in validate()', () => {
  it('refuses to DELETE an object of every kind labelled deletion-protected: Always, with Karmada\'s message at the label', () => {
    expect(DELETION_PROTECTED_MESSAGE).toBe(KARMADA_MESSAGE);
    for (const example of examples) {
      const result = validate(labelled(example, 'Always'), { operation: 'DELETE' });
      expect(result.allowed, example.kind as string).toBe(false);
      expect(result).toStrictEqual({
        allowed: false,
        causes: [{ type: 'FieldValueForbidden', field: LABEL_FIELD, message: `Forbidden: ${KARMADA_MESSAGE}` }],
        warnings: [],
        warningDetails: [],
      });
      // Only a DELETE: the label is no reason to refuse a write.
      expect(validate(labelled(example, 'Always')).allowed).toBe(true);
    }
  });

  it('allows a DELETE without the label, or with any other value, `always` and `true` included, as Karmada does', () => {
    for (const value of ['always', 'true', 'Never', '', ' Always']) {
      expect(validate(labelled(examples[0], value), { operation: 'DELETE' }).allowed, value).toBe(true);
    }
    expect(validate(examples[0], { operation: 'DELETE' }).allowed).toBe(true);
    expect(validate(changed(examples[0], (o) => (o.metadata.annotations = { [DELETION_PROTECTION_LABEL]: 'Always' })), { operation: 'DELETE' }).allowed).toBe(true);
  });

  it('judges the stored object, oldObject, as an AdmissionReview DELETE carries it; the object only without one', () => {
    const stored = labelled(examples[0], 'Always');
    expect(validate(undefined, { operation: 'DELETE', oldObject: stored }).allowed).toBe(false);
    expect(validate(examples[0], { operation: 'DELETE', oldObject: stored }).allowed).toBe(false);
    expect(validate(stored, { operation: 'DELETE', oldObject: examples[0] }).allowed).toBe(true);
    expect(validate(stored, { operation: 'DELETE', oldObject: null }).allowed).toBe(false);
  });

  it('reads nothing else of the object: an invalid one may be deleted, and the rule holds for any kind', () => {
    const invalid = changed(examples[0], (o) => (o.spec = 'nonsense'));
    expect(validate(invalid, { operation: 'DELETE' }).allowed).toBe(true);
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { [DELETION_PROTECTION_LABEL]: 'Always' } } };
    expect(validate(deployment, { operation: 'DELETE' }).causes.map((c) => c.field)).toEqual([LABEL_FIELD]);
    for (const odd of [undefined, null, 'text', { metadata: null }, { metadata: { labels: ['Always'] } }]) {
      expect(validate(odd, { operation: 'DELETE' }).allowed).toBe(true);
    }
  });
});

const cluster = examples.find((e) => e.kind === 'Cluster')!;
const deleteReview = (oldObject: unknown, request: Record<string, unknown> = {}) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u1', operation: 'DELETE', name: 'member1', kind: { group: 'cluster.karmada.io', version: 'v1alpha1', kind: 'Cluster' }, object: null, oldObject, ...request },
});
const answer = (input: unknown, options: Parameters<typeof review>[1]) => (review(input, options) as AdmissionReview).response!;

describe('deletion protection in review()', () => {
  const denial = {
    uid: 'u1',
    allowed: false,
    status: {
      code: 403,
      reason: 'Forbidden',
      message: KARMADA_MESSAGE,
      details: { name: 'member1', group: 'cluster.karmada.io', kind: 'Cluster', causes: [{ reason: 'FieldValueForbidden', field: LABEL_FIELD, message: `Forbidden: ${KARMADA_MESSAGE}` }] },
    },
  };

  it('denies the DELETE of a protected object on the kind\'s path and on /validate: 403 with Karmada\'s message', () => {
    expect(answer(deleteReview(labelled(cluster, 'Always')), { mode: 'validate', kind: 'Cluster' })).toEqual(denial);
    expect(answer(deleteReview(labelled(cluster, 'Always')), { mode: 'validate' })).toEqual(denial);
    expect(answer(deleteReview(cluster), { mode: 'validate', kind: 'Cluster' })).toEqual({ uid: 'u1', allowed: true });
    // The mutating webhook has nothing to say on a DELETE.
    expect(answer(deleteReview(labelled(cluster, 'Always')), { mode: 'mutate', kind: 'Cluster' })).toEqual({ uid: 'u1', allowed: true });
  });

  it('on Karmada\'s own path: any kind, only DELETE, and a 400 for a DELETE without the stored object, as Karmada answers', () => {
    const protect = { mode: 'deletion-protection' } as const;
    expect(answer(deleteReview(labelled(cluster, 'Always')), protect)).toEqual(denial);
    expect(answer(deleteReview(cluster), protect)).toEqual({ uid: 'u1', allowed: true });
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', labels: { [DELETION_PROTECTION_LABEL]: 'Always' } } };
    const deploymentDelete = deleteReview(deployment, { name: 'web', namespace: 'shop', kind: { group: 'apps', version: 'v1', kind: 'Deployment' } });
    expect(answer(deploymentDelete, protect)).toMatchObject({ allowed: false, status: { code: 403, message: KARMADA_MESSAGE, details: { kind: 'Deployment', group: 'apps', name: 'web' } } });
    // Without request.kind, the stored object names its kind and group.
    const bare = deleteReview(deployment, { kind: undefined });
    expect(answer(bare, protect)).toMatchObject({ allowed: false, status: { details: { kind: 'Deployment', group: 'apps' } } });
    // Not a DELETE: allowed unread, whatever the object is, as Karmada's handler does.
    for (const operation of ['CREATE', 'UPDATE', 'CONNECT']) {
      expect(answer(deleteReview(labelled(cluster, 'Always'), { operation, object: 'not an object' }), protect)).toEqual({ uid: 'u1', allowed: true });
    }
    expect(answer(deleteReview(null), protect)).toEqual({ uid: 'u1', allowed: false, status: { code: 400, message: 'there is no content to decode: request.oldObject is empty (a DELETE carries the stored object)' } });
    expect(answer(deleteReview('text'), protect)).toEqual({ uid: 'u1', allowed: false, status: { code: 400, message: 'request.oldObject is not a JSON object' } });
  });
});
