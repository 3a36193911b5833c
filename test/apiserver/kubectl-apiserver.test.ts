/**
 * The real kubectl against a real `fleetgate apiserver`, for every kind of examples/: apply
 * (create, unchanged, changed), get (table, -o yaml, -o name), get -w seeing a change, patch
 * --type merge and json, label, delete waiting on a finalizer, create --dry-run=server, diff,
 * explain, api-resources; and the texts users know for a bad manifest, a deprecated field and a
 * stale resourceVersion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { kubectlSkipReason } from './kubectl.js';
import { eventually, startKubectlServer, type KubectlServer } from './kubectl-server.js';
import { apiResources } from '../../src/apiserver/resources.js';

if (kubectlSkipReason) console.warn(`[kubectl-apiserver] SKIPPED: ${kubectlSkipReason}`);
const suite = kubectlSkipReason ? describe.skip : describe;
const title = (t: string) => (kubectlSkipReason ? `${t} — SKIPPED: ${kubectlSkipReason}` : t);

const EXAMPLES = join(import.meta.dirname, '../../examples');
const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
const resources = apiResources();
const examples = files.map((file) => {
  const object = parse(readFileSync(join(EXAMPLES, file), 'utf8'));
  const resource = resources.find((r) => r.kind === object.kind)!;
  return { file, object, resource, name: object.metadata.name as string, namespace: object.metadata.namespace as string | undefined };
});
/** `cluster.cluster.karmada.io/member1`, as kubectl -o name prints it. */
const nameOf = (e: (typeof examples)[number]) => `${e.resource.singular}.${e.resource.group}/${e.name}`;
const ns = (e: (typeof examples)[number]) => (e.namespace ? ['-n', e.namespace] : []);

