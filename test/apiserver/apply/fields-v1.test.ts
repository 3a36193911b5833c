import { describe, expect, it } from 'vitest';
import { FieldSet, type Path } from '../../../src/apiserver/apply/field-set.js';
import { FieldsV1Error, fieldsV1Text, fromFieldsV1, fromFieldsV1Text, toFieldsV1 } from '../../../src/apiserver/apply/fields-v1.js';
import { compareStrings, goJson, goNumberV, goQuote, ENCODING_JSON, JSONITER_VALUE } from '../../../src/apiserver/apply/go-text.js';
import {
  compareElements,
  fieldElement as f,
  indexElement as i,
  keyElement,
  pathText,
  serializeElement,
  valueElement as v,
} from '../../../src/apiserver/apply/path-element.js';

const k = (fields: Record<string, unknown>) => keyElement(Object.entries(fields));
const set = (...paths: Path[]) => FieldSet.of(...paths);
const texts = (s: FieldSet) => s.paths().map(pathText);

describe('path elements', () => {
  it('order fields, then keys, then values, then indexes, as managed fields are written', () => {
    const sorted = [i(1), v('aa'), k({ name: 'b' }), f('b'), v(2), k({ name: 'a' }), f('a'), v(true), i(0), v(1)].sort(compareElements).map(serializeElement);
    expect(sorted).toEqual(['f:a', 'f:b', 'k:{"name":"a"}', 'k:{"name":"b"}', 'v:1', 'v:2', 'v:"aa"', 'v:true', 'i:0', 'i:1']);
  });

  it('order values numbers first, then strings, booleans, lists, maps, null', () => {
    const sorted = [v(null), v({ a: 1 }), v([1]), v(false), v('x'), v(-3.5)].sort(compareElements).map(serializeElement);
    expect(sorted).toEqual(['v:-3.5', 'v:"x"', 'v:false', 'v:[1]', 'v:{"a":1}', 'v:null']);
  });

  it('order strings by their UTF-8 bytes, as Go does, not by UTF-16 units', () => {
    // U+FF5E (3 bytes) sorts before U+1F600 (4 bytes) in UTF-8; in UTF-16 the surrogate 0xD83D comes first.
    expect(compareStrings('\uff5e', '\u{1f600}')).toBe(-1);
    expect('\uff5e' < '\u{1f600}').toBe(false);
    expect(compareStrings('a', 'ab')).toBe(-1);
    expect(compareStrings('b', 'ab')).toBe(1);
  });

  it('sort key fields by name and write them as json-iterator does', () => {
    expect(serializeElement(k({ protocol: 'TCP', port: 80 }))).toBe('k:{"port":80,"protocol":"TCP"}');
    // Values are HTML-escaped (json-iterator's value encoder); key names are not.
    expect(serializeElement(k({ 'a<b': 'x<y&z' }))).toBe('k:{"a<b":"x\\u003cy\\u0026z"}');
    expect(serializeElement(v('line\nbreak\u2028'))).toBe('v:"line\\nbreak\\u2028"');
    expect(serializeElement(v({ b: 1, a: [true, null] }))).toBe('v:{"a":[true,null],"b":1}');
  });

  it('print paths as kube prints them in conflicts', () => {
    expect(pathText([f('spec'), f('taints'), k({ key: 'a', effect: 'NoSchedule' }), f('value')])).toBe('.spec.taints[effect="NoSchedule",key="a"].value');
    expect(pathText([f('metadata'), f('finalizers'), v('x')])).toBe('.metadata.finalizers[="x"]');
    expect(pathText([f('list'), i(3)])).toBe('.list[3]');
    expect(pathText([f('ports'), k({ port: 8080.5 })])).toBe('.ports[port=8080.5]');
  });
});

describe('Go text', () => {
  it('quotes as %q', () => {
    expect(goQuote('plain')).toBe('"plain"');
    expect(goQuote('tab\there "q" \\ é \u0007 \u00a0')).toBe('"tab\\there \\"q\\" \\\\ é \\a \\u00a0"');
  });
  it('prints numbers as %v prints decoded JSON numbers', () => {
    expect(goNumberV(443)).toBe('443');
    expect(goNumberV(1.5)).toBe('1.5');
    expect(goNumberV(0.00001)).toBe('1e-05');
    expect(goNumberV(1234567.5)).toBe('1.2345675e+06');
  });
  it('writes JSON with sorted keys and the escapes of each encoder', () => {
    expect(goJson({ b: '\b', a: '<&>' }, ENCODING_JSON)).toBe('{"a":"\\u003c\\u0026\\u003e","b":"\\b"}');
    expect(goJson({ b: '\b' }, JSONITER_VALUE)).toBe('{"b":"\\u0008"}');
    expect(goJson({ z: 1, é: 2, e: 3 }, ENCODING_JSON)).toBe('{"e":3,"z":1,"é":2}');
  });
});

