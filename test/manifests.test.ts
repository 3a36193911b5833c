import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseManifests, streamManifests, type ReadProblem } from '../src/input/manifests.js';

/** Parses `lines` (joined with `eol`) and answers the lines of `fields` in its `index`th object. */
function linesOf(lines: string[], fields: string[], { index = 0, eol = '\n' } = {}): Record<string, number> {
  const { manifests, problems } = parseManifests(lines.join(eol) + eol, 'm.yaml');
  expect(problems).toEqual([]);
  const manifest = manifests[index]!;
  return Object.fromEntries(fields.map((f) => [f, manifest.source.lineOf(f)]));
}

const cluster = [
  /* 1 */ 'apiVersion: cluster.karmada.io/v1alpha1',
  /* 2 */ 'kind: Cluster',
  /* 3 */ 'metadata:',
  /* 4 */ '  name: m1',
  /* 5 */ 'spec:',
  /* 6 */ '  syncMode: Push',
  /* 7 */ '  taints:',
  /* 8 */ '  - key: dedicated',
  /* 9 */ '    effect: Foo',
  /* 10 */ '  -',
  /* 11 */ '    key: b',
  /* 12 */ '    effect:',
  /* 13 */ '      nested: 1',
];

describe('parseManifests: lines of fields', () => {
  it("gives a field its key's line, also when the value is a nested block starting below it", () => {
    expect(linesOf(cluster, ['spec', 'spec.taints', 'metadata.name', 'spec.taints[1].effect', 'spec.taints[1].effect.nested'])).toEqual({
      spec: 5,
      'spec.taints': 7,
      'metadata.name': 4,
      'spec.taints[1].effect': 12,
      'spec.taints[1].effect.nested': 13,
    });
  });

  it("gives a sequence item its own line, where its content starts", () => {
    expect(linesOf(cluster, ['spec.taints[0]', 'spec.taints[0].effect', 'spec.taints[1]', 'spec.taints[1].key'])).toEqual({
      'spec.taints[0]': 8,
      'spec.taints[0].effect': 9,
      'spec.taints[1]': 11,
      'spec.taints[1].key': 11,
    });
  });

  it('stops at the nearest existing parent of a missing field; the object itself for none', () => {
    expect(linesOf(cluster, ['spec.taints[5].effect', 'spec.missing.deep', 'spec.syncMode.deeper', 'nope', ''])).toEqual({
      'spec.taints[5].effect': 7,
      'spec.missing.deep': 5,
      'spec.syncMode.deeper': 6,
      nope: 1,
      '': 1,
    });
  });

  it('finds fields in flow collections, on one line or several', () => {
    const doc = [
      /* 1 */ 'kind: X',
      /* 2 */ 'spec: {a: 1, b: [x, y, {c: 2}], d: {e: f}}',
      /* 3 */ 'list: [',
      /* 4 */ '  one,',
      /* 5 */ '  {two: 2,',
      /* 6 */ '   three: 3}',
      /* 7 */ ']',
      /* 8 */ 'items:',
      /* 9 */ '- {g: 1}',
      /* 10 */ '- [h]',
    ];
    expect(linesOf(doc, ['spec.a', 'spec.b[2].c', 'spec.d.e', 'list[0]', 'list[1]', 'list[1].three', 'list[1].four', 'items[1]', 'items[0].g', 'items[1][0]'])).toEqual({
      'spec.a': 2,
      'spec.b[2].c': 2,
      'spec.d.e': 2,
      'list[0]': 4,
      'list[1]': 5,
      'list[1].three': 6,
      'list[1].four': 5,
      'items[1]': 10,
      'items[0].g': 9,
      'items[1][0]': 10,
    });
  });

  it('reads keys with the kubectl schema: `on` is the field "true", `0755` the field "493"', () => {
    const doc = ['kind: X', 'spec:', '  on: 1', '  no: 2', '  0755: 3'];
    expect(linesOf(doc, ['spec.true', 'spec.false', 'spec.493'])).toEqual({ 'spec.true': 3, 'spec.false': 4, 'spec.493': 5 });
  });

  it('answers a field merged in with `<<` with the mapping that merges it, and a field it overrides with its own line', () => {
    const doc = [
      /* 1 */ 'kind: X',
      /* 2 */ 'base: &base',
      /* 3 */ '  syncMode: Push',
      /* 4 */ '  id: abc',
      /* 5 */ 'spec:',
      /* 6 */ '  <<: *base',
      /* 7 */ '  id: def',
      /* 8 */ '  extra: 1',
    ];
    expect(linesOf(doc, ['spec.syncMode', 'spec.id', 'spec.extra', 'base.id'])).toEqual({ 'spec.syncMode': 5, 'spec.id': 7, 'spec.extra': 8, 'base.id': 4 });
  });

  it('places the items of a List, YAML or JSON, and their fields', () => {
    const yaml = [
      /* 1 */ 'apiVersion: v1',
      /* 2 */ 'kind: List',
      /* 3 */ 'items:',
      /* 4 */ '- kind: A',
      /* 5 */ '  spec:',
      /* 6 */ '    x: 1',
      /* 7 */ '-',
      /* 8 */ '  kind: B',
      /* 9 */ '  spec: {y: [1, 2]}',
      /* 10 */ '- kind: C',
      /* 11 */ '- kind: D',
      /* 12 */ '  spec:',
      /* 13 */ '    taints:',
      /* 14 */ '    - effect: Foo',
    ];
    const { manifests } = parseManifests(yaml.join('\n'), 'list.yaml');
    expect(manifests.map((m) => [m.object.kind, m.source.line])).toEqual([['A', 4], ['B', 8], ['C', 10], ['D', 11]]);
    expect(manifests[0]!.source.lineOf('spec.x')).toBe(6);
    expect(manifests[1]!.source.lineOf('spec.y[1]')).toBe(9);
    expect(manifests[2]!.source.lineOf('spec.x')).toBe(10);
    expect(manifests[3]!.source.lineOf('spec.taints[0].effect')).toBe(14);

    const json = ['{', '  "kind": "List",', '  "items": [', '    {', '      "kind": "A",', '      "spec": {"x": [1, 2]}', '    },', '    {', '      "kind": "B"', '    }', '  ]', '}'];
    const parsed = parseManifests(json.join('\n'), 'list.json');
    expect(parsed.manifests.map((m) => m.source.line)).toEqual([4, 8]);
    expect(parsed.manifests[0]!.source.lineOf('spec.x[1]')).toBe(6);
  });

  it('finds the line of every field of a large mapping without scanning it for each', () => {
    // One cause per bad label: scanning the labels for each took 10 s for 32,000 of them, 72 s for 64,000.
    const count = 200_000;
    const yaml = ['kind: Cluster', 'metadata:', '  labels:', ...Array.from({ length: count }, (_, i) => `    k${i}: v`), '  name: m1'];
    const [manifest] = parseManifests(yaml.join('\n'), 'big.yaml').manifests;
    const lines = Array.from({ length: count }, (_, i) => manifest!.source.lineOf(`metadata.labels[k${i}]`));
    expect(lines.every((line, i) => line === 4 + i)).toBe(true);
    expect(manifest!.source.lineOf('metadata.name')).toBe(count + 4);
  });

  it('never places a field at another item when a sequence has empty items', () => {
    const doc = [
      /* 1 */ 'kind: Cluster',
      /* 2 */ 'spec:',
      /* 3 */ '  taints:',
      /* 4 */ '  -',
      /* 5 */ '  - null',
      /* 6 */ '  - key: x',
      /* 7 */ '    effect: Foo',
    ];
    // An empty item has no node of its own, so the null items fall back to the sequence's line;
    // the items after them are still found.
    expect(linesOf(doc, ['spec.taints[0]', 'spec.taints[1]', 'spec.taints[2].effect'])).toEqual({ 'spec.taints[0]': 3, 'spec.taints[1]': 3, 'spec.taints[2].effect': 7 });

    const list = ['apiVersion: v1', 'kind: List', 'items:', '- kind: A', '-', '- kind: B'];
    const parsed = parseManifests(list.join('\n'), 'list.yaml');
    expect(parsed.manifests.map((m) => [m.object.kind, m.source.line])).toEqual([['A', 4], ['B', 6]]);
    expect(parsed.problems).toEqual([{ file: 'list.yaml', line: 3, message: 'items[1] is not an object' }]);
  });

  it('counts lines the same in a CRLF file, where comments before a document are not its start', () => {
    const doc = [
      /* 1 */ '# leading comment',
      /* 2 */ '',
      /* 3 */ 'kind: A',
      /* 4 */ 'spec:',
      /* 5 */ '  taints:',
      /* 6 */ '  - effect: Foo',
      /* 7 */ '---',
      /* 8 */ '# second',
      /* 9 */ 'kind: B',
      /* 10 */ 'spec:',
      /* 11 */ '  z: 1',
    ];
    const { manifests } = parseManifests(doc.join('\r\n') + '\r\n', 'crlf.yaml');
    expect(manifests.map((m) => m.source.line)).toEqual([3, 9]);
    expect(manifests[0]!.source.lineOf('spec.taints[0].effect')).toBe(6);
    expect(manifests[1]!.source.lineOf('spec.z')).toBe(11);
  });

  it('splits at `---` markers, with comments, blank lines and content after them', () => {
    const stream = [
      /* 1 */ '# lead',
      /* 2 */ '',
      /* 3 */ '---',
      /* 4 */ '# c',
      /* 5 */ '',
      /* 6 */ 'kind: A',
      /* 7 */ 'spec:',
      /* 8 */ '  a: 1',
      /* 9 */ '--- # after the marker',
      /* 10 */ 'kind: B',
      /* 11 */ 'spec:',
      /* 12 */ '  b: 2',
      /* 13 */ '--- {kind: C, spec: {c: 3}}',
      /* 14 */ '---',
      /* 15 */ '---\t',
      /* 16 */ 'kind: D',
      /* 17 */ 'spec:',
      /* 18 */ '  d: ----',
      /* 19 */ '  e: 1',
      /* 20 */ '---',
      /* 21 */ 'kind: E',
      /* 22 */ '...',
    ];
    const { manifests, problems } = parseManifests(stream.join('\n') + '\n', 's.yaml');
    expect(problems).toEqual([]);
    expect(manifests.map((m) => [m.object.kind, m.source.line])).toEqual([['A', 6], ['B', 10], ['C', 13], ['D', 16], ['E', 21]]);
    expect(manifests.map((m) => m.source.lineOf('spec'))).toEqual([7, 11, 13, 17, 21]);
    expect([manifests[0]!.source.lineOf('spec.a'), manifests[1]!.source.lineOf('spec.b'), manifests[2]!.source.lineOf('spec.c'), manifests[3]!.source.lineOf('spec.e')]).toEqual([8, 12, 13, 19]);
  });

  it('reads a %YAML directive with the document it introduces, and a byte order mark at the start of any document', () => {
    const stream = [
      /* 1 */ '%YAML 1.1',
      /* 2 */ '---',
      /* 3 */ 'kind: A',
      /* 4 */ 'spec: {a: 1}',
      /* 5 */ '---',
      /* 6 */ '\uFEFFkind: B',
      /* 7 */ 'spec: {b: 2}',
      /* 8 */ '...',
      /* 9 */ '%YAML 1.1',
      /* 10 */ '---',
      /* 11 */ 'kind: C',
    ];
    const { manifests, problems } = parseManifests(stream.join('\n') + '\n', 'd.yaml');
    expect(problems).toEqual([]);
    expect(manifests.map((m) => [m.object.kind, m.source.line])).toEqual([['A', 3], ['B', 6], ['C', 11]]);
    expect(manifests[1]!.source.lineOf('spec')).toBe(7);
  });

  it('skips `...` markers before a first document, as go-yaml does, and keeps their lines counted', () => {
    const stream = [
      /* 1 */ '',
      /* 2 */ '...',
      /* 3 */ '... # twice',
      /* 4 */ 'kind: A',
      /* 5 */ 'spec:',
      /* 6 */ '  a: 1',
      /* 7 */ '---',
      /* 8 */ 'kind: B',
    ];
    expect(parseManifests(['# exported', '...', 'kind: A'].join('\n'), 'c.yaml').manifests.map((m) => [m.object.kind, m.source.line])).toEqual([['A', 3]]);
    for (const eol of ['\n', '\r\n']) {
      const { manifests, problems } = parseManifests(stream.join(eol) + eol, 'end.yaml');
      expect(problems).toEqual([]);
      expect(manifests.map((m) => [m.object.kind, m.source.line])).toEqual([['A', 4], ['B', 8]]);
      expect(manifests[0]!.source.lineOf('spec.a')).toBe(6);
    }
    // After a `---`, a `...` ends that (empty) document, and what follows is a second one in the same part: still an error.
    expect(parseManifests(['kind: A', '---', '...', 'kind: B'].join('\n'), 'two.yaml').problems).toMatchObject([{ line: 2, message: expect.stringMatching(/^YAML syntax error: /) }]);
  });

  it('refuses a mapping as a key, as kubectl does, where js-yaml would make it "[object Object]": an unrendered template placeholder', () => {
    const template = [
      /* 1 */ 'kind: A',
      /* 2 */ 'webhooks:',
      /* 3 */ '- name: w',
      /* 4 */ '  clientConfig:',
      /* 5 */ '    caBundle: {{ .Values.caBundle }}',
      /* 6 */ '---',
      /* 7 */ 'kind: B',
      /* 8 */ '? {a: 1}',
      /* 9 */ ': b',
      /* 10 */ '---',
      /* 11 */ 'kind: C',
      /* 12 */ '"[object Object]": written so',
    ];
    const { manifests, problems } = parseManifests(template.join('\n'), 't.yaml');
    expect(manifests.map((m) => m.object.kind)).toEqual(['C']);
    const message = 'YAML syntax error: invalid map key: a mapping cannot be a key (kubectl refuses it too); is a template placeholder such as {{ .Values.x }} left unrendered?';
    expect(problems).toEqual([{ file: 't.yaml', line: 5, message }, { file: 't.yaml', line: 7, message }]);
  });

  it("gives the items of a typed list, which the API server sends without kind and apiVersion, the list's", () => {
    const raw = JSON.stringify({ apiVersion: 'v1', kind: 'ServiceList', items: [{ metadata: { name: 'hl', namespace: 'ns' }, spec: { clusterIP: 'None' } }, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b' } }] });
    const { manifests, problems } = parseManifests(raw, 'services.json');
    expect(problems).toEqual([]);
    expect(manifests.map((m) => [m.object.apiVersion, m.object.kind, (m.object.metadata as { name: string }).name])).toEqual([['v1', 'Service', 'hl'], ['v1', 'Service', 'b']]);
    // A plain List says nothing about its items.
    const plain = parseManifests(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ metadata: { name: 'x' } }] }), 'list.json');
    expect(plain.manifests[0]!.object.kind).toBeUndefined();
  });

  it('reports a syntax error at its line in the file, past earlier documents', () => {
    const { manifests, problems } = parseManifests(['kind: A', '---', 'kind: B', 'spec: [x', '---', 'kind: C'].join('\n'), 'e.yaml');
    expect(manifests.map((m) => m.object.kind)).toEqual(['A', 'C']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'e.yaml', line: 5, message: expect.stringMatching(/^YAML syntax error: /) });
  });

  it('reports a NUL byte where it is, though js-yaml places it on the first line', () => {
    const { problems } = parseManifests(['kind: A', '---', 'kind: B', 'spec:', '  region: "us\0west"'].join('\n'), 'nul.yaml');
    expect(problems).toEqual([{ file: 'nul.yaml', line: 5, column: 14, message: 'YAML syntax error: null byte is not allowed in input' }]);
  });
});

describe('streamManifests: files it cannot read', () => {
  it("reports the condition once per file and goes on, without Node's syscall and path", () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-stream-'));
    const good = join(dir, 'member.yaml');
    writeFileSync(good, 'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: m1\n');
    const problems: ReadProblem[] = [];
    const read = [...streamManifests([dir, join(dir, 'gone.yaml'), good], problems)];
    expect(read.map((m) => m.object.metadata)).toEqual([{ name: 'm1' }]);
    expect(problems).toEqual([
      { file: dir, message: 'is a directory' },
      { file: join(dir, 'gone.yaml'), message: 'no such file or directory' },
    ]);
  });
});
