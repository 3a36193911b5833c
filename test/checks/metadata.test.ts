import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { checkMetadata, checkMetadataUpdate } from '../../src/engine/metadata.js';
import { clusterName } from '../../src/checks/names.js';
import type { KindRules, RuleContext, Scope } from '../../src/engine/rule.js';
import { formatCause } from '../../src/engine/field.js';
import { Forbidden, Invalid, Required, TooLong, type Want } from '../helpers.js';

const kind = (scope: Scope, nameError?: (name: string) => string | undefined): KindRules =>
  ({ kind: 'Test', group: 'test', version: 'v1', plural: 'tests', scope, statusSubresource: false, schema: Type.Object({}), nameError }) as KindRules;

const namespaced = kind('Namespaced');
const clusterScoped = kind('Cluster');
const cluster = kind('Cluster', clusterName);

const context = (): RuleContext => ({ operation: 'CREATE', oldObject: undefined, subResource: '', groupDomain: 'karmada.io', options: {}, causes: [], warnings: [] });

function causes(rules: KindRules, metadata: unknown): Want[] {
  const ctx = context();
  checkMetadata(rules, metadata, ctx);
  return ctx.causes.map((c) => ({ type: c.type, field: c.field }));
}

function messages(rules: KindRules, metadata: unknown): string[] {
  const ctx = context();
  checkMetadata(rules, metadata, ctx);
  return ctx.causes.map(formatCause);
}

function updateMessages(metadata: unknown, old: unknown): string[] {
  const ctx = context();
  checkMetadataUpdate(namespaced, metadata, old, ctx);
  return ctx.causes.map(formatCause);
}

function updateCauses(metadata: unknown, old: unknown, rules: KindRules = namespaced): Want[] {
  const ctx = context();
  checkMetadataUpdate(rules, metadata, old, ctx);
  return ctx.causes.map((c) => ({ type: c.type, field: c.field }));
}

describe('checkMetadata: name and generateName', () => {
  it.each([
    ['a DNS subdomain name', { name: 'web.shop' }, []],
    ['no metadata', undefined, [Required('metadata.name')]],
    ['null metadata, which Go decodes as none', null, [Required('metadata.name')]],
    ['neither name nor generateName', {}, [Required('metadata.name')]],
    ['an empty name', { name: '' }, [Required('metadata.name')]],
    ['a name that is not a subdomain', { name: 'Web_Shop' }, [Invalid('metadata.name')]],
    ['a name of 253 characters', { name: 'a'.repeat(253) }, []],
    ['a name of 254 characters', { name: 'a'.repeat(254) }, [Invalid('metadata.name')]],
    ['generateName alone, ending in a dash', { generateName: 'web-' }, []],
    ['generateName alone, without a dash', { generateName: 'web' }, []],
    ['generateName that is not a prefix of a subdomain', { generateName: 'Web_' }, [Invalid('metadata.generateName')]],
    ['generateName starting with a dash', { generateName: '-web-' }, [Invalid('metadata.generateName')]],
    ['generateName ending in a dot', { generateName: 'web.' }, [Invalid('metadata.generateName')]],
    ['generateName of a dash alone', { generateName: '-' }, [Invalid('metadata.generateName')]],
    ['generateName of 253 characters with the dash', { generateName: `${'a'.repeat(252)}-` }, []],
    // apimachinery's maskTrailingDash puts one 'a' for the last two characters; the generator cuts a long prefix anyway.
    ['generateName of 254 characters with the dash, as apimachinery masks it', { generateName: `${'a'.repeat(253)}-` }, []],
    ['generateName of 255 characters with the dash', { generateName: `${'a'.repeat(254)}-` }, [Invalid('metadata.generateName')]],
    ['an empty generateName is no name', { generateName: '' }, [Required('metadata.name')]],
    ['name and a bad generateName: both checked', { name: 'web', generateName: 'Web-' }, [Invalid('metadata.generateName')]],
  ] as [string, unknown, Want[]][])('%s', (_name, metadata, want) => expect(causes(namespaced, metadata)).toEqual(want));

  it("uses the kind's own name syntax for name and generateName", () => {
    expect(causes(cluster, { name: 'm'.repeat(48) })).toEqual([]);
    expect(causes(cluster, { name: 'm'.repeat(49) })).toEqual([Invalid('metadata.name')]);
    expect(causes(cluster, { name: 'member.one' })).toEqual([Invalid('metadata.name')]);
    expect(causes(cluster, { generateName: 'member-' })).toEqual([]);
    expect(causes(cluster, { generateName: `${'m'.repeat(49)}-` })).toEqual([Invalid('metadata.generateName')]);
  });
});