describe('FieldsV1', () => {
  const goldens = [
    // Every kind of step at one level, in the order kube writes them.
    '{"f:aaa":{},"f:aab":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:3":{},"v:\\"aa\\"":{},"v:true":{},"i:1":{},"i:4":{}}',
    // Nested steps, the self marker where a step is owned as well as leading further.
    '{"f:metadata":{"f:finalizers":{".":{},"v:\\"x\\"":{}},"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:taints":{".":{},"k:{\\"effect\\":\\"NoSchedule\\",\\"key\\":\\"a\\"}":{".":{},"f:effect":{},"f:key":{}}}}}',
    // Text outside ASCII is written as it is.
    '{"f:spec":{"f:apps":{"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:name":{}},"k:{\\"name\\":\\" app-🚀\\"}":{".":{},"f:name":{}}}}}',
    '{}',
  ];

  it.each(goldens)('reads and writes %s back byte for byte', (text) => {
    const s = fromFieldsV1Text(text);
    expect(fieldsV1Text(s)).toBe(text);
    expect(JSON.stringify(toFieldsV1(s))).toBe(text);
  });

  it('writes the same set the same way whatever the order it was built in', () => {
    const paths: Path[] = [[f('spec'), f('b')], [f('spec')], [f('spec'), k({ name: 'x' })], [f('spec'), k({ name: 'x' }), f('name')], [f('metadata'), f('labels'), f('a')], [f('spec'), f('a')]];
    const forward = fieldsV1Text(set(...paths));
    const backward = fieldsV1Text(set(...[...paths].reverse()));
    expect(forward).toBe(backward);
    expect(forward).toBe('{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{".":{},"f:a":{},"f:b":{},"k:{\\"name\\":\\"x\\"}":{".":{},"f:name":{}}}}');
  });

  it('reads a client-written set in any key order and spacing into the normal form', () => {
    const text = '{ "v: 3": {}, "k:{ \\"protocol\\":\\"udp\\",\\"port\\":443}": {}, "f:b": {}, "f:a": {"." : {}, "f:c": null} }';
    expect(fieldsV1Text(fromFieldsV1Text(text))).toBe('{"f:a":{".":{},"f:c":{}},"f:b":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:3":{}}');
  });

  it('drops steps of a kind it does not know, with what is under them', () => {
    expect(texts(fromFieldsV1({ 'f:a': { 'x:future': { 'f:b': {} } }, 'z:other': {} }))).toEqual(['.a']);
  });

  it.each([
    ['a key too short', { f: {} }, 'key must be 2 characters long:'],
    ['a key without a colon', { fx: {} }, 'missing colon: fx'],
    ['a value that is not JSON', { 'v:nope': {} }, 'cannot read the value of v:nope'],
    ['key fields that are not an object', { 'k:[1]': {} }, 'expected an object of key fields in k:[1]'],
    ['an index that is not a number', { 'i:x': {} }, 'strconv.Atoi: parsing "x": invalid syntax'],
    ['a step holding a number', { 'f:a': 1 }, 'expected an object at f:a, got 1'],
    ['a set that is not an object', [], 'expected an object at the top, got []'],
  ])('refuses %s', (_name, fields, message) => {
    expect(() => fromFieldsV1(fields)).toThrow(new FieldsV1Error(message));
  });

  it('keeps a key "__proto__" an ordinary key', () => {
    const s = fromFieldsV1(JSON.parse('{"f:__proto__":{"f:x":{}}}'));
    const out = toFieldsV1(s);
    expect(Object.keys(out)).toEqual(['f:__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('field sets', () => {
  const a = set([f('a')], [f('b'), f('c')], [f('b'), f('d')], [f('b')], [f('l'), v('x')]);
  const b = set([f('a')], [f('b'), f('c')], [f('e')], [f('l'), v('y')]);

  it('unite', () => {
    expect(texts(a.union(b))).toEqual(['.a', '.b', '.e', '.b.c', '.b.d', '.l[="x"]', '.l[="y"]']);
  });
  it('intersect, leaving out what only one holds', () => {
    expect(texts(a.intersection(b))).toEqual(['.a', '.b.c']);
  });
  it('subtract member by member: a parent leaves its children, children leave the parent', () => {
    expect(texts(a.difference(b))).toEqual(['.b', '.b.d', '.l[="x"]']);
    expect(texts(a.difference(set([f('b')])))).toEqual(['.a', '.b.c', '.b.d', '.l[="x"]']);
  });
  it('subtract recursively: a member takes what is under it', () => {
    expect(texts(a.recursiveDifference(set([f('b')])))).toEqual(['.a', '.l[="x"]']);
  });
  it('answer membership of exact paths only', () => {
    expect(a.has([f('b'), f('c')])).toBe(true);
    expect(a.has([f('l')])).toBe(false);
    expect(a.has([])).toBe(false);
    expect(a.size()).toBe(5);
    expect(set().empty()).toBe(true);
    expect(a.union(b).equals(b.union(a))).toBe(true);
    expect(a.equals(b)).toBe(false);
  });
});
