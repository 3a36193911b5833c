import { describe, expect, it } from 'vitest';
import { KeyIndex, prefixEnd } from '../../../src/apiserver/storage/key-index.js';
import { decodeObject, encodeObject, unchanged } from '../../../src/apiserver/storage/stored-value.js';

describe('stored text', () => {
  it('leaves resourceVersion out of the text and stamps the revision on the way out', () => {
    const object = { kind: 'K', metadata: { name: 'a', resourceVersion: '7' }, spec: { x: 1 } };
    const text = encodeObject(object);
    expect(JSON.parse(text)).toEqual({ kind: 'K', metadata: { name: 'a' }, spec: { x: 1 } });
    expect(object.metadata.resourceVersion).toBe('7');
    expect(decodeObject(text, 12)).toEqual({ kind: 'K', metadata: { name: 'a', resourceVersion: '12' }, spec: { x: 1 } });
  });

  it('gives an object without metadata one to carry its resourceVersion', () => {
    expect(decodeObject(encodeObject({ kind: 'K' }), 3)).toEqual({ kind: 'K', metadata: { resourceVersion: '3' } });
  });

  it('refuses what is not a JSON object', () => {
    expect(() => encodeObject([] as never)).toThrow(TypeError);
    expect(() => encodeObject(null as never)).toThrow(TypeError);
  });

  it('counts as unchanged only equal JSON', () => {
    const stored = encodeObject({ a: 1, b: { c: [1, 2] } });
    expect(unchanged(encodeObject({ b: { c: [1, 2] }, a: 1 }), stored)).toBe(true);
    expect(unchanged(encodeObject({ b: { c: [1, 2] }, a: 1, metadata: undefined }), stored)).toBe(true); // JSON has no undefined
    expect(unchanged(encodeObject({ a: 1, b: { c: [2, 1] } }), stored)).toBe(false);
    expect(unchanged(encodeObject({ a: 1, b: { c: [1, 2] }, d: null }), stored)).toBe(false);
  });
});

describe('key index', () => {
  it('bounds a prefix range by the next key after every key starting with it', () => {
    expect(prefixEnd('/g/p/ns1/')).toBe('/g/p/ns10');
    expect(prefixEnd('')).toBeUndefined();
    expect(prefixEnd('a\uffff')).toBe('b');
  });

  it('iterates a range in key order and counts by position', () => {
    const index = new KeyIndex();
    for (const key of ['/p/b', '/p/a', '/q/a', '/p/c', '/o/z']) index.set(key, { value: key, revision: 1 });
    expect([...index.range('/p/', prefixEnd('/p/'))].map(([key]) => key)).toEqual(['/p/a', '/p/b', '/p/c']);
    expect(index.count('/p/b', prefixEnd('/p/'))).toBe(2);
    expect(index.count('/p/', undefined)).toBe(4);
    expect(index.count('/z', undefined)).toBe(0);
    index.delete('/p/b');
    expect(index.count('/p/', prefixEnd('/p/'))).toBe(2);
  });
});
