import { describe, expect, it } from 'vitest';
import { FieldPath } from '../src/engine/path.js';
import { child, index, invalid, key, pathOf, required } from '../src/engine/field.js';
import { validate } from '../src/decode/object.js';
import { examples } from './fixtures/index.js';

describe('FieldPath', () => {
  const rule = FieldPath.root.child('spec').child('rules').index(1).child('name');

  it('renders as Kubernetes renders a path', () => {
    expect(String(rule)).toBe('spec.rules[1].name');
    expect(String(FieldPath.root.child('spec').child('overall').key('cpu'))).toBe('spec.overall[cpu]');
    expect(String(FieldPath.root.child('webhooks').index(0))).toBe('webhooks[0]');
    expect(String(FieldPath.root)).toBe('');
  });

  it('gives its steps, an index as a number and a key as a string', () => {
    expect(rule.segments()).toEqual(['spec', 'rules', 1, 'name']);
    expect(FieldPath.root.child('metadata').child('labels').key('app.kubernetes.io/name').segments()).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
    expect(FieldPath.root.segments()).toEqual([]);
  });

  it('names its section, the top-level field', () => {
    expect(rule.section).toBe('spec');
    expect(FieldPath.root.child('webhooks').index(0).child('name').section).toBe('webhooks');
    expect(FieldPath.root.section).toBe('');
  });

  it('reads a path from its text, keys with dots and slashes included, and renders it as given', () => {
    for (const text of ['spec.rules[1].name', 'metadata.labels[app.kubernetes.io/name]', 'spec.overall[cpu]', 'kind', '']) {
      expect(String(FieldPath.parse(text))).toBe(text);
    }
    expect(FieldPath.parse('spec.rules[1].name').segments()).toEqual(['spec', 'rules', 1, 'name']);
    expect(FieldPath.parse('metadata.labels[app.kubernetes.io/name]').segments()).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
    expect(FieldPath.parse('spec.overall[cpu]').section).toBe('spec');
  });
});

describe('causes made from a path value', () => {
  it('keep the path, render the same text as one made from the text, and stay plain JSON', () => {
    const path = FieldPath.root.child('spec').child('taints').index(0).child('effect');
    const fromPath = invalid(path, 'Foo', 'bad');
    expect(fromPath).toStrictEqual(invalid('spec.taints[0].effect', 'Foo', 'bad'));
    expect(fromPath.path).toBe(path);
    expect(JSON.parse(JSON.stringify(fromPath))).toEqual({ type: 'FieldValueInvalid', field: 'spec.taints[0].effect', badValue: 'Foo', message: 'Invalid value: "Foo": bad' });
    expect(pathOf(fromPath)).toBe(path);
    expect(pathOf(required('spec.x[2]')).segments()).toEqual(['spec', 'x', 2]);
  });

  it('child, index and key build either form alike', () => {
    expect(String(key(index(child(FieldPath.root.child('spec'), 'a'), 3), 'k'))).toBe(key(index(child('spec', 'a'), 3), 'k'));
  });
});

describe('the verdicts keep their paths', () => {
  /** Every value of `object` broken a few ways, one at a time: the rules and the schema each get a say. */
  function* broken(object: unknown): Generator<unknown> {
    const places: (string | number)[][] = [];
    const walk = (node: unknown, at: (string | number)[]) => {
      places.push(at);
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...at, i]));
      else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, [...at, k]);
    };
    walk(object, []);
    for (const place of places.slice(1)) {
      const value = place.reduce<unknown>((node, step) => (node as Record<string | number, unknown>)[step], object);
      const replacements: unknown[] = Array.isArray(value) && value.length ? [[...value, value[0]]] : typeof value === 'string' ? ['', 'Not Valid!'] : typeof value === 'number' ? [-1, 1.5] : [];
      for (const replacement of replacements) {
        const copy = structuredClone(object) as Record<string | number, unknown>;
        const parent = place.slice(0, -1).reduce<Record<string | number, unknown>>((node, step) => node[step] as Record<string | number, unknown>, copy);
        parent[place[place.length - 1]!] = replacement;
        yield copy;
      }
    }
  }

  it('every cause and warning, of the schema and of every kind rules, carries the path its field renders', () => {
    let causes = 0;
    const types = new Set<string>();
    for (const example of examples) {
      for (const object of broken(example)) {
        for (const result of [validate(object), validate(object, { operation: 'UPDATE', oldObject: example })]) {
          for (const item of [...result.causes, ...result.warningDetails]) {
            expect(item.path, `${String(example.kind)} ${item.field}: ${item.message}`).toBeInstanceOf(FieldPath);
            expect(String(item.path)).toBe(item.field);
          }
          causes += result.causes.length;
          for (const c of result.causes) types.add(c.type);
        }
      }
    }
    // Not a vacuous pass: the broken objects reach the rules (duplicates are theirs, not the schema's).
    expect(causes).toBeGreaterThan(1000);
    expect(types).toContain('FieldValueDuplicate');
  });
});
