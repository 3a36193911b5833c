import { describe, expect, it } from 'vitest';
import { validate } from '../src/decode/object.js';
import { withoutRepeats } from '../src/engine/field-error.js';
import { inObjectOrder } from '../src/engine/object-order.js';
import { invalid, required, type Cause } from '../src/engine/field.js';
import { examples } from './fixtures/index.js';
import { review, type AdmissionReview } from '../src/index.js';

const fields = (causes: Cause[]) => causes.map((c) => c.field);

describe('the causes of a verdict', () => {
  it('are listed identity, metadata, spec, status, each section in the order of its fields', () => {
    const object = { kind: 'K', metadata: { name: 'x' }, spec: { b: 1, a: 1 }, status: { x: 1 } };
    const causes = [invalid('status.x', 1, 'a'), invalid('spec.b', 1, 'b'), invalid('metadata.name', 'x', 'c'), invalid('spec.a', 1, 'd'), required('kind')];
    expect(fields(inObjectOrder(causes, object))).toEqual(['kind', 'metadata.name', 'spec.b', 'spec.a', 'status.x']);
    const ordered = [required('apiVersion'), invalid('metadata.name', 'x', 'c'), invalid('spec.a', 1, 'd')];
    expect(inObjectOrder(ordered, { apiVersion: 'v', metadata: {}, spec: { a: 1 } })).toBe(ordered);
    // Two causes of one field are in order too: the list comes back as it is.
    const oneField = [invalid('spec.a', 1, 'x'), invalid('spec.a', 1, 'y')];
    expect(inObjectOrder(oneField, { spec: { a: 1 } })).toBe(oneField);
  });

  it('follow the object: keys in the order it lists them, items by index, a field after the one it is in', () => {
    const object = { spec: { zeta: [{ b: 1, a: 1 }, { c: 1 }], alpha: { 'x.y/z': 1, w: 1 } }, metadata: { name: 'n' } };
    const found = ['metadata.name', 'spec.alpha[w]', 'spec.zeta[1].c', 'spec.zeta[0]', 'spec.zeta[0].a', 'spec.alpha[x.y/z]', 'spec.zeta[0].b', 'spec', ''];
    expect(fields(inObjectOrder(found.map((f) => invalid(f, 1, f)), object))).toEqual([
      '', 'spec', 'spec.zeta[0]', 'spec.zeta[0].b', 'spec.zeta[0].a', 'spec.zeta[1].c', 'spec.alpha[x.y/z]', 'spec.alpha[w]', 'metadata.name',
    ]);
  });

  it('put a field the object lacks after the fields it has at that level, in the order found', () => {
    const object = { spec: { a: 1, list: [{ x: 1 }] }, status: {} };
    const found = ['status.missing', 'spec.list[3]', 'spec.required', 'spec.list[0].missing', 'spec.list[0].x', 'spec.a', 'spec.other'];
    expect(fields(inObjectOrder(found.map((f) => required(f)), object))).toEqual([
      'spec.a', 'spec.list[0].x', 'spec.list[0].missing', 'spec.list[3]', 'spec.required', 'spec.other', 'status.missing',
    ]);
  });

  it('read every path shape: items past 9 and past the end by number, items of items, a path into a value, an unclosed bracket', () => {
    const object = { spec: { list: Array.from({ length: 12 }, () => ({})), grid: [[1, 2], [3, 4]], name: 'abc', z: 1 } };
    const found = ['spec.z', 'spec.name[1]', 'spec.name[0]', 'spec.grid[1][0]', 'spec.grid[0][1]', 'spec.list[15]', 'spec.list[11]', 'spec.list[2]', 'spec.list[13]', 'spec.grid[1', 'spec.grid[0][0]'];
    expect(fields(inObjectOrder(found.map((f) => invalid(f, 1, f)), object))).toEqual([
      'spec.list[2]', 'spec.list[11]', 'spec.list[13]', 'spec.list[15]', 'spec.grid[0][0]', 'spec.grid[0][1]', 'spec.grid[1', 'spec.grid[1][0]', 'spec.name[1]', 'spec.name[0]', 'spec.z',
    ]);
  });

  it('read a key where the object holds a list as a field the list lacks: after its items', () => {
    const object = { spec: { list: [{ a: 1 }, { a: 1 }], z: 1 } };
    const found = ['spec.z', 'spec.list[name]', 'spec.list[1].a', 'spec.list[name].a', 'spec.list[0]'];
    expect(fields(inObjectOrder(found.map((f) => required(f)), object))).toEqual(['spec.list[0]', 'spec.list[1].a', 'spec.list[name]', 'spec.list[name].a', 'spec.z']);
  });

  it('keep the order found among fields of one position, however many', () => {
    const object = { spec: { a: 1, b: 1 } };
    const found = ['spec.b', 'spec.x', 'spec.w', 'spec.v', 'spec.a', 'spec.u', 'spec.t', 'spec.s', 'spec.r', 'spec.b'];
    expect(fields(inObjectOrder(found.map((f, i) => invalid(f, i, f)), object))).toEqual(['spec.a', 'spec.b', 'spec.b', 'spec.x', 'spec.w', 'spec.v', 'spec.u', 'spec.t', 'spec.s', 'spec.r']);
    const sameField = [invalid('spec.b', 1, 'second'), invalid('spec.a', 1, 'x'), invalid('spec.b', 1, 'first')];
    expect(inObjectOrder(sameField, object).map((c) => c.message)).toEqual(['Invalid value: 1: x', 'Invalid value: 1: second', 'Invalid value: 1: first']);
  });

  it('find keys in large objects (indexed) as in small ones', () => {
    const labels = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${99 - i}`, 'v']));
    const found = ['metadata.labels[k0]', 'metadata.labels[k99]', 'metadata.labels[k50]', 'metadata.labels[nope]'];
    expect(fields(inObjectOrder(found.map((f) => invalid(f, 'v', 'bad')), { metadata: { labels } }))).toEqual([
      'metadata.labels[k99]', 'metadata.labels[k50]', 'metadata.labels[k0]', 'metadata.labels[nope]',
    ]);
  });

  it('rank keys as the object lists them: number-like keys first, own keys before inherited ones, either side of the scan', () => {
    const labels = { b: 'v', '10': 'v', a: 'v', '2': 'v' };
    expect(fields(inObjectOrder(['a', 'b', '10', '2'].map((k) => invalid(`metadata.labels[${k}]`, 'v', 'bad')), { metadata: { labels } }))).toEqual([
      'metadata.labels[2]', 'metadata.labels[10]', 'metadata.labels[b]', 'metadata.labels[a]',
    ]);
    const inheriting = Object.assign(Object.create({ first: 1 }) as Record<string, unknown>, { z: 1, y: 1 });
    expect(fields(inObjectOrder(['spec.y', 'spec.z'].map((f) => invalid(f, 1, 'bad')), { spec: inheriting }))).toEqual(['spec.z', 'spec.y']);
    // 32 keys are ranked by the scan, 33 by the index made of them: the same order either way.
    for (const width of [32, 33]) {
      const wide = Object.fromEntries(Array.from({ length: width }, (_, i) => [`k${width - 1 - i}`, 1]));
      const last = `spec.k${width - 1}`;
      expect(fields(inObjectOrder(['spec.k0', 'spec.k1', last].map((f) => invalid(f, 1, 'bad')), { spec: wide }))).toEqual([last, 'spec.k1', 'spec.k0']);
    }
  });

  it('list the keys of a large object once per ordering, however many causes step into it', () => {
    // Found by bench/reliability/fuzz.ts: 1,000 causes in metadata of 21,588 keys took 16 s,
    // for-in listing (and sorting) every key again for each cause. Counted here by a proxy.
    let listings = 0;
    const keys = Array.from({ length: 500 }, (_, i) => `k${499 - i}`);
    const metadata = new Proxy(Object.fromEntries(keys.map((k) => [k, 1])), {
      ownKeys: (target) => {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    const found = keys.slice(0, 200).reverse().map((k) => invalid(`metadata.${k}`, 1, 'bad'));
    expect(fields(inObjectOrder(found, { metadata }))).toEqual(keys.slice(0, 200).map((k) => `metadata.${k}`));
    expect(listings).toBeLessThanOrEqual(2);
  });

  it('of a schema mistake and a rule mistake are in object order: the MultiClusterIngress and Cluster of issue 21', () => {
    const ingress = structuredClone(examples.find((e) => e.kind === 'MultiClusterIngress')!) as Record<string, any>;
    ingress.spec.rules[0].http.paths[1].pathType = 'Bogus';
    ingress.spec.rules[0].http.paths[0].path = 'no-slash';
    expect(fields(validate(ingress).causes)).toEqual(['spec.rules[0].http.paths[0].path', 'spec.rules[0].http.paths[1].pathType']);

    const cluster = structuredClone(examples.find((e) => e.kind === 'Cluster')!) as Record<string, any>;
    cluster.spec.resourceModels[0].grade = 'x';
    cluster.spec.taints.push({ ...cluster.spec.taints[0] });
    const taints = cluster.spec.taints.length;
    expect(fields(validate(cluster).causes)).toEqual([`spec.taints[${taints - 1}]`, 'spec.resourceModels[0].grade']);
    // An object that lists resourceModels first has its mistake first.
    const { resourceModels, ...rest } = cluster.spec;
    cluster.spec = { resourceModels, ...rest };
    expect(fields(validate(cluster).causes)).toEqual(['spec.resourceModels[0].grade', `spec.taints[${taints - 1}]`]);
    // The message of a denial lists them in the same order.
    const answer = review(
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', object: ingress } },
      { mode: 'validate' },
    ) as AdmissionReview;
    expect(answer.response!.status!.message).toMatch(/is invalid: \[spec\.rules\[0\]\.http\.paths\[0\]\.path: .*, spec\.rules\[0\]\.http\.paths\[1\]\.pathType: /);
    expect(answer.response!.status!.details!.causes!.map((c) => c.field)).toEqual(['spec.rules[0].http.paths[0].path', 'spec.rules[0].http.paths[1].pathType']);
  });

  it('list warnings in object order too: an unknown field after the deprecated one it follows', () => {
    const cluster = structuredClone(examples.find((e) => e.kind === 'Cluster')!) as Record<string, any>;
    cluster.spec.zone = 'z1';
    cluster.spec.bogus = 1;
    const { warningDetails, warnings } = validate(cluster);
    expect(warningDetails.map((w) => w.field)).toEqual(['spec.zone', 'spec.bogus']);
    expect(warnings).toEqual(warningDetails.map((w) => w.message));
    // The other way round in the object, the other way round in the answer.
    const { bogus, ...spec } = cluster.spec;
    cluster.spec = { bogus, ...spec };
    expect(validate(cluster).warningDetails.map((w) => w.field)).toEqual(['spec.bogus', 'spec.zone']);
  });

  it('put a metadata mistake before a spec mistake the schema found first', () => {
    const cluster = structuredClone(examples.find((e) => e.kind === 'Cluster')!) as Record<string, any>;
    cluster.spec.syncMode = 'Sometimes';
    cluster.metadata.name = 'Bad_Name';
    expect(fields(validate(cluster).causes)).toEqual(['metadata.name', 'spec.syncMode']);
  });

  it('name a repeated cause once, in short and in long lists alike', () => {
    const a = invalid('spec.a', 1, 'x');
    const short = [a, invalid('spec.b', 1, 'x'), { ...a }, invalid('spec.a', 1, 'other')];
    expect(withoutRepeats(short).map((c) => `${c.field} ${c.message}`)).toEqual(['spec.a Invalid value: 1: x', 'spec.b Invalid value: 1: x', 'spec.a Invalid value: 1: other']);
    const long = Array.from({ length: 40 }, (_, i) => invalid(`spec.list[${i % 30}]`, i % 30, 'bad'));
    expect(fields(withoutRepeats(long))).toEqual(Array.from({ length: 30 }, (_, i) => `spec.list[${i}]`));
    // Same field and message, another type: two causes.
    const sameText = [required('spec.a', 'x'), { ...required('spec.a', 'x'), type: 'FieldValueInvalid' as const }];
    expect(withoutRepeats(sameText)).toHaveLength(2);
    const distinct = [a, invalid('spec.b', 1, 'x')];
    expect(withoutRepeats(distinct)).toBe(distinct);
  });

  it('name one mistake once: a bad apiVersion or name type is not also reported as unsupported or missing', () => {
    const cluster = structuredClone(examples.find((e) => e.kind === 'Cluster')!) as Record<string, any>;
    const kinds = (edit: (o: Record<string, any>) => void) => {
      const o = structuredClone(cluster);
      edit(o);
      return validate(o).causes.map((c) => [c.type, c.field]);
    };
    expect(kinds((o) => delete o.apiVersion)).toEqual([['FieldValueRequired', 'apiVersion']]);
    expect(kinds((o) => (o.apiVersion = ''))).toEqual([['FieldValueRequired', 'apiVersion']]);
    expect(kinds((o) => (o.apiVersion = 5))).toEqual([['FieldValueInvalid', 'apiVersion']]);
    expect(kinds((o) => (o.apiVersion = 'cluster.karmada.io/v1'))).toEqual([['FieldValueNotSupported', 'apiVersion']]);
    expect(kinds((o) => (o.metadata.name = 5))).toEqual([['FieldValueInvalid', 'metadata.name']]);
    // null is no name, as the API server reads it: the name is missing, said once.
    expect(kinds((o) => (o.metadata.name = null))).toEqual([['FieldValueRequired', 'metadata.name']]);
    expect(kinds((o) => delete o.metadata.name)).toEqual([['FieldValueRequired', 'metadata.name']]);
  });

  it('show a value that is no object as it is, not as its type', () => {
    expect(validate('hello').causes[0]!.message).toMatch(/^Invalid value: "hello": must be a Kubernetes object/);
  });
});