suite(title('kubectl against fleetgate apiserver'), () => {
  let k: KubectlServer;
  beforeAll(async () => {
    k = await startKubectlServer();
  }, 60_000);
  afterAll(() => k?.close());

  it('the examples cover all 13 kinds', () => {
    expect(new Set(examples.map((e) => e.object.kind)).size).toBe(13);
  });

  it('api-resources lists the 13 resources; explain reads a kind\'s spec', async () => {
    const listed = await k.kubectl(['api-resources', '--no-headers', '-o', 'name']);
    expect(listed.code).toBe(0);
    for (const r of resources) expect(listed.stdout).toContain(`${r.plural}.${r.group}`);
    const explained = await k.kubectl(['explain', 'clusters.spec.syncMode']);
    expect(explained.stderr).toBe('');
    expect(explained.stdout).toContain('syncMode');
  });

  it('create --dry-run=server stores nothing', async () => {
    const res = await k.kubectl(['create', '--dry-run=server', '-f', EXAMPLES]);
    expect(res.stderr.replace(/^Warning: .*\n/gm, '')).toBe('');
    for (const e of examples) expect(res.stdout).toContain(`${nameOf(e)} created (server dry run)`);
    const got = await k.kubectl(['get', 'clusters', '-o', 'name']);
    expect(got.stdout).toBe('');
  });

  it('apply creates every example, then reports it unchanged', async () => {
    const created = await k.kubectl(['apply', '-f', EXAMPLES]);
    expect(created.code).toBe(0);
    for (const e of examples) expect(created.stdout).toContain(`${nameOf(e)} created`);
    const versions = async () => (await k.kubectl(['get', resources.map((r) => r.plural).join(','), '-A', '-o', 'jsonpath={.items[*].metadata.resourceVersion}'])).stdout;
    const before = await versions();
    const again = await k.kubectl(['apply', '-f', EXAMPLES]);
    expect(again.code).toBe(0);
    for (const e of examples) expect(again.stdout).toContain(`${nameOf(e)} unchanged`);
    // Nothing was written: no resourceVersion moved.
    expect(await versions()).toBe(before);
  });

  it('get: a table with Karmada\'s columns, -o yaml, -o name, for every kind', async () => {
    for (const e of examples) {
      const table = await k.kubectl(['get', e.resource.plural, e.name, ...ns(e)]);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s/);
      expect(table.stdout).toContain(e.name);
      const yaml = parse((await k.kubectl(['get', e.resource.plural, e.name, ...ns(e), '-o', 'yaml'])).stdout);
      expect(yaml.metadata.uid).toBeTruthy();
      expect(yaml.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toBeTruthy();
      expect((await k.kubectl(['get', e.resource.plural, e.name, ...ns(e), '-o', 'name'])).stdout.trim()).toBe(nameOf(e));
    }
    const clusters = await k.kubectl(['get', 'clusters']);
    expect(clusters.stdout.split('\n')[0]).toMatch(/^NAME\s+VERSION\s+MODE\s+READY\s+AGE/);
  });

  it('apply of a changed manifest reports it configured; diff shows the change first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-changed-'));
    cpSync(EXAMPLES, dir, { recursive: true });
    for (const e of examples) {
      const changed = structuredClone(e.object);
      changed.metadata.labels = { ...(changed.metadata.labels ?? {}), 'example.com/changed': 'yes' };
      // JSON, which kubectl reads as YAML 1.1 would not misread ("yes" stays a string).
      writeFileSync(join(dir, e.file), JSON.stringify(changed));
    }
    const none = await k.kubectl(['diff', '-f', EXAMPLES]);
    expect(none.code, none.stderr).toBe(0);
    const diff = await k.kubectl(['diff', '-f', dir]);
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toContain('+    example.com/changed: "yes"');
    // A dry run changes no resourceVersion: the diff has no spurious line for it.
    expect(diff.stdout).not.toMatch(/^[-+]\s+resourceVersion/m);
    const applied = await k.kubectl(['apply', '-f', dir]);
    expect(applied.code, applied.stderr).toBe(0);
    for (const e of examples) expect(applied.stdout).toContain(`${nameOf(e)} configured`);
  });

  it('patch --type merge and --type json, and label, on every kind', async () => {
    const merge = await k.kubectl(['patch', '-f', EXAMPLES, '--type', 'merge', '-p', '{"metadata":{"annotations":{"example.com/merge":"1"}}}']);
    expect(merge.code, merge.stderr).toBe(0);
    const json = await k.kubectl(['patch', '-f', EXAMPLES, '--type', 'json', '-p', '[{"op":"add","path":"/metadata/annotations/example.com~1json","value":"2"}]']);
    expect(json.code, json.stderr).toBe(0);
    const label = await k.kubectl(['label', '-f', EXAMPLES, 'example.com/label=3']);
    expect(label.code, label.stderr).toBe(0);
    for (const e of examples) {
      for (const out of [merge.stdout, json.stdout]) expect(out).toContain(`${nameOf(e)} patched`);
      expect(label.stdout).toContain(`${nameOf(e)} labeled`);
      const got = parse((await k.kubectl(['get', e.resource.plural, e.name, ...ns(e), '-o', 'yaml'])).stdout);
      expect(got.metadata.annotations).toMatchObject({ 'example.com/merge': '1', 'example.com/json': '2' });
      expect(got.metadata.labels['example.com/label']).toBe('3');
    }
  });

  it('the default strategic merge patch prints the 415 kubectl users get for custom resources', async () => {
    const res = await k.kubectl(['patch', 'cluster', 'member1', '-p', '{"spec":{"region":"x"}}']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'application/strategic-merge-patch+json is not supported by cluster.karmada.io/v1alpha1, Kind=Cluster: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('get -w sees a change, for every kind', async () => {
    const watchers = examples.map((e) => ({ e, w: k.spawnKubectl(['get', e.resource.plural, ...ns(e), '-w', '--output-watch-events']) }));
    try {
      for (const { e, w } of watchers) await eventually(() => w.output().includes(e.name), `the first row of ${e.file}`);
      const label = await k.kubectl(['label', '-f', EXAMPLES, 'example.com/watched=yes']);
      expect(label.code, label.stderr).toBe(0);
      for (const { e, w } of watchers) await eventually(() => /MODIFIED/.test(w.output()), `a MODIFIED row for ${e.file}`);
    } finally {
      for (const { w } of watchers) w.child.kill();
    }
  });

  it('a bad manifest prints the library\'s causes as kubectl words them', async () => {
    const res = await k.kubectl(['apply', '-f', join(EXAMPLES, 'broken')]);
    expect(res.code).toBe(1);
    // Every cause, in the order of the fields in the manifest (the missing syncMode last).
    expect(res.stderr).toContain(
      'The Cluster "member-broken" is invalid: \n' +
        '* spec.apiEndpoint: Invalid value: "https://user:secret@10.0.0.9:6443": user information is not permitted in the URL\n' +
        '* spec.taints[0].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"\n' +
        '* spec.syncMode: Required value\n',
    );
  });

  it('an unknown field is refused as kubectl --validate=strict expects', async () => {
    const manifest = stringify({ ...examples.find((e) => e.object.kind === 'Cluster')!.object, metadata: { name: 'strict' }, spec: { syncMode: 'Push', bogusField: 1 } });
    const res = await k.kubectl(['apply', '-f', '-'], manifest);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Error from server (BadRequest): error when creating "STDIN": Cluster in version "v1alpha1" cannot be handled as a Cluster: strict decoding error: unknown field "spec.bogusField"');
  });

  it('a deprecated field prints a warning', async () => {
    const manifest = stringify({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'zoned' }, spec: { syncMode: 'Pull', zone: 'eu-central-1a' } });
    const res = await k.kubectl(['apply', '-f', '-'], manifest);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^Warning: .*spec\.zone/m);
  });

  it('a stale resourceVersion gets the Conflict text', async () => {
    const current = parse((await k.kubectl(['get', 'cluster', 'member1', '-o', 'yaml'])).stdout);
    expect((await k.kubectl(['label', 'cluster', 'member1', 'example.com/bump=1'])).code).toBe(0);
    current.spec.region = 'eu-west-1';
    const res = await k.kubectl(['replace', '-f', '-'], JSON.stringify(current));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on clusters.cluster.karmada.io "member1": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('delete waits on a finalizer, and ends once it is removed, for every kind', async () => {
    const add = await k.kubectl(['patch', '-f', EXAMPLES, '--type', 'merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
    expect(add.code, add.stderr).toBe(0);
    const deleting = k.spawnKubectl(['delete', '-f', EXAMPLES, '--timeout', '60s']);
    for (const e of examples) await eventually(() => deleting.output().includes(`${e.resource.singular}.${e.resource.group} "${e.name}" deleted`), `the delete of ${e.file}`);
    // Still there, marked, while the finalizer holds it.
    for (const e of examples) {
      const got = parse((await k.kubectl(['get', e.resource.plural, e.name, ...ns(e), '-o', 'yaml'])).stdout);
      expect(got.metadata.deletionTimestamp).toBeTruthy();
    }
    let settled = false;
    void deleting.exited.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 500));
    expect(settled).toBe(false);
    const clear = await k.kubectl(['patch', '-f', EXAMPLES, '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    expect(clear.code, clear.stderr).toBe(0);
    expect(await deleting.exited).toBe(0);
    for (const e of examples) expect((await k.kubectl(['get', e.resource.plural, e.name, ...ns(e)])).stderr).toContain('NotFound');
  }, 120_000);
});