describe('checkMetadata: namespace', () => {
  it('requires a DNS label as the namespace of a namespaced kind', () => {
    expect(causes(namespaced, { name: 'a', namespace: 'shop' })).toEqual([]);
    expect(causes(namespaced, { name: 'a', namespace: '' })).toEqual([]);
    expect(causes(namespaced, { name: 'a', namespace: 'n'.repeat(63) })).toEqual([]);
    expect(causes(namespaced, { name: 'a', namespace: 'n'.repeat(64) })).toEqual([Invalid('metadata.namespace')]);
    expect(causes(namespaced, { name: 'a', namespace: 'shop.eu' })).toEqual([Invalid('metadata.namespace')]);
    expect(causes(namespaced, { name: 'a', namespace: 'Shop' })).toEqual([Invalid('metadata.namespace')]);
  });
});

describe('checkMetadata: labels, annotations, finalizers, owner references', () => {
  it.each([
    ['valid labels', { labels: { app: 'web', 'example.com/tier': 'front_end', empty: '' } }, []],
    ['a label key that is not a qualified name', { labels: { 'bad key': 'x' } }, [Invalid('metadata.labels')]],
    ['a label key with two slashes', { labels: { 'a/b/c': 'x' } }, [Invalid('metadata.labels')]],
    ['a label value with a space', { labels: { app: 'web shop' } }, [Invalid('metadata.labels[app]')]],
    ['a label value of 64 characters', { labels: { app: 'v'.repeat(64) } }, [Invalid('metadata.labels[app]')]],
    ['a label value of 63 characters', { labels: { app: 'v'.repeat(63) } }, []],
    ['annotations with free values', { annotations: { 'example.com/note': 'any text: at all!' } }, []],
    ['an annotation key in upper case (compared lower-cased)', { annotations: { 'Example.COM/Note': 'x' } }, []],
    ['an annotation key that is not a qualified name', { annotations: { 'a b': 'x' } }, [Invalid('metadata.annotations')]],
    ['annotations of exactly 256 KiB', { annotations: { k: 'x'.repeat(256 * 1024 - 1) } }, []],
    ['annotations over 256 KiB', { annotations: { k: 'x'.repeat(256 * 1024) } }, [TooLong('metadata.annotations')]],
    ['annotations over 256 KiB in bytes, not characters', { annotations: { k: 'é'.repeat(128 * 1024) } }, [TooLong('metadata.annotations')]],
    ['qualified finalizers', { finalizers: ['example.com/cleanup', 'kubernetes', 'orphan'] }, []],
    ['a finalizer that is not a qualified name', { finalizers: ['ok', 'not ok'] }, [Invalid('metadata.finalizers[1]')]],
    ['orphan and foregroundDeletion together', { finalizers: ['orphan', 'foregroundDeletion'] }, [Invalid('metadata.finalizers')]],
    ['one controller owner', { ownerReferences: [{ controller: true }, { controller: false }, {}] }, []],
    ['two controller owners', { ownerReferences: [{ controller: true }, { controller: true }] }, [Invalid('metadata.ownerReferences')]],
    ['an Event as owner', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: '1' }, { apiVersion: 'v1', kind: 'Event', name: 'e', uid: '2' }] }, [Invalid('metadata.ownerReferences[1]')]],
    ['a v1 owner that is not an Event', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: '3' }] }, []],
    ['an Event of another group as owner', { ownerReferences: [{ apiVersion: 'events.k8s.io/v1', kind: 'Event', name: 'e', uid: '2' }] }, []],
  ] as [string, Record<string, unknown>, Want[]][])('%s', (_name, extra, want) => expect(causes(namespaced, { name: 'a', ...extra })).toEqual(want));

  it('leaves values of the wrong type to the schema pass', () => {
    expect(causes(namespaced, { name: 'a', labels: { app: 1 }, finalizers: [1], annotations: 'x' })).toEqual([]);
    expect(causes(namespaced, 'metadata')).toEqual([]);
    expect(causes(namespaced, { name: 'a', labels: { list: ['a b'], none: null } })).toEqual([]);
  });

  it('still sums the string annotations when another value has the wrong type', () => {
    expect(causes(namespaced, { name: 'a', annotations: { k: 'x'.repeat(256 * 1024), n: 1 } })).toEqual([TooLong('metadata.annotations')]);
  });

  it("judges a map's own entries only, not what a caller's object inherits", () => {
    const labels = Object.assign(Object.create({ 'bad key!': 'v' }) as object, { app: 'web' });
    const annotations = Object.create({ big: 'x'.repeat(300 * 1024) }) as object;
    expect(causes(namespaced, { name: 'a', labels, annotations })).toEqual([]);
  });
});

