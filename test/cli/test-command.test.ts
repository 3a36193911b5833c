import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../../src/cli/main.js';
import { runCli } from './run-cli.js';

const policies = fileURLToPath(new URL('../policies', import.meta.url));

const run = (args: string[], io: Partial<CliIO> = {}) => runCli(['test', ...args], io);

/** A folder holding the given files (suite, objects, context). */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-test-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const member = `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: m1
spec:
  syncMode: Push
  taints:
    - key: maintenance
      effect: NoExecute
      timeAdded: 2026-11-01T10:00:00Z
`;

const passing = `cases:
  - name: a valid cluster
    object: member.yaml
    expect: { allowed: true, warnings: [] }
  - name: an unknown sync mode
    object: member.yaml
    patch: [{ op: replace, path: /spec/syncMode, value: Both }]
    expect:
      allowed: false
      causes: [{ field: spec.syncMode, type: NotSupported, message: 'supported values: "Push", "Pull"' }]
`;

const failing = `cases:
  - name: a valid cluster
    object: member.yaml
    expect: { allowed: true }
  - name: a wrong expectation
    object: member.yaml
    patch: [{ op: replace, path: /spec/syncMode, value: Both }]
    expect:
      allowed: false
      causes:
        - { field: spec.syncMode, type: Required }
`;

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

/** A small well-formedness check: every tag closes in order, text has no raw markup characters. */
function wellFormed(xml: string): boolean {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  for (const token of body.split(/(<[^>]*>)/)) {
    if (token.startsWith('<')) {
      const m = /^<(\/?)([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"<&]*(?:&(?:amp|lt|gt|quot|apos);[^"<&]*)*")*)\s*(\/?)>$/.exec(token);
      if (!m) return false;
      if (m[1]) {
        if (stack.pop() !== m[2]) return false;
      } else if (!m[4]) stack.push(m[2]!);
    } else if (/[<>]|&(?!(?:amp|lt|gt|quot|apos);)/.test(token)) {
      return false;
    }
  }
  return stack.length === 0;
}

