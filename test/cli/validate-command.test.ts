import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { runCli } from './run-cli.js';
import { examples } from '../fixtures/index.js';
import { ric } from '../fixtures/resourceinterpretercustomization.js';
import { config as webhookConfig } from '../fixtures/resourceinterpreterwebhookconfiguration.js';
import { changed } from '../helpers.js';
import { stringify } from 'yaml';

const cli = (argv: string[], stdin = '') => runCli(argv, { stdin: () => stdin });
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

const cluster = examples.find((e) => e.kind === 'Cluster')!;
const badCluster = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: { syncMode: 'Push', taints: [{ key: 'dedicated', effect: 'Foo' }] } };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } };

/** A directory of mixed manifests: valid, invalid, unserved, a List, a YAML syntax error. */
function fixtureDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-validate-'));
  mkdirSync(join(dir, 'nested'));
  writeFileSync(join(dir, 'clusters.yaml'), [cluster, badCluster].map((o) => stringify(o)).join('---\n'));
  writeFileSync(join(dir, 'all.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: examples.filter((e) => e.kind !== 'Cluster') }));
  writeFileSync(join(dir, 'nested', 'other.yml'), stringify(configMap));
  writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
  return dir;
}

describe('fleetgate validate', () => {
  it('shows progress on a terminal once a run takes over a second, and clears it at the end', async () => {
    const stream = Array.from({ length: 250 }, (_, i) => stringify({ ...cluster, metadata: { name: `m${i}` } })).join('---\n');
    let clock = 0;
    const slow = await runCli(['validate', '--quiet', '-'], { stdin: () => stream, stderrIsTTY: true, now: () => (clock += 2000) });
    expect(slow.code).toBe(0);
    expect(slow.stderr).toContain('validated 100 objects (<stdin>)');
    expect(slow.stderr).toContain('validated 200 objects (<stdin>)');
    expect(slow.stderr.endsWith('\r\x1b[K')).toBe(true);

    const fast = await runCli(['validate', '--quiet', '-'], { stdin: () => stream, stderrIsTTY: true, now: () => 0 });
    expect(fast.stderr).toBe('');
    const piped = await runCli(['validate', '--quiet', '-'], { stdin: () => stream, stderrIsTTY: false, now: () => (clock += 2000) });
    expect(piped.stderr).toBe('');
  });

  it('accepts every realistic example: exit 0 and a summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-valid-'));
    writeFileSync(join(dir, 'all.yaml'), examples.map((o) => stringify(o)).join('---\n'));
    const { code, stdout } = await cli(['validate', dir]);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${examples.length} objects in 1 file: ${examples.length} valid, 0 invalid, 0 skipped`, 'm'));
  });

  it('reports an invalid object with file and the line of the field, in kubectl words; exit 1', async () => {
    const dir = fixtureDir();
    const { code, stdout } = await cli(['validate', dir]);
    expect(code).toBe(1);
    const file = join(dir, 'clusters.yaml');
    const lines = stdout.trim().split('\n');
    const line = (await import('node:fs')).readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('effect: Foo')) + 1;
    expect(lines).toContain(
      `${file}:${line}: Cluster "m1" is invalid: spec.taints[0].effect: Unsupported value: "Foo": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
    );
    expect(stdout).toMatch(/objects in 3 files: \d+ valid, 1 invalid, 1 skipped \(not served\)/);
  });

  it('unpacks List objects and reads JSON', async () => {
    const dir = fixtureDir();
    const { stdout } = await cli(['validate', '--output', 'json', join(dir, 'all.json')]);
    const report = JSON.parse(stdout);
    expect(report.results.map((r: any) => r.kind)).toEqual(examples.filter((e) => e.kind !== 'Cluster').map((e) => e.kind));
    expect(report.results.every((r: any) => r.status === 'valid')).toBe(true);
  });

  it('gives exact lines in a CRLF stream with comments, a List and a marker carrying content', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-lines-'));
    const file = join(dir, 'stream.yaml');
    const stream = [
      /* 1 */ '# rendered by a chart',
      /* 2 */ '--- {apiVersion: v1, kind: ConfigMap, metadata: {name: settings}}',
      /* 3 */ '---',
      /* 4 */ '# the bad one',
      /* 5 */ 'apiVersion: cluster.karmada.io/v1alpha1',
      /* 6 */ 'kind: Cluster',
      /* 7 */ 'metadata: {name: m1}',
      /* 8 */ 'spec:',
      /* 9 */ '  syncMode: Push',
      /* 10 */ '  taints:',
      /* 11 */ '  - key: dedicated',
      /* 12 */ '    effect: Foo',
      /* 13 */ '---',
      /* 14 */ 'apiVersion: v1',
      /* 15 */ 'kind: List',
      /* 16 */ 'items:',
      /* 17 */ '- apiVersion: cluster.karmada.io/v1alpha1',
      /* 18 */ '  kind: Cluster',
      /* 19 */ '  metadata: {name: m2}',
      /* 20 */ '  spec: {syncMode: Sometimes}',
    ];
    writeFileSync(file, stream.join('\r\n') + '\r\n');
    const { code, stdout } = await cli(['validate', file]);
    expect(code).toBe(1);
    const lines = stdout.split('\n');
    expect(lines).toContain(`${file}:12: Cluster "m1" is invalid: spec.taints[0].effect: Unsupported value: "Foo": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`);
    expect(lines.find((l) => l.includes('Cluster "m2" is invalid'))).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}:20: Cluster "m2" is invalid: spec\\.syncMode: `));
  });

  it('gives a warning the line of the field it names, in every output format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-warning-lines-'));
    const file = join(dir, 'warned.yaml');
    const stream = [
      /* 1 */ '# first a comment',
      /* 2 */ 'apiVersion: cluster.karmada.io/v1alpha1',
      /* 3 */ 'kind: Cluster',
      /* 4 */ 'metadata:',
      /* 5 */ '  name: m1',
      /* 6 */ 'spec:',
      /* 7 */ '  syncMode: Push',
      /* 8 */ '  zone: eu-west-1a',
      /* 9 */ '  bogus: 1',
      /* 10 */ '---',
      /* 11 */ 'apiVersion: v1',
      /* 12 */ 'kind: List',
      /* 13 */ 'items:',
      /* 14 */ '- apiVersion: config.karmada.io/v1alpha1',
      /* 15 */ '  kind: ResourceInterpreterCustomization',
      /* 16 */ '  metadata: {name: r1, namespace: default}',
      /* 17 */ '  spec:',
      /* 18 */ '    target: {apiVersion: apps/v1, kind: Deployment}',
      /* 19 */ '    customizations:',
      /* 20 */ '      retention: {luaScript: "function Retain(desiredObj, observedObj) return desiredObj end"}',
    ];
    writeFileSync(file, `${stream.join('\n')}\n`);
    const text = await cli(['validate', file]);
    expect(text.code).toBe(0);
    const warnings = text.stdout.split('\n').filter((l) => l.includes(': Warning: '));
    expect(warnings).toEqual([
      `${file}:8: Warning: Cluster "m1": spec.zone is deprecated and never used; use spec.zones`,
      `${file}:9: Warning: Cluster "m1": unknown field "spec.bogus"`,
      `${file}:16: Warning: ResourceInterpreterCustomization "r1": metadata.namespace: ignored: ResourceInterpreterCustomization is cluster-scoped; the API server clears the namespace before it validates or stores the object`,
    ]);
    // --strict makes the unknown field an error, at the same line.
    expect((await cli(['validate', '--strict', file])).stdout).toContain(`${file}:9: Cluster "m1" is invalid: spec.bogus: Forbidden: unknown field`);

    const json = JSON.parse((await cli(['validate', '-o', 'json', file])).stdout);
    expect(json.results[0].warnings).toEqual([
      { field: 'spec.zone', message: 'spec.zone is deprecated and never used; use spec.zones', line: 8 },
      { field: 'spec.bogus', message: 'unknown field "spec.bogus"', line: 9 },
    ]);
    expect(json.results[1].warnings.map((w: { field: string; line: number }) => [w.field, w.line])).toEqual([['metadata.namespace', 16]]);

    const xml = (await cli(['validate', '-o', 'junit', file])).stdout;
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites.testsuite;
    expect(suite.testcase[0]['system-out']).toBe(warnings.slice(0, 2).join('\n'));
    expect(suite.testcase[1]['system-out']).toBe(warnings[2]);
    expect(Number(suite.failures)).toBe(0);
  });

  it('says once per run, with a count, that the context rules were not checked for want of --context', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-no-context-'));
    const customizations = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => stringify(changed(ric, (o) => (o.metadata.name = `r${from + i}`)))).join('---\n');
    writeFileSync(join(dir, 'a.yaml'), customizations(0, 3));
    writeFileSync(join(dir, 'b.yaml'), [customizations(3, 2), stringify(webhookConfig)].join('---\n'));
    const ricWarning = 'conflicts with other ResourceInterpreterCustomizations not checked: no lookups were supplied';
    const text = await cli(['validate', dir]);
    expect(text.code).toBe(0);
    expect(text.stdout.split(ricWarning)).toHaveLength(2);
    const lines = text.stdout.split('\n');
    expect(lines).toContain(`Warning: ${ricWarning} (5 objects; give --context FILE|DIR to check them)`);
    // Each kind's context rules are a warning of their own.
    expect(lines.filter((l) => /^Warning: .*not checked: no lookups were supplied \(1 object; give --context FILE\|DIR to check them\)$/.test(l))).toHaveLength(1);
    expect(lastLine(text.stdout)).toBe('6 objects in 2 files: 6 valid, 0 invalid, 0 skipped (not served), 2 warnings, 0 errors');

    const json = JSON.parse((await cli(['validate', '-o', 'json', dir])).stdout);
    expect(json.warnings).toContainEqual({ message: ricWarning, objects: 5 });
    expect(json.warnings).toHaveLength(2);
    expect(json.results.every((r: { warnings: unknown[] }) => r.warnings.length === 0)).toBe(true);
    expect(json.summary.warnings).toBe(2);

    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse((await cli(['validate', '-o', 'junit', dir])).stdout);
    const [a, b] = xml.testsuites.testsuite;
    expect(a['system-out']).toBe(`Warning: ${ricWarning} (3 objects in this file; give --context FILE|DIR to check them)`);
    expect(b['system-out']).toContain(`Warning: ${ricWarning} (2 objects in this file; give --context FILE|DIR to check them)`);
    expect(a.testcase.every((c: Record<string, unknown>) => c['system-out'] === undefined)).toBe(true);

    // With --context the rules run, and nothing is said.
    writeFileSync(join(dir, 'context.yaml'), stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'unrelated', namespace: 'default' }, spec: { clusterIP: '10.0.0.1' } }));
    const checked = await cli(['validate', '--context', join(dir, 'context.yaml'), join(dir, 'a.yaml')]);
    expect(checked.stdout).not.toContain('not checked');
  });

  it('lists an object\'s causes in the order of their fields, so their lines ascend', async () => {
    const object = changed(cluster, (o) => {
      o.spec.resourceModels[0].grade = 'x';
      o.spec.taints.push({ ...o.spec.taints[0] });
      o.metadata.name = 'Bad_Name';
    });
    const { code, stdout } = await cli(['validate', '-'], stringify(object));
    expect(code).toBe(1);
    const lines = stdout.split('\n').filter((l) => l.includes(' is invalid: ')).map((l) => Number(l.split(':')[1]));
    expect(lines).toHaveLength(3);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it('--operation DELETE: refuses to delete an object labelled deletion-protected: Always, at the label\'s line', async () => {
    const label = 'resourcetemplate.karmada.io/deletion-protected';
    const protectedCluster = changed(badCluster, (o) => (o.metadata.labels = { env: 'prod', [label]: 'Always' }));
    const loose = changed(cluster, (o) => (o.metadata.labels = { [label]: 'always' }));
    const stream = [stringify(protectedCluster), stringify(loose), stringify(configMap)].join('---\n');
    const text = await cli(['validate', '--operation', 'DELETE', '-'], stream);
    expect(text.code).toBe(1);
    const labelLine = stream.split('\n').indexOf(`    ${label}: Always`) + 1;
    expect(text.stdout).toBe(
      `<stdin>:${labelLine}: Cluster "m1" may not be deleted: metadata.labels[${label}]: Forbidden: This resource is protected, please make sure to remove the label: ${label}\n` +
        '3 objects in 1 file: 1 deletable, 1 protected, 1 skipped (not served), 0 warnings, 0 errors\n',
    );
    // Only deletion protection judges a DELETE: the invalid taint of the protected cluster is not reported.
    expect(text.stdout).not.toContain('spec.taints');
    const json = JSON.parse((await cli(['validate', '--operation', 'DELETE', '-o', 'json', '-'], stream)).stdout);
    expect(json.operation).toBe('DELETE');
    expect(json.results.map((r: { status: string }) => r.status)).toEqual(['invalid', 'valid', 'skipped']);
    expect((await cli(['validate', '--operation', 'DELETE', '-'], stringify(loose))).code).toBe(0);
    const usage = await cli(['validate', '--operation', 'PATCH', '-'], stream);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--operation must be CREATE, UPDATE or DELETE, got "PATCH"');
  });

  it('reads standard input', async () => {
    const { code, stdout } = await cli(['validate', '-'], stringify(badCluster));
    expect(code).toBe(1);
    expect(stdout).toContain('<stdin>:9: Cluster "m1" is invalid: spec.taints[0].effect');
  });

  it('reports a YAML syntax error with file:line:column without hiding other files; exit 2', async () => {
    const dir = fixtureDir();
    writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: [Cluster\n');
    const { code, stdout } = await cli(['validate', dir]);
    expect(code).toBe(2);
    expect(stdout).toMatch(new RegExp(`${join(dir, 'broken.yaml').replace(/[.]/g, '\\.')}:\\d+:\\d+: error: YAML syntax error`));
    expect(stdout).toContain('Cluster "m1" is invalid');
  });

  it('answers usage and I/O errors with exit 2', async () => {
    expect((await cli(['validate'])).code).toBe(2);
    expect((await cli(['validate', '--output', 'xml', '.'])).code).toBe(2);
    const bogus = await cli(['validate', '--bogus', '.']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toBe("fleetgate validate: unknown option '--bogus' (a file whose name starts with '-' goes after '--': -- --bogus)\nRun 'fleetgate validate --help' for usage.\n");
    expect((await cli(['validate', '--operation', 'UPDATE', '--old', '-', '-'])).code).toBe(2);
    // An UPDATE without the stored object would skip every rule that compares with it.
    const noOld = await cli(['validate', '--operation', 'UPDATE', '.']);
    expect(noOld.code).toBe(2);
    expect(noOld.stderr).toContain('--operation UPDATE needs --old FILE');
    for (const domain of ['', 'Bad Domain!']) {
      const bad = await cli(['validate', '--group-domain', domain, '.']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`--group-domain "${domain}": `);
    }
    const missing = await cli(['validate', '/nonexistent/file.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain('/nonexistent/file.yaml: error: no such file or directory');
  });

  it('walks a symbolic link loop once, ignores a dangling link it would not read, and reads a file named twice once', async () => {
    const dir = fixtureDir();
    const before = await cli(['validate', dir]);
    symlinkSync('..', join(dir, 'nested', 'up'));
    symlinkSync('/nonexistent/notes', join(dir, 'notes-link.txt'));
    const after = await cli(['validate', dir, join(dir, 'clusters.yaml')]);
    expect(after.code).toBe(before.code);
    expect(after.stdout).not.toContain('up/');
    expect(after.stdout).not.toContain('notes-link');
    expect(lastLine(after.stdout)).toBe(lastLine(before.stdout));
    // A dangling link that names a manifest is a problem of the run's.
    symlinkSync('/nonexistent/cluster', join(dir, 'gone.yaml'));
    const dangling = await cli(['validate', dir]);
    expect(dangling.code).toBe(2);
    expect(dangling.stdout).toContain(`${join(dir, 'gone.yaml')}: error: no such file or directory`);
  });

  it('reads UTF-16 files with a byte order mark, as kubectl does, and refuses bytes that are not UTF-8', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-encoding-'));
    const text = stringify(cluster);
    writeFileSync(join(dir, 'le.yaml'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    writeFileSync(join(dir, 'be.yaml'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    const utf16 = await cli(['validate', dir]);
    expect(utf16.code).toBe(0);
    expect(lastLine(utf16.stdout)).toMatch(/^2 objects in 2 files: 2 valid/);
    writeFileSync(join(dir, 'latin1.yaml'), Buffer.from(`${text}  # caf\xe9\n`, 'latin1'));
    const latin1 = await cli(['validate', dir]);
    expect(latin1.code).toBe(2);
    expect(latin1.stdout).toContain(`${join(dir, 'latin1.yaml')}: error: not UTF-8`);
  });

  it('refuses standard input as --context instead of reading nothing', async () => {
    const { code, stdout } = await cli(['validate', '--context', '-', fixtureDir()], 'kind: Service');
    expect(code).toBe(2);
    expect(stdout).toContain('-: error: standard input cannot be read here; give a file or a directory');
  });

  it('fails a run that finds no object (exit 2, saying why for each path) unless --allow-empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-empty-'));
    mkdirSync(join(dir, 'none'));
    mkdirSync(join(dir, 'blank'));
    writeFileSync(join(dir, 'blank', 'a.yaml'), '# nothing yet\n---\n');
    writeFileSync(join(dir, 'empty.yaml'), '');
    const hint = 'pass --allow-empty if that is expected';
    const none = await cli(['validate', join(dir, 'none')]);
    expect(none.code).toBe(2);
    expect(none.stdout).toContain(`${join(dir, 'none')}: error: no objects found: no *.yaml, *.yml or *.json file in this directory; ${hint}\n`);
    expect(lastLine(none.stdout)).toBe('0 objects in 0 files: 0 valid, 0 invalid, 0 skipped (not served), 0 warnings, 1 error');
    const blank = await cli(['validate', join(dir, 'blank'), join(dir, 'empty.yaml')]);
    expect(blank.code).toBe(2);
    expect(blank.stdout).toContain(`${join(dir, 'blank')}: error: no objects found: the manifest file in this directory holds no object; ${hint}\n`);
    expect(blank.stdout).toContain(`${join(dir, 'empty.yaml')}: error: no objects found: the file holds no object; ${hint}\n`);
    const stdin = await cli(['validate', '-o', 'json', '-'], '---\n');
    expect(stdin.code).toBe(2);
    expect(JSON.parse(stdin.stdout).errors).toEqual([{ file: '<stdin>', message: `no objects found: standard input holds no object; ${hint}` }]);
    expect(JSON.parse(stdin.stdout).summary.passed).toBe(false);
    const junit = await cli(['validate', '-o', 'junit', join(dir, 'none')]);
    expect(junit.stdout).toContain('<failure message="no objects found: no *.yaml');

    const allowed = await cli(['validate', '--allow-empty', join(dir, 'none'), join(dir, 'empty.yaml')]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).not.toContain(': error:');
    // One object anywhere is a run that found something; a path that could not be read says so on its own.
    writeFileSync(join(dir, 'blank', 'b.yaml'), stringify(cluster));
    expect((await cli(['validate', join(dir, 'none'), join(dir, 'blank')])).code).toBe(0);
    const missing = await cli(['validate', join(dir, 'nosuch')]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain(`${join(dir, 'nosuch')}: error: no such file or directory\n`);
    expect(missing.stdout).not.toContain('no objects found');
  });

  it('makes unknown fields and unserved kinds errors with --strict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-strict-'));
    writeFileSync(join(dir, 'a.yaml'), stringify({ ...cluster, spec: { ...(cluster as any).spec, replicas: 2 } }));
    const relaxed = await cli(['validate', dir]);
    expect(relaxed.code).toBe(0);
    expect(relaxed.stdout).toContain('Warning: Cluster "member1": unknown field "spec.replicas"');
    expect((await cli(['validate', '--strict', dir])).code).toBe(1);
    writeFileSync(join(dir, 'a.yaml'), stringify(configMap));
    expect((await cli(['validate', dir])).code).toBe(0);
    const strict = await cli(['validate', '--strict', dir]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('ConfigMap "settings": kind ConfigMap is not served by fleetgate');
    expect(strict.stdout).toContain('1 not served (errors with --strict)');
    const json = await cli(['validate', '--strict', '-o', 'json', dir]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).results[0].status).toBe('unserved');
    expect(JSON.parse((await cli(['validate', '-o', 'json', dir])).stdout).results[0].status).toBe('skipped');
  });

  it('says what is not served of another group\'s object named like a served kind, and counts it as the error --strict makes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-capi-'));
    const capi = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'capi' }, spec: { paused: false } };
    writeFileSync(join(dir, 'capi.yaml'), [stringify(capi), stringify(configMap)].join('---\n'));
    const reason = 'Cluster of cluster.x-k8s.io/v1beta1 is not served by fleetgate (fleetgate serves Cluster of cluster.karmada.io/v1alpha1)';
    const relaxed = await cli(['validate', dir]);
    expect(relaxed.code).toBe(0);
    expect(lastLine(relaxed.stdout)).toBe('2 objects in 1 file: 0 valid, 0 invalid, 2 skipped (not served), 0 warnings, 0 errors');
    const strict = await cli(['validate', '--strict', dir]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain(`${join(dir, 'capi.yaml')}:1: error: Cluster "capi": ${reason} (an error with --strict)\n`);
    expect(strict.stdout).toContain(': error: ConfigMap "settings": kind ConfigMap is not served by fleetgate (an error with --strict)\n');
    expect(strict.stdout).not.toContain('kind Cluster is not served');
    expect(lastLine(strict.stdout)).toBe('2 objects in 1 file: 0 valid, 0 invalid, 2 not served (errors with --strict), 0 warnings, 2 errors');
    const json = JSON.parse((await cli(['validate', '--strict', '-o', 'json', dir])).stdout);
    expect(json.summary).toMatchObject({ passed: false, skipped: 2, errors: 2 });
    expect(json.results[0]).toMatchObject({ status: 'unserved', reason });
    const junit = (await cli(['validate', '-o', 'junit', dir])).stdout;
    expect(junit).toContain(`<skipped message="${reason}"/>`);
    // With another group domain, the group fleetgate serves is that domain's.
    const other = await cli(['validate', '--strict', '--group-domain', 'example.com', dir]);
    expect(other.stdout).toContain('(fleetgate serves Cluster of cluster.example.com/v1alpha1)');
  });

  it('judges an object of a served group whatever its kind says: a typo is no other kind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-kind-'));
    const { kind: _kind, ...kindless } = cluster as Record<string, unknown>;
    writeFileSync(join(dir, 'typo.yaml'), [stringify({ ...kindless, Kind: 'Cluster' }), stringify({ ...cluster, kind: 'cluster' })].join('---\n'));
    const text = await cli(['validate', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/typo\.yaml:\d+: <no kind> "member1" is invalid: kind: Required value: supported values: /);
    expect(text.stdout).toMatch(/typo\.yaml:\d+: cluster "member1" is invalid: kind: Unsupported value: "cluster": supported values: /);
    expect(text.stdout).toContain('2 objects in 1 file: 0 valid, 2 invalid, 0 skipped');
    const json = JSON.parse((await cli(['validate', '-o', 'json', dir])).stdout);
    expect(json.results.map((r: { status: string; group?: string }) => [r.status, r.group])).toEqual([['invalid', 'cluster.karmada.io'], ['invalid', 'cluster.karmada.io']]);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse((await cli(['validate', '-o', 'junit', dir])).stdout);
    expect(Number(xml.testsuites.failures)).toBe(2);
    // Another group's object is another kind, and is skipped as before.
    writeFileSync(join(dir, 'typo.yaml'), stringify({ ...cluster, apiVersion: 'cluster.example.com/v1', kind: 'cluster' }));
    expect((await cli(['validate', dir])).stdout).toContain('1 object in 1 file: 0 valid, 0 invalid, 1 skipped');
  });

  it('reads -h and --help after -- as file names, as it advises, rather than printing help', async () => {
    for (const name of ['-h', '--help']) {
      const result = await cli(['validate', '--', name]);
      expect(result.stdout).not.toContain('Flags:');
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).toContain(name);
    }
    expect((await cli(['validate', '-h', '--', 'x.yaml'])).stdout).toContain('Flags:');
  });

  it("skips another API group's object of a kind fleetgate serves: Cluster API's and CloudNativePG's Clusters are not Karmada's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-group-'));
    const capi = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'capi', namespace: 'default' }, spec: { clusterNetwork: {} } };
    const cnpg = { apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', metadata: { name: 'pg', namespace: 'db' }, spec: { instances: 3 } };
    writeFileSync(join(dir, 'others.yaml'), [stringify(capi), stringify(cnpg)].join('---\n'));
    const text = await cli(['validate', dir]);
    expect(text.stdout).toContain('2 objects in 1 file: 0 valid, 0 invalid, 2 skipped');
    expect(text.code).toBe(0);
    // The served group at the wrong version, or no apiVersion at all, is still a Karmada Cluster with a mistake.
    const { apiVersion: _apiVersion, ...versionless } = cluster as Record<string, unknown>;
    writeFileSync(join(dir, 'others.yaml'), [stringify({ ...cluster, apiVersion: 'cluster.karmada.io/v1' }), stringify(versionless)].join('---\n'));
    const mistaken = await cli(['validate', dir]);
    expect(mistaken.stdout).toMatch(/Cluster "member1" is invalid: apiVersion: Unsupported value: "cluster.karmada.io\/v1"/);
    expect(mistaken.stdout).toMatch(/Cluster "member1" is invalid: apiVersion: Required value/);
    expect(mistaken.code).toBe(1);
    // Under another group domain, karmada.io's own Cluster is another group's.
    writeFileSync(join(dir, 'others.yaml'), stringify(cluster));
    expect((await cli(['validate', '--group-domain', 'example.com', dir])).stdout).toContain('1 object in 1 file: 0 valid, 0 invalid, 1 skipped');
  });

  it("accepts a namespace on a cluster-scoped kind, as kubectl apply does (the API server clears it), with a warning; --old still finds the stored object", async () => {
    // The shape of Karmada's own artifacts/example/cr_cluster.yaml.
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-scope-'));
    const withNamespace = { ...cluster, metadata: { ...(cluster as any).metadata, namespace: 'karmada-cluster' } };
    writeFileSync(join(dir, 'cluster.yaml'), stringify(withNamespace));
    const text = await cli(['validate', dir]);
    expect(text.stdout).toContain(`Warning: Cluster "member1": metadata.namespace: ignored: Cluster is cluster-scoped`);
    expect(text.stdout).toContain('1 object in 1 file: 1 valid, 0 invalid');
    expect(text.code).toBe(0);
    writeFileSync(join(dir, 'old.yaml'), stringify(cluster));
    const update = await cli(['validate', '--operation', 'UPDATE', '--old', join(dir, 'old.yaml'), join(dir, 'cluster.yaml')]);
    expect(update.stdout).not.toContain('no stored object');
    expect(update.code).toBe(0);
  });

  it('passes over dot folders and node_modules inside a directory, as fleetgate test does, but reads one named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-tooling-'));
    for (const sub of ['.github/workflows', 'node_modules/chart']) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, 'a.yaml'), stringify(cluster));
    writeFileSync(join(dir, '.github/workflows/ci.yaml'), 'on: [push\n');
    writeFileSync(join(dir, 'node_modules/chart/bad.yaml'), stringify({ ...cluster, spec: { syncMode: 'Both' } }));
    const all = await cli(['validate', dir]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('1 object in 1 file: 1 valid');
    expect((await cli(['validate', join(dir, 'node_modules')])).code).toBe(1);
    expect((await cli(['validate', join(dir, '.github')])).code).toBe(2);
  });

  it('says in the JSON summary whether the run passed, as the exit status does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-passed-'));
    writeFileSync(join(dir, 'a.yaml'), stringify(configMap));
    const passed = async (args: string[]) => JSON.parse((await cli(['validate', '-o', 'json', ...args, dir])).stdout).summary.passed;
    expect(await passed([])).toBe(true);
    expect(await passed(['--strict'])).toBe(false);
    writeFileSync(join(dir, 'a.yaml'), stringify(cluster));
    expect(await passed([])).toBe(true);
    writeFileSync(join(dir, 'b.yaml'), 'a: [');
    expect(await passed([])).toBe(false);
  });

  it('checks an update against the stored object with --operation UPDATE --old', async () => {
    const mcs = examples.find((e) => e.kind === 'MultiClusterService')!;
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-update-'));
    writeFileSync(join(dir, 'old.yaml'), stringify(mcs));
    writeFileSync(join(dir, 'new.yaml'), stringify({ ...mcs, spec: { ...(mcs as any).spec, types: ['LoadBalancer'] } }));
    const { code, stdout } = await cli(['validate', '--operation', 'UPDATE', '--old', join(dir, 'old.yaml'), join(dir, 'new.yaml')]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/MultiClusterService ".*" is invalid: spec\.types: Invalid value: .*immutable/);
  });

  it('lists reading problems first, then those of --old, then those of objects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-order-'));
    writeFileSync(join(dir, 'a.yaml'), stringify(cluster));
    writeFileSync(join(dir, 'b.yaml'), 'kind: [oops\n');
    writeFileSync(join(dir, 'old.yaml'), 'kind: [old\n');
    const { code, stdout } = await cli(['validate', '--operation', 'UPDATE', '--old', join(dir, 'old.yaml'), join(dir, 'a.yaml'), join(dir, 'b.yaml')]);
    expect(code).toBe(2);
    const errors = stdout.split('\n').filter((l) => l.includes(': error: '));
    expect(errors.map((l) => basename(l.split(':')[0]!))).toEqual(['b.yaml', 'old.yaml', 'a.yaml']);
    expect(errors[2]).toContain('no stored object with this kind, namespace and name');
  });

  it('answers the context rules from --context', async () => {
    const ric = examples.find((e) => e.kind === 'ResourceInterpreterCustomization')!;
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-context-'));
    writeFileSync(join(dir, 'new.yaml'), stringify(ric));
    writeFileSync(join(dir, 'existing.yaml'), stringify({ ...ric, metadata: { name: 'existing' } }));
    const without = await cli(['validate', join(dir, 'new.yaml')]);
    expect(without.code).toBe(0);
    expect(without.stdout).toContain('not checked: no lookups were supplied');
    const withContext = await cli(['validate', '--context', join(dir, 'existing.yaml'), join(dir, 'new.yaml')]);
    expect(withContext.code).toBe(1);
    expect(withContext.stdout).toContain('Forbidden: conflicts with ResourceInterpreterCustomization "existing"');
  });

  it('prints the defaults with --show-defaults', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-defaults-'));
    const bare = { ...cluster, spec: { syncMode: 'Push' } };
    writeFileSync(join(dir, 'c.yaml'), stringify(bare));
    const { stdout } = await cli(['validate', '--show-defaults', dir]);
    expect(stdout).toMatch(/Cluster "member1" defaults: \[\{"op":"add","path":"\/spec\/resourceModels"/);
  });

  it("shows Karmada's mutations of a Work with --show-defaults: a random id, and the pruned manifests", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-defaults-'));
    const work = {
      apiVersion: 'work.karmada.io/v1alpha1',
      kind: 'Work',
      metadata: { name: 'w', namespace: 'karmada-es-member1' },
      spec: { workload: { manifests: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec: { clusterIP: '10.96.0.12', ports: [{ port: 80 }] } }] } },
    };
    writeFileSync(join(dir, 'w.yaml'), stringify(work));
    const { stdout, code } = await cli(['validate', '--show-defaults', '--output', 'json', dir]);
    expect(code).toBe(0);
    const [{ defaults }] = JSON.parse(stdout).results;
    const id = defaults[0].value['work.karmada.io/permanent-id'];
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(defaults.map((op: any) => `${op.op} ${op.path}`)).toEqual([
      'add /metadata/labels',
      'remove /spec/workload/manifests/0/spec/clusterIP',
      'add /spec/workload/manifests/0/metadata/annotations',
      'add /spec/workload/manifests/0/metadata/labels',
    ]);
    expect(defaults[3].value).toEqual({ 'work.karmada.io/permanent-id': id });
  });

  it('writes well-formed JUnit XML with the right counts', async () => {
    const dir = fixtureDir();
    const { stdout, code } = await cli(['validate', '--output', 'junit', dir]);
    expect(code).toBe(1);
    expect(XMLValidator.validate(stdout)).toBe(true);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(stdout);
    const objects = examples.length + 2; // the other examples in all.json, two Clusters, one ConfigMap, minus the example Cluster counted once
    expect(Number(xml.testsuites.tests)).toBe(objects);
    expect(Number(xml.testsuites.failures)).toBe(1);
    expect(Number(xml.testsuites.skipped)).toBe(1);
  });

  it('says in every output when an object has more causes than it lists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-many-'));
    writeFileSync(join(dir, 'many.json'), JSON.stringify({ ...cluster, metadata: { name: 'm1', finalizers: Array(1500).fill('-') } }));
    const text = await cli(['validate', dir]);
    expect(text.code).toBe(1);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('is invalid: metadata.finalizers['))).toHaveLength(1000);
    expect(lines).toContain(`${join(dir, 'many.json')}:1: Cluster "m1" is invalid: more causes not listed: fleetgate lists the first 1000`);

    const json = JSON.parse((await cli(['validate', '--output', 'json', dir])).stdout);
    expect(json.results[0]).toMatchObject({ status: 'invalid', truncated: true });
    expect(json.results[0].causes).toHaveLength(1000);

    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse((await cli(['validate', '--output', 'junit', dir])).stdout);
    const failure = xml.testsuites.testsuite.testcase.failure;
    expect(failure.message).toMatch(/^1000\+ problem\(s\): metadata\.finalizers\[0\]: /);
    expect(failure['#text'].trimEnd().endsWith('more causes not listed: fleetgate lists the first 1000')).toBe(true);
  });

  it('refuses a document that YAML aliases expand beyond any real manifest, quickly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-aliases-'));
    let bomb = 'x0: &a0 [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 10; i++) bomb += `x${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
    bomb += 'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: m1}\nspec: {syncMode: Push, id: *a9}\n';
    writeFileSync(join(dir, 'bomb.yaml'), bomb);
    // Expanded, the document would hold 3.4 billion values: the test timeout is the guard.
    for (const output of ['text', 'json']) {
      const { code, stdout } = await cli(['validate', '--output', output, dir]);
      expect(code).toBe(2);
      expect(stdout).toContain('expands to more than 1,000,000 values through YAML aliases');
    }
  });

  it('refuses the documents of a file past what all of them may expand to through YAML aliases', async () => {
    // Each expands to some 900,000 values, under the bound for one document; five pass the file's bound of four million.
    const laughs = (i: number) =>
      `apiVersion: remedy.karmada.io/v1alpha1\nkind: Remedy\nmetadata: {name: r${i}}\nspec: {actions: [TrafficControl]}\nx:\n  l0: &l0 lol\n` +
      [1, 2, 3, 4, 5].map((l) => `  l${l}: &l${l} [${Array(10).fill(`*l${l - 1}`).join(',')}]\n`).join('') +
      `  l6: [${Array(7).fill('*l5').join(',')}]\n`;
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-laughs-'));
    writeFileSync(join(dir, 'laughs.yaml'), [0, 1, 2, 3, 4, 5].map(laughs).join('---\n'));
    const { code, stdout } = await cli(['validate', dir]);
    expect(code).toBe(2);
    const refusal = 'error: the documents of this file expand to more than 4,000,000 values through YAML aliases; refusing this one';
    expect(stdout).toContain(`${join(dir, 'laughs.yaml')}:53: ${refusal}\n${join(dir, 'laughs.yaml')}:66: ${refusal}\n`);
    expect(lastLine(stdout)).toMatch(/^4 objects in 1 file: 4 valid, .*, 2 errors$/);
  });

  it('has help with examples', async () => {
    const { code, stdout } = await cli(['validate', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Examples:');
  });
});