describe('checkMetadata: messages', () => {
  it.each([
    ['no metadata', undefined, 'metadata.name: Required value: name or generateName is required'],
    ['no name', {}, 'metadata.name: Required value: name or generateName is required'],
    ['orphan and foregroundDeletion', { name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, 'metadata.finalizers: Invalid value: "foregroundDeletion": finalizer orphan and foregroundDeletion cannot be both set'],
    [
      'two controllers',
      { name: 'a', ownerReferences: [{ controller: true }, { controller: true }] },
      'metadata.ownerReferences: Invalid value: [{"controller":true},{"controller":true}]: Only one reference can have Controller set to true',
    ],
    [
      'an Event as owner',
      { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '2' }] },
      'metadata.ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"2"}: v1 Event is disallowed from being an owner',
    ],
  ] as [string, unknown, string][])('%s', (_name, metadata, want) => expect(messages(namespaced, metadata)).toEqual([want]));

  it('warns that a namespace on a cluster-scoped kind is ignored, as the API server clears it before validation', () => {
    const ctx = context();
    checkMetadata(clusterScoped, { name: 'a', namespace: 'default' }, ctx);
    expect(ctx.causes).toEqual([]);
    expect(ctx.warnings).toEqual([
      { field: 'metadata.namespace', message: 'metadata.namespace: ignored: Test is cluster-scoped; the API server clears the namespace before it validates or stores the object' },
    ]);
    for (const metadata of [{ name: 'a', namespace: '' }, { name: 'a' }]) {
      const bare = context();
      checkMetadata(clusterScoped, metadata, bare);
      expect([...bare.causes, ...bare.warnings]).toEqual([]);
    }
  });
});