describe('fleetgate test', () => {
  it('runs a passing suite: exit 0, PASS lines and the summary as the last line', async () => {
    const dir = folder({ 'fleetgate-test.yaml': passing, 'member.yaml': member });
    const { code, stdout, stderr } = await run([dir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(join(dir, 'fleetgate-test.yaml'));
    expect(stdout).toContain('PASS a valid cluster');
    expect(stdout).toContain('PASS an unknown sync mode');
    expect(stdout.endsWith('\n2 passed, 0 failed\n')).toBe(true);
  });

  it('reports a failing case with a diff of the causes and exits 1', async () => {
    const dir = folder({ 'fleetgate-test.yaml': failing, 'member.yaml': member });
    const { code, stdout } = await run([dir]);
    expect(code).toBe(1);
    expect(stdout).toContain('PASS a valid cluster');
    expect(stdout).toContain('FAIL a wrong expectation');
    expect(stdout).toContain(`at ${join(dir, 'fleetgate-test.yaml')}:5`);
    expect(stdout).toContain('causes differ (- expected, + actual):');
    expect(stdout).toContain('- spec.syncMode: FieldValueRequired');
    expect(stdout).toContain('+ spec.syncMode: FieldValueNotSupported (Unsupported value: "Both"');
    expect(lastLine(stdout)).toBe('1 passed, 1 failed');
  });

  it('expects no defaults on a status write, as the mutating webhook sends none there', async () => {
    const dir = folder({
      'member.yaml': member,
      'fleetgate-test.yaml': `cases:
  - name: status write of a cluster whose taint lacks timeAdded
    object: member.yaml
    patch: [{ op: remove, path: /spec/taints/0/timeAdded }]
    operation: UPDATE
    subResource: status
    oldObject: member.yaml
    expect: { defaults: [] }
`,
    });
    const { code, stdout } = await run([dir]);
    expect(stdout).toContain('PASS status write of a cluster whose taint lacks timeAdded');
    expect(code).toBe(0);
  });

  it('fails on the verdict, warnings and defaults too', async () => {
    const dir = folder({
      'member.yaml': member,
      'fleetgate-test.yaml': `cases:
  - name: expected denied
    object: member.yaml
    expect: { allowed: false }
  - name: expected allowed
    object: member.yaml
    patch: [{ op: remove, path: /spec/syncMode }]
    expect: { allowed: true }
  - name: a warning that is not given
    object: member.yaml
    expect: { warnings: [deprecated] }
  - name: no warnings expected
    object: member.yaml
    patch: [{ op: add, path: /spec/flavour, value: large }]
    expect: { allowed: true, warnings: [] }
  - name: defaults
    object: member.yaml
    patch: [{ op: remove, path: /spec/taints/0/timeAdded }]
    operation: UPDATE
    oldObject: member.yaml
    now: 2026-12-01T00:00:00Z
    expect:
      defaults: [{ op: add, path: /spec/taints/0/timeAdded, value: '2026-12-02T00:00:00Z' }]
`,
    });
    const { code, stdout } = await run([dir]);
    expect(code).toBe(1);
    expect(stdout).toContain('expected denied, got allowed');
    expect(stdout).toContain('expected allowed, got denied (- expected, + actual causes):\n      + spec.syncMode: FieldValueRequired');
    expect(stdout).toContain('- "deprecated"');
    expect(stdout).toContain('expected no warnings (+ actual):\n      + unknown field "spec.flavour"');
    expect(stdout).toContain('- {"op":"add","path":"/spec/taints/0/timeAdded","value":"2026-12-02T00:00:00Z"}');
    expect(stdout).toContain('+ {"op":"add","path":"/spec/taints/0/timeAdded","value":"2026-12-01T00:00:00Z"}');
    expect(lastLine(stdout)).toBe('0 passed, 5 failed');
  });

  it("writes the case's uuid, or a fixed one, into a defaulted permanent-id label, so expected patches are exact", async () => {
    const work = `apiVersion: work.karmada.io/v1alpha1
kind: Work
metadata: { name: w, namespace: karmada-es-member1 }
spec:
  workload:
    manifests:
      - { apiVersion: v1, kind: ConfigMap, metadata: { name: c, namespace: default, uid: u1 }, data: { a: "1" } }
`;
    const records = 'resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels';
    const defaults = (id: string) => `
      defaults:
        - { op: add, path: /metadata/labels, value: { work.karmada.io/permanent-id: ${id} } }
        - { op: remove, path: /spec/workload/manifests/0/metadata/uid }
        - { op: add, path: /spec/workload/manifests/0/metadata/labels, value: { work.karmada.io/permanent-id: ${id} } }
        - op: add
          path: /spec/workload/manifests/0/metadata/annotations
          value: { resourcetemplate.karmada.io/managed-annotations: "${records}", resourcetemplate.karmada.io/managed-labels: work.karmada.io/permanent-id }`;
    const dir = folder({
      'work.yaml': work,
      'fleetgate-test.yaml': `cases:
  - name: the fixed uuid
    object: work.yaml
    expect:${defaults('00000000-0000-4000-8000-000000000000')}
  - name: the case's uuid
    object: work.yaml
    uuid: 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f
    expect:${defaults('6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f')}
  - name: another uuid than expected
    object: work.yaml
    uuid: 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f
    expect:${defaults('00000000-0000-4000-8000-000000000000')}
  - name: a refused Work
    object: work.yaml
    patch: [{ op: remove, path: /spec/workload/manifests/0/kind }]
    expect:${defaults('00000000-0000-4000-8000-000000000000')}
`,
    });
    for (let i = 0; i < 2; i++) {
      const { code, stdout } = await run([dir]);
      expect(code).toBe(1);
      expect(stdout).toContain('PASS the fixed uuid');
      expect(stdout).toContain("PASS the case's uuid");
      expect(stdout).toContain('FAIL another uuid than expected');
      expect(stdout).toContain('+ {"op":"add","path":"/metadata/labels","value":{"work.karmada.io/permanent-id":"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"}}');
      expect(stdout).toContain(
        `defaults differ (- expected, + actual JSON Patch); the mutating webhook refuses the object: spec.workload.manifests[0].kind: Required value: Object 'Kind' is missing: the member cluster cannot apply the manifest`,
      );
      expect(lastLine(stdout)).toBe('2 passed, 2 failed');
    }
  });

  it('accepts any denial when no causes are listed, API cause type names, inline objects and context files', async () => {
    const dir = folder({
      'member.yaml': member,
      'context/headless.yaml': 'apiVersion: v1\nkind: Service\nmetadata: { name: hook, namespace: system }\nspec: { clusterIP: None }\n',
      'fleetgate-test.yaml': `cases:
  - name: any denial
    object: member.yaml
    patch: [{ op: replace, path: /spec/syncMode, value: Both }]
    expect: { allowed: false }
  - name: the API type name
    object: { apiVersion: cluster.karmada.io/v1alpha1, kind: Cluster, metadata: { name: m2 }, spec: {} }
    expect:
      allowed: false
      causes: [{ field: spec.syncMode, type: FieldValueRequired }]
  - name: a headless service from the context
    object:
      apiVersion: config.karmada.io/v1alpha1
      kind: ResourceInterpreterWebhookConfiguration
      metadata: { name: hooks }
      webhooks:
        - name: hook.example.com
          clientConfig: { service: { namespace: system, name: hook } }
          interpreterContextVersions: [v1alpha1]
    context: context
    expect:
      allowed: false
      causes: [{ field: 'webhooks[0].clientConfig.service', type: Invalid }]
`,
    });
    const { code, stdout } = await run([dir]);
    expect(stdout).not.toContain('FAIL');
    expect(code).toBe(0);
    expect(lastLine(stdout)).toBe('3 passed, 0 failed');
  });

  it('gives every case its own copy of a shared (anchored) object', async () => {
    const dir = folder({
      'fleetgate-test.yaml': `cases:
  - name: a variant
    object: &base { apiVersion: cluster.karmada.io/v1alpha1, kind: Cluster, metadata: { name: m1 }, spec: { syncMode: Push } }
    patch: [{ op: replace, path: /spec/syncMode, value: Both }]
    expect: { allowed: false }
  - name: the base is unchanged
    object: *base
    expect: &ok { allowed: true }
  - name: aliases work for expectations too
    object: *base
    expect: *ok
`,
    });
    const { code, stdout } = await run([dir]);
    expect(stdout).not.toContain('FAIL');
    expect(code).toBe(0);
  });

  it('follows aliases in an inline object as fleetgate validate does, and refuses one that expands past the bound with its place', async () => {
    const nested = (levels: number, fanOut: number): string => {
      let text = '        a0: &a0 {k: v}\n';
      for (let level = 1; level <= levels; level++) text += `        a${level}: &a${level} [${Array(fanOut).fill(`*a${level - 1}`).join(', ')}]\n`;
      return text;
    };
    const suite = (levels: number, fanOut: number) => `cases:
  - name: aliases
    object:
      apiVersion: cluster.karmada.io/v1alpha1
      kind: Cluster
      metadata: { name: a }
      spec:
        syncMode: Push
        extra:
${nested(levels, fanOut).replace(/^ {8}/gm, '          ')}    expect: { allowed: true }
`;
    // 10 × 10 × 10 values: far below the bound, though the yaml library's own alias guard refuses it.
    const fine = await run([folder({ 'fleetgate-test.yaml': suite(3, 10) })]);
    expect(fine.stderr).toBe('');
    expect(lastLine(fine.stdout)).toBe('1 passed, 0 failed');
    // 10^7 values: refused as the suite's mistake, at the object's line, not a crash.
    const bomb = await run([folder({ 'fleetgate-test.yaml': suite(7, 10) })]);
    expect(bomb.code).toBe(2);
    expect(bomb.stderr).toMatch(/fleetgate-test\.yaml:4:\d+: .*expands to more than 1,000,000 values through YAML aliases/);
  });

  it('reads suite and object files as manifests are read: UTF-16 after its byte order mark', async () => {
    const dir = folder({});
    const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    writeFileSync(join(dir, 'member.yaml'), utf16(member));
    writeFileSync(join(dir, 'fleetgate-test.yaml'), utf16(passing));
    const { code, stdout, stderr } = await run([dir]);
    expect(stderr).toBe('');
    expect(lastLine(stdout)).toMatch(/^\d+ passed, 0 failed$/);
    expect(code).toBe(0);
  });

  it('finds suites recursively, and takes a suite file named on the command line', async () => {
    const dir = folder({
      'a/fleetgate-test.yaml': passing,
      'a/member.yaml': member,
      'b/c/fleetgate-test.yaml': failing,
      'b/c/member.yaml': member,
      'other.yaml': failing,
      'member.yaml': member,
    });
    const all = await run([dir]);
    expect(all.code).toBe(1);
    expect(lastLine(all.stdout)).toBe('3 passed, 1 failed');
    const one = await run([join(dir, 'a')]);
    expect(one.code).toBe(0);
    const named = await run([join(dir, 'other.yaml')]);
    expect(named.code).toBe(1);
    expect(lastLine(named.stdout)).toBe('1 passed, 1 failed');
  });

  describe('exits 2 with file:line:column for a suite it cannot use, running nothing', () => {
    it('unknown keys and missing fields', async () => {
      const dir = folder({
        'member.yaml': member,
        'fleetgate-test.yaml': `cases:
  - name: typo
    object: member.yaml
    expect: { allowed: true }
    strcit: true
  - object: member.yaml
    expect: { allowed: true }
  - name: no expectation
    object: member.yaml
`,
      });
      const file = join(dir, 'fleetgate-test.yaml');
      const { code, stdout, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(`${file}:5:5: case "typo": unknown key "strcit"`);
      expect(stderr).toContain(`${file}:6:5: cases[1]: missing "name"`);
      expect(stderr).toContain(`${file}:8:5: case "no expectation": missing "expect"`);
      expect(stderr).toContain('3 problems in the test suites; no case was run');
    });

    it('a repeated case name together with the other problems of either case', async () => {
      const dir = folder({
        'member.yaml': member,
        'fleetgate-test.yaml': `cases:
  - name: twice
    object: member.yaml
    expect: { allowed: maybe }
  - name: twice
    object: member.yaml
    expect: { allowed: true }
  - name: thrice
    object: member.yaml
    expect: { allowed: true }
  - name: thrice
    object: member.yaml
    expect: { allowed: perhaps }
`,
      });
      const file = join(dir, 'fleetgate-test.yaml');
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`${file}:4:24: case "twice": expect.allowed must be true or false`);
      expect(stderr).toContain(`${file}:5:5: cases[1]: the name "twice" is already used by the case on line 2`);
      expect(stderr).toContain(`${file}:11:5: cases[3]: the name "thrice" is already used by the case on line 8`);
      expect(stderr).toContain(`${file}:13:24: case "thrice": expect.allowed must be true or false`);
      expect(stderr).toContain('4 problems in the test suites; no case was run');
    });

    it('and still gives a JSON or JUnit report, naming each problem, for the CI step that reads it', async () => {
      const dir = folder({ 'member.yaml': member, 'fleetgate-test.yaml': 'cases:\n  - name: typo\n    object: member.yaml\n    expect: { allowed: true }\n    strcit: true\n' });
      const file = join(dir, 'fleetgate-test.yaml');
      const json = await run(['-o', 'json', dir]);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout)).toEqual({
        passed: 0,
        failed: 0,
        errors: [{ file, line: 5, column: 5, message: expect.stringMatching(/^case "typo": unknown key "strcit" \(expected one of: name, /) }],
        suites: [],
      });
      const xml = await run(['-o', 'junit', dir]);
      expect(xml.code).toBe(2);
      expect(wellFormed(xml.stdout)).toBe(true);
      expect(xml.stdout).toContain(`<testsuite name="${file}" tests="1" failures="1" skipped="0">`);
      expect(xml.stdout).toContain(`<failure message="case &quot;typo&quot;: unknown key &quot;strcit&quot; (expected one of: `);
      expect(xml.stdout).toContain(`${file}:5:5: case &quot;typo&quot;: unknown key &quot;strcit&quot;`);
      expect(xml.stderr).toContain('1 problem in the test suites; no case was run');
    });

    it('a YAML syntax error', async () => {
      const dir = folder({ 'fleetgate-test.yaml': 'cases:\n  - name: x\n    object: { kind: Cluster\n' });
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toMatch(new RegExp(`^${join(dir, 'fleetgate-test.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: YAML syntax error`));
    });

    it('two documents in one suite file, and a name YAML read as a boolean: messages that say what to do', async () => {
      const dir = folder({ 'member.yaml': member, 'fleetgate-test.yaml': `cases:\n  - name: n\n    object: member.yaml\n    expect: { allowed: true }\n---\ncases: []\n` });
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toContain('a test suite file holds one YAML document; this one has more');
      const single = folder({ 'member.yaml': member, 'fleetgate-test.yaml': `cases:\n  - name: n\n    object: member.yaml\n    expect: { allowed: true }\n` });
      const named = await run([single]);
      expect(named.code).toBe(2);
      expect(named.stderr).toContain('name must be a non-empty string, got false (boolean); quote it to keep it text');
    });

    it('unknown cause types, misplaced causes and patches that do not apply', async () => {
      const dir = folder({
        'member.yaml': member,
        'fleetgate-test.yaml': `cases:
  - name: bad type
    object: member.yaml
    expect: { allowed: false, causes: [{ field: spec.syncMode, type: Missing }] }
  - name: causes on an allowed case
    object: member.yaml
    expect: { allowed: true, causes: [{ field: spec.syncMode, type: Required }] }
  - name: a patch that does not apply
    object: member.yaml
    patch:
      - { op: remove, path: /spec/nothing }
    expect: { allowed: true }
  - name: UPDATE without the stored object
    operation: UPDATE
    object: member.yaml
    expect: { allowed: true }
`,
      });
      const file = join(dir, 'fleetgate-test.yaml');
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`${file}:4:70: case "bad type": expect.causes[0].type must be one of Required, Invalid`);
      expect(stderr).toContain(`${file}:7:38: case "causes on an allowed case": expect.causes: causes are only for allowed: false`);
      expect(stderr).toContain(`${file}:11:9: case "a patch that does not apply": patch[0] (remove /spec/nothing) does not apply`);
      expect(stderr).toContain(`${file}:13:5: case "UPDATE without the stored object": operation UPDATE needs "oldObject"`);
    });

    it("a replace at an array's end, which names no element, and a failed test op, said plainly", async () => {
      const dir = folder({
        'member.yaml': member,
        'fleetgate-test.yaml': `cases:
  - name: replace past the end
    object: member.yaml
    patch: [{ op: replace, path: /spec/taints/-, value: { key: x, effect: Evict } }]
    expect: { allowed: false }
  - name: a test that fails
    object: member.yaml
    patch: [{ op: test, path: /spec/syncMode, value: Pull }]
    expect: { allowed: true }
`,
      });
      const file = join(dir, 'fleetgate-test.yaml');
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`${file}:4:13: case "replace past the end": patch[0] (replace /spec/taints/-) does not apply: "-" names the end of the array, after its last element; replace an element by its index, or add one at "-"`);
      expect(stderr).toContain(`${file}:8:13: case "a test that fails": patch[0] (test /spec/syncMode) does not apply: the value there is "Push", not "Pull"`);
    });

    it('a now that is no time: a wrong shape, or a date the calendar lacks', async () => {
      const dir = folder({
        'member.yaml': member,
        'fleetgate-test.yaml': `cases:
  - name: february 30
    object: member.yaml
    now: 2026-02-30T09:30:00Z
    expect: { allowed: true }
  - name: no zone
    object: member.yaml
    now: 2026-02-03T09:30:00
    expect: { allowed: true }
  - name: a leap day
    object: member.yaml
    now: 2028-02-29T09:30:00+01:00
    expect: { allowed: true }
`,
      });
      const file = join(dir, 'fleetgate-test.yaml');
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`${file}:4:10: case "february 30": now must be an RFC 3339 time`);
      expect(stderr).toContain(`${file}:8:10: case "no zone": now must be an RFC 3339 time`);
      expect(stderr).not.toContain('a leap day');
    });

    it('a uuid that is no lower-case UUID', async () => {
      const dir = folder({
        'member.yaml': member,
        'fleetgate-test.yaml': `cases:
  - name: upper case
    object: member.yaml
    uuid: 6F1C2D3E-4A5B-4C6D-8E7F-9A0B1C2D3E4F
    expect: { allowed: true }
  - name: no uuid
    object: member.yaml
    uuid: my-id
    expect: { allowed: true }
  - name: a uuid
    object: member.yaml
    uuid: 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f
    expect: { allowed: true }
`,
      });
      const file = join(dir, 'fleetgate-test.yaml');
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`${file}:4:11: case "upper case": uuid must be a UUID in lower case, such as 00000000-0000-4000-8000-000000000000`);
      expect(stderr).toContain(`${file}:8:11: case "no uuid": uuid must be a UUID`);
      expect(stderr).not.toContain('case "a uuid"');
    });

    it('replaces the whole object with a patch at the root, as RFC 6902 allows', async () => {
      const dir = folder({
        'member.yaml': member,
        'fleetgate-test.yaml': `cases:
  - name: whole object
    object: member.yaml
    patch: [{ op: replace, path: "", value: { apiVersion: cluster.karmada.io/v1alpha1, kind: Cluster, metadata: { name: m2 }, spec: { syncMode: Both } } }]
    expect: { allowed: false, causes: [{ field: spec.syncMode, type: NotSupported }] }
`,
      });
      const { code, stdout, stderr } = await run([dir]);
      expect(stderr).toBe('');
      expect(lastLine(stdout)).toBe('1 passed, 0 failed');
      expect(code).toBe(0);
    });

    it('object and context files that cannot be read, or hold more than one object', async () => {
      const dir = folder({
        'two.yaml': `${member}---\n${member}`,
        'broken.yaml': 'kind: [Cluster\n',
        'fleetgate-test.yaml': `cases:
  - name: missing
    object: nope.yaml
    expect: { allowed: true }
  - name: two
    object: two.yaml
    expect: { allowed: true }
  - name: broken
    object: broken.yaml
    expect: { allowed: true }
  - name: context
    object: two.yaml
    context: [nowhere/]
    expect: { allowed: true }
  - name: a folder
    object: folder
    expect: { allowed: true }
`,
        'folder/member.yaml': member,
      });
      const file = join(dir, 'fleetgate-test.yaml');
      const { code, stderr } = await run([dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`${file}:3:13: case "missing": object: cannot read ${join(dir, 'nope.yaml')}: no such file`);
      expect(stderr).toContain(`${file}:6:13: case "two": object: ${join(dir, 'two.yaml')} holds 2 objects`);
      expect(stderr).toMatch(new RegExp(`${join(dir, 'broken.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: YAML syntax error`));
      expect(stderr).toContain(`${file}:13:14: case "context": context: cannot read ${join(dir, 'nowhere')}`);
      // The condition, not Node's "EISDIR: illegal operation on a directory, read".
      expect(stderr).toContain(`${file}:16:13: case "a folder": object: cannot read ${join(dir, 'folder')}: is a directory\n`);
    });

    it('no suite found, a missing folder, a bad flag', async () => {
      const empty = folder({ 'member.yaml': member });
      expect(await run([empty])).toMatchObject({ code: 2, stderr: `fleetgate test: no fleetgate-test.yaml found under ${empty}\n` });
      expect(await run([join(empty, 'missing')])).toMatchObject({ code: 2 });
      expect((await run([join(empty, 'missing')])).stderr).toContain(`${join(empty, 'missing')}: no such file or directory`);
      expect(await run(['--output', 'xml', empty])).toMatchObject({ code: 2, stderr: expect.stringContaining('--output must be text, json or junit') });
      expect(await run(['--frob'])).toMatchObject({ code: 2 });
    });
  });

  it('--output junit: well-formed JUnit XML, one testsuite per suite file, failures with the diff', async () => {
    const dir = folder({ 'a/fleetgate-test.yaml': passing, 'a/member.yaml': member, 'b/fleetgate-test.yaml': failing, 'b/member.yaml': member });
    const { code, stdout } = await run(['--output', 'junit', dir]);
    expect(code).toBe(1);
    expect(wellFormed(stdout)).toBe(true);
    expect(stdout).toMatch(/<testsuites name="fleetgate test" tests="4" failures="1" skipped="0">/);
    expect(stdout).toContain(`<testsuite name="${join(dir, 'a', 'fleetgate-test.yaml')}" tests="2" failures="0" skipped="0">`);
    expect(stdout).toContain(`<testsuite name="${join(dir, 'b', 'fleetgate-test.yaml')}" tests="2" failures="1" skipped="0">`);
    expect(stdout.match(/<testcase /g)).toHaveLength(4);
    expect(stdout.match(/<failure /g)).toHaveLength(1);
    expect(stdout).toContain('<failure message="causes differ (- expected, + actual)">');
    expect(stdout).toContain('- spec.syncMode: FieldValueRequired');
    expect(stdout).toContain('+ spec.syncMode: FieldValueNotSupported (Unsupported value: &quot;Both&quot;');
    expect(wellFormed('<a><b></a></b>')).toBe(false);
  });

  it('--output json: counts, and for failures the diff and what fleetgate answered', async () => {
    const dir = folder({ 'fleetgate-test.yaml': failing, 'member.yaml': member });
    const { code, stdout } = await run(['-o', 'json', dir]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ passed: 1, failed: 1 });
    expect(report.suites).toHaveLength(1);
    const [ok, bad] = report.suites[0].cases;
    expect(ok).toMatchObject({ name: 'a valid cluster', line: 2, passed: true });
    expect(ok.failures).toBeUndefined();
    expect(bad).toMatchObject({
      name: 'a wrong expectation',
      line: 5,
      passed: false,
      failures: [{ message: 'causes differ (- expected, + actual)', diff: ['- spec.syncMode: FieldValueRequired', expect.stringMatching(/^\+ spec.syncMode: FieldValueNotSupported/)] }],
      actual: { allowed: false, causes: [{ field: 'spec.syncMode', type: 'FieldValueNotSupported' }], warnings: [] },
    });
  });

  it('writes no progress for a short run, even on a terminal', async () => {
    const dir = folder({ 'fleetgate-test.yaml': passing, 'member.yaml': member });
    const { code, stderr } = await run([dir], { stderrIsTTY: true });
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('has help with examples', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: fleetgate test');
    expect(stdout).toContain('Examples:');
    expect(stdout).toContain('fleetgate test -o junit');
  });

  it("passes the project's own suite under test/policies, which covers all 13 kinds", async () => {
    const { code, stdout, stderr } = await run([policies]);
    expect(stderr).toBe('');
    expect(stdout).not.toContain('FAIL');
    expect(code).toBe(0);
    const kinds = readdirSync(policies, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(kinds.sort()).toEqual(
      [
        'cluster',
        'clusterresourcebinding',
        'clustertaintpolicy',
        'cronfederatedhpa',
        'federatedresourcequota',
        'multiclusteringress',
        'multiclusterservice',
        'remedy',
        'resourceinterpretercustomization',
        'resourceinterpreterwebhookconfiguration',
        'resourceregistry',
        'work',
        'workloadrebalancer',
      ],
    );
    for (const kind of kinds) expect(stdout).toContain(join(policies, kind, 'fleetgate-test.yaml'));
    expect(lastLine(stdout)).toMatch(/^\d+ passed, 0 failed$/);
  });
});
