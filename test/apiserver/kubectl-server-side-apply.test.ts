/**
 * The real kubectl's server-side apply against a real `fleetgate apiserver`: create, re-apply
 * unchanged (no new resourceVersion), change, pruning, two managers with a conflict and
 * --force-conflicts, the migration from client-side apply (kubectl's four requests), diff
 * --server-side, --dry-run=server, and a status apply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlSkipReason } from './kubectl.js';
import { startKubectlServer, type KubectlServer } from './kubectl-server.js';

if (kubectlSkipReason) console.warn(`[kubectl-server-side-apply] SKIPPED: ${kubectlSkipReason}`);
const suite = kubectlSkipReason ? describe.skip : describe;
const title = (t: string) => (kubectlSkipReason ? `${t} — SKIPPED: ${kubectlSkipReason}` : t);

/** A Cluster manifest: `spec` lines indented by two spaces. */
const cluster = (name: string, spec: string[], top = 'spec'): string =>
  ['apiVersion: cluster.karmada.io/v1alpha1', 'kind: Cluster', 'metadata:', `  name: ${name}`, `${top}:`, ...spec.map((l) => `  ${l}`), ''].join('\n');

suite(title('kubectl apply --server-side against fleetgate apiserver'), () => {
  let k: KubectlServer;
  let dir: string;
  beforeAll(async () => {
    k = await startKubectlServer();
    dir = mkdtempSync(join(tmpdir(), 'fleetgate-ssa-manifests-'));
  }, 60_000);
  afterAll(async () => {
    await k?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let files = 0;
  const file = (text: string): string => {
    const path = join(dir, `m${++files}.yaml`);
    writeFileSync(path, text);
    return path;
  };
  const getJson = async (name: string): Promise<any> => {
    const res = await k.kubectl(['get', 'cluster', name, '-o', 'json', '--show-managed-fields']);
    expect(res.code, res.stderr).toBe(0);
    return JSON.parse(res.stdout);
  };
  /** The entries' managers, sorted: kube orders entries by time, which a busy machine can make a second later or not. */
  const managers = (object: any): string[] => (object.metadata.managedFields ?? []).map((e: any) => `${e.manager} ${e.operation}${e.subresource ? ` ${e.subresource}` : ''}`).sort();

  it('creates, re-applies unchanged without a new resourceVersion, applies a change, prunes a field removed from the manifest', async () => {
    const spec = ['syncMode: Push', 'apiEndpoint: https://ssa-1.example.com:6443', 'region: eu', 'taints:', '- {key: dedicated, value: gpu, effect: NoSchedule}'];
    const created = await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-1', spec))]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe('cluster.cluster.karmada.io/ssa-1 serverside-applied\n');
    const first = await getJson('ssa-1');
    expect(managers(first)).toEqual(['kubectl Apply']);

    const again = await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-1', spec))]);
    expect(again.code, again.stderr).toBe(0);
    expect((await getJson('ssa-1')).metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    const changed = await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-1', spec.map((l) => l.replace('region: eu', 'region: us'))))]);
    expect(changed.code, changed.stderr).toBe(0);
    const second = await getJson('ssa-1');
    expect(second.spec.region).toBe('us');
    expect(second.metadata.resourceVersion).not.toBe(first.metadata.resourceVersion);

    const pruned = await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-1', spec.filter((l) => !l.startsWith('region'))))]);
    expect(pruned.code, pruned.stderr).toBe(0);
    const third = await getJson('ssa-1');
    expect(third.spec.region).toBeUndefined();
    expect(third.spec.taints).toEqual([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
  });

  it('two managers: kubectl prints kube’s conflict text; --force-conflicts takes the field over', async () => {
    const gitops = cluster('ssa-2', ['syncMode: Push', 'apiEndpoint: https://ssa-2.example.com:6443', 'taints:', '- {key: dedicated, value: gpu, effect: NoSchedule}']);
    expect((await k.kubectl(['apply', '--server-side', '--field-manager=gitops', '-f', file(gitops)])).code).toBe(0);
    // The operator adds a taint of its own: the taints are keyed, so that is no conflict.
    const own = await k.kubectl(['apply', '--server-side', '--field-manager=operator', '-f', file(cluster('ssa-2', ['taints:', '- {key: maintenance, effect: NoExecute}']))]);
    expect(own.code, own.stderr).toBe(0);
    // (The library's defaults stamp a NoExecute taint's timeAdded.)
    expect((await getJson('ssa-2')).spec.taints).toMatchObject([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'maintenance', effect: 'NoExecute' },
    ]);

    const takeover = file(cluster('ssa-2', ['taints:', '- {key: maintenance, effect: NoExecute}', '- {key: dedicated, value: none, effect: NoSchedule}']));
    const refused = await k.kubectl(['apply', '--server-side', '--field-manager=operator', '-f', takeover]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "gitops": .spec.taints[effect="NoSchedule",key="dedicated"].value');
    expect(refused.stderr).toContain('command with the `--force-conflicts` flag.');
    expect((await getJson('ssa-2')).spec.taints[0].value).toBe('gpu');

    const forced = await k.kubectl(['apply', '--server-side', '--field-manager=operator', '--force-conflicts', '-f', takeover]);
    expect(forced.code, forced.stderr).toBe(0);
    const object = await getJson('ssa-2');
    expect(object.spec.taints).toContainEqual({ key: 'dedicated', value: 'none', effect: 'NoSchedule' });
    const operator = object.metadata.managedFields.find((e: any) => e.manager === 'operator');
    expect(operator.fieldsV1['f:spec']['f:taints']['k:{"effect":"NoSchedule","key":"dedicated"}']).toHaveProperty('f:value');
    const gitopsEntry = object.metadata.managedFields.find((e: any) => e.manager === 'gitops');
    expect(gitopsEntry.fieldsV1['f:spec']['f:taints']['k:{"effect":"NoSchedule","key":"dedicated"}']).not.toHaveProperty('f:value');
  });

  it('migrates from client-side apply: kubectl’s four requests, no conflict, the last-applied annotation kept up to date', async () => {
    const spec = ['syncMode: Push', 'apiEndpoint: https://ssa-3.example.com:6443', 'region: eu'];
    const created = await k.kubectl(['apply', '-f', file(cluster('ssa-3', spec))]);
    expect(created.stdout).toBe('cluster.cluster.karmada.io/ssa-3 created\n');
    expect(managers(await getJson('ssa-3'))).toEqual(['kubectl-client-side-apply Update']);

    const migrated = await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-3', spec)), '-v=8']);
    expect(migrated.code, migrated.stderr.slice(-2000)).toBe(0);
    expect(migrated.stdout).toBe('cluster.cluster.karmada.io/ssa-3 serverside-applied\n');
    // Each PATCH with the Content-Type kubectl sent it with.
    const lines = migrated.stderr.split('\n');
    const patches = lines.flatMap((line, i) => {
      const m = /\] PATCH https:\/\/[^/]+\/apis\/cluster\.karmada\.io\/v1alpha1\/clusters\/ssa-3\?(\S+) /.exec(line) ?? /\] PATCH https:\/\/[^/]+\/apis\/cluster\.karmada\.io\/v1alpha1\/clusters\/ssa-3\?(\S+)$/.exec(line);
      if (!m) return [];
      const type = lines.slice(i + 1, i + 8).map((l) => /Content-Type: (\S+)/.exec(l)?.[1]).find(Boolean);
      const query = new URLSearchParams(m[1]);
      return [`${type} ${query.get('fieldManager')}${query.has('force') ? ` force=${query.get('force')}` : ''}`];
    });
    expect(patches).toEqual([
      'application/apply-patch+yaml kubectl force=false',
      'application/apply-patch+yaml kubectl-last-applied',
      'application/json-patch+json kubectl',
      'application/apply-patch+yaml kubectl force=false',
    ]);
    // The JSON patch rewrites managedFields with the resourceVersion as its precondition.
    const jsonPatch = lines.find((l) => l.includes('"Request Body"') && l.includes('/metadata/managedFields'));
    expect(jsonPatch).toContain('/metadata/resourceVersion');

    const object = await getJson('ssa-3');
    expect(managers(object)).toEqual(['kubectl Apply', 'kubectl-last-applied Apply']);
    expect(JSON.parse(object.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).spec.region).toBe('eu');

    // Server-side from now on: a field deleted from the manifest goes, and the annotation follows the manifest.
    const pruned = await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-3', spec.filter((l) => !l.startsWith('region'))))]);
    expect(pruned.code, pruned.stderr).toBe(0);
    const after = await getJson('ssa-3');
    expect(after.spec.region).toBeUndefined();
    expect(JSON.parse(after.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).spec.region).toBeUndefined();
  });

  it('diff --server-side shows what an apply would change and changes nothing; --dry-run=server stores nothing', async () => {
    const spec = ['syncMode: Push', 'apiEndpoint: https://ssa-4.example.com:6443', 'region: eu'];
    expect((await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-4', spec))])).code).toBe(0);
    const before = await getJson('ssa-4');

    const same = await k.kubectl(['diff', '--server-side', '-f', file(cluster('ssa-4', spec))]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe('');

    const changedSpec = spec.map((l) => l.replace('region: eu', 'region: us'));
    const diff = await k.kubectl(['diff', '--server-side', '-f', file(cluster('ssa-4', changedSpec))]);
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(/^-  region: eu$/m);
    expect(diff.stdout).toMatch(/^\+  region: us$/m);
    // A dry run leaves the resourceVersion as it is.
    expect(diff.stdout).not.toMatch(/^[-+]\s+resourceVersion/m);

    const dry = await k.kubectl(['apply', '--server-side', '--dry-run=server', '-f', file(cluster('ssa-4', changedSpec))]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('cluster.cluster.karmada.io/ssa-4 serverside-applied (server dry run)\n');
    const dryCreate = await k.kubectl(['apply', '--server-side', '--dry-run=server', '-f', file(cluster('ssa-4-new', spec))]);
    expect(dryCreate.code, dryCreate.stderr).toBe(0);
    expect((await getJson('ssa-4')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect((await k.kubectl(['get', 'cluster', 'ssa-4-new'])).stderr).toContain('clusters.cluster.karmada.io "ssa-4-new" not found');
  });

  it('apply --subresource=status writes status only, under its own entry; a missing object is NotFound', async () => {
    const status = cluster('ssa-5', ['kubernetesVersion: v1.31.2', 'conditions:', '- {type: Ready, status: "True", reason: ClusterReady, message: ok, lastTransitionTime: "2026-11-20T08:00:00Z"}'], 'status');
    const missing = await k.kubectl(['apply', '--server-side', '--subresource=status', '--field-manager=cluster-status-controller', '-f', file(status)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('clusters.cluster.karmada.io "ssa-5" not found');

    expect((await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-5', ['syncMode: Push', 'apiEndpoint: https://ssa-5.example.com:6443']))])).code).toBe(0);
    const res = await k.kubectl(['apply', '--server-side', '--subresource=status', '--field-manager=cluster-status-controller', '-f', file(status)]);
    expect(res.code, res.stderr).toBe(0);
    const object = await getJson('ssa-5');
    expect(object.status.kubernetesVersion).toBe('v1.31.2');
    expect(object.status.conditions[0].type).toBe('Ready');
    expect(managers(object)).toEqual(['cluster-status-controller Apply status', 'kubectl Apply']);
    // A main-resource apply does not touch status, and the status manager's fields stay its own.
    expect((await k.kubectl(['apply', '--server-side', '-f', file(cluster('ssa-5', ['syncMode: Pull', 'apiEndpoint: https://ssa-5.example.com:6443']))])).code).toBe(0);
    expect((await getJson('ssa-5')).status.kubernetesVersion).toBe('v1.31.2');
  });
});