describe('checkMetadataUpdate', () => {
  const old = { name: 'web', namespace: 'shop', labels: { a: 'b' } };
  it('allows changing anything but name and namespace', () => {
    expect(updateCauses({ ...old, labels: { a: 'c' }, annotations: { x: 'y' } }, old)).toEqual([]);
  });
  it('keeps name and namespace immutable', () => {
    expect(updateCauses({ ...old, name: 'web2' }, old)).toEqual([Invalid('metadata.name')]);
    expect(updateCauses({ ...old, namespace: 'other' }, old)).toEqual([Invalid('metadata.namespace')]);
    expect(updateCauses({ labels: {} }, old)).toEqual([Invalid('metadata.name'), Invalid('metadata.namespace')]);
  });
  it('does not compare the namespace of a cluster-scoped kind, which the API server clears on both', () => {
    expect(updateCauses({ name: 'c', namespace: 'default' }, { name: 'c' }, clusterScoped)).toEqual([]);
    expect(updateCauses({ name: 'c2', namespace: 'default' }, { name: 'c' }, clusterScoped)).toEqual([Invalid('metadata.name')]);
  });
  it('treats an absent namespace and an empty one alike', () => {
    expect(updateCauses({ name: 'c', namespace: '' }, { name: 'c' })).toEqual([]);
  });
  it('keeps uid, and the deletion fields an update cannot set', () => {
    const stored = { ...old, uid: 'u1', creationTimestamp: '2026-11-01T00:00:00Z', generation: 3 };
    expect(updateCauses({ ...stored, labels: { a: 'c' } }, stored)).toEqual([]);
    expect(updateCauses({ ...stored, uid: 'u2' }, stored)).toEqual([Invalid('metadata.uid')]);
    // Left out, the API server takes the stored one.
    expect(updateCauses({ ...old }, stored)).toEqual([]);
    // Restored from storage before validation, so never a mistake worth a denial.
    expect(updateCauses({ ...stored, creationTimestamp: '2026-11-02T00:00:00Z', generation: 2 }, stored)).toEqual([]);
    expect(updateCauses({ ...stored, deletionTimestamp: '2026-11-22T00:00:00Z' }, stored)).toEqual([Invalid('metadata.deletionTimestamp')]);
    expect(updateCauses({ ...stored, deletionGracePeriodSeconds: 30 }, stored)).toEqual([Invalid('metadata.deletionGracePeriodSeconds')]);
    expect(updateCauses({ ...old, uid: 'u1' }, old)).toEqual([Invalid('metadata.uid')]);
  });

  it('treats a null or empty value as left out', () => {
    const stored = { ...old, uid: 'u1', deletionTimestamp: '2026-11-22T00:00:00Z', deletionGracePeriodSeconds: 30 };
    expect(updateCauses({ ...old, uid: '', deletionTimestamp: null, deletionGracePeriodSeconds: null }, stored)).toEqual([]);
    expect(updateCauses({ ...old, deletionTimestamp: null }, old)).toEqual([]);
  });

  it('allows keeping a grace period the stored object has', () => {
    const stored = { ...old, deletionTimestamp: '2026-11-22T00:00:00Z', deletionGracePeriodSeconds: 30 };
    expect(updateCauses({ ...stored }, stored)).toEqual([]);
  });

  it('leaves metadata that is not an object to the schema pass', () => {
    expect(updateCauses(undefined, old)).toEqual([]);
    expect(updateCauses('metadata', old)).toEqual([]);
    expect(updateCauses(old, undefined)).toEqual([]);
  });

  it('forbids new finalizers once the object is being deleted', () => {
    const deleting = { ...old, deletionTimestamp: '2026-11-22T00:00:00Z', deletionGracePeriodSeconds: 0, finalizers: ['a'] };
    expect(updateCauses({ ...deleting, finalizers: [] }, deleting)).toEqual([]);
    expect(updateCauses({ ...deleting, finalizers: ['a', 'b'] }, deleting)).toEqual([Forbidden('metadata.finalizers')]);
    expect(updateCauses({ ...deleting, labels: { a: 'c' } }, deleting)).toEqual([]);
    const { finalizers: _, ...withoutFinalizers } = deleting;
    expect(updateCauses({ ...deleting }, withoutFinalizers)).toEqual([Forbidden('metadata.finalizers')]);
    expect(updateCauses({ ...old, finalizers: ['a', 'b'] }, { ...old, finalizers: ['a'] })).toEqual([]);
  });

  it('says the field is immutable', () => {
    const ctx = context();
    checkMetadataUpdate(namespaced, { name: 'web2' }, { name: 'web' }, ctx);
    expect(ctx.causes[0]!.message).toBe('Invalid value: "web2": field is immutable');
    const stored = { name: 'web', uid: 'u1' };
    expect(updateMessages({ ...stored, uid: 'u2' }, stored)).toEqual(['metadata.uid: Invalid value: "u2": field is immutable']);
    expect(updateMessages({ ...stored, deletionGracePeriodSeconds: 30 }, stored)).toEqual(['metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable']);
  });

  it('says why a deletion timestamp or a new finalizer is refused', () => {
    const stored = { name: 'web' };
    expect(updateMessages({ ...stored, deletionTimestamp: '2026-11-22T00:00:00Z' }, stored)).toEqual([
      'metadata.deletionTimestamp: Invalid value: "2026-11-22T00:00:00Z": field is immutable; it is set by deleting the object',
    ]);
    const deleting = { ...stored, deletionTimestamp: '2026-11-22T00:00:00Z', finalizers: ['a'] };
    const [message] = updateMessages({ ...deleting, finalizers: ['a', 'b'] }, deleting);
    expect(message).toContain('metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted');
    expect(message).toContain('"b"');
  });

  it('names the new finalizers within the length a bad value is shown at', () => {
    const deleting = { name: 'web', deletionTimestamp: '2026-11-22T00:00:00Z', finalizers: ['a'] };
    const added = Array.from({ length: 100_000 }, (_, i) => `example.com/finalizer-${i}`);
    const [message] = updateMessages({ ...deleting, finalizers: ['a', ...added] }, deleting);
    expect(message).toMatch(/found new finalizers \["example\.com\/finalizer-0","example\.com\/finalizer-1",.*\.\.\.$/);
    expect(message!.length).toBeLessThan(400);
    expect(updateMessages({ ...deleting, finalizers: ['a', 'b', 'c'] }, deleting)).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ["b","c"]',
    ]);
  });
});
