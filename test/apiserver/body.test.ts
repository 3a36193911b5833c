/** Decoding request bodies: duplicate keys reported as kube-apiserver's strict decoder words them. */
import { describe, expect, it } from 'vitest';
import { decodeJson } from '../../src/apiserver/body.js';

const dups = (text: string) => decodeJson(text, 'x', true).duplicates;

describe('decodeJson', () => {
  it('finds no duplicate where there is none, whatever colons and quotes the strings hold', () => {
    expect(dups('{"a":"https://x:1/\\":b","b":{"c":[{"d":"08:00:00Z"},{"d":1}]},"e\\"f:":2}')).toEqual([]);
    expect(dups('[{"a":1},{"a":2}]')).toEqual([]);
  });

  it('names each repeated key once, at any depth, in arrays too', () => {
    expect(dups('{"a":1,"a":2,"a":3}')).toEqual(['duplicate field "a"']);
    expect(dups('{"spec":{"x":{"y":1,"y":2}},"list":[{"k":1,"k":2}]}')).toEqual(['duplicate field "y"', 'duplicate field "k"']);
    expect(dups(String.raw`{"a\"b":1,"a\"b":2}`)).toEqual([String.raw`duplicate field "a\"b"`]);
  });

  it('does not look unless asked (fieldValidation=Ignore)', () => {
    expect(decodeJson('{"a":1,"a":2}', 'x', false)).toEqual({ value: { a: 2 }, duplicates: [] });
  });

  it('a body that is not JSON is a 400 naming what could not be decoded', () => {
    expect(() => decodeJson('{"a":', 'Cluster in version "v1alpha1" cannot be handled as a Cluster', true)).toThrow(/^Cluster in version "v1alpha1" cannot be handled as a Cluster: /);
  });
});
