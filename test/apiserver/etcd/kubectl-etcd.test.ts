/**
 * The real kubectl against two API servers over one etcd: `kubectl apply -f examples/` through
 * one, `get` and `get -w` through the other, and a write through the first seen by the watch.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openEtcdStorage } from '../../../src/apiserver/storage/etcd-store.js';
import { apiResources } from '../../../src/apiserver/resources.js';
import { collectionPrefix } from '../../../src/apiserver/keys.js';
import { kubectlSkipReason } from '../kubectl.js';
import { eventually, startKubectlServer, type KubectlServer } from '../kubectl-server.js';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';

const EXAMPLES = join(import.meta.dirname, '../../../examples');
const kinds = apiResources().map((resource) => collectionPrefix(resource, undefined));

describeWithEtcd('kubectl against two fleetgate apiservers over one etcd', () => {
  let etcd: EtcdServer;
  let a: KubectlServer;
  let b: KubectlServer;

  beforeAll(async () => {
    etcd = await startEtcd();
    const open = () => openEtcdStorage({ servers: [etcd.url], compactionIntervalMs: 0, kinds });
    a = await startKubectlServer({ storage: await open() });
    b = await startKubectlServer({ storage: await open() });
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await etcd?.close();
  });

  it('applies every example through one and gets them, with the same resourceVersions, through the other', async () => {
    const applied = await a.kubectl(['apply', '-f', EXAMPLES]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.trim().split('\n')).toHaveLength(readdirSync(EXAMPLES).filter((file) => file.endsWith('.yaml')).length);
    const plurals = apiResources().map((resource) => resource.plural).join(',');
    const versions = (server: KubectlServer) => server.kubectl(['get', plurals, '-A', '-o', 'jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion}{"\\n"}{end}']);
    const [onA, onB] = await Promise.all([versions(a), versions(b)]);
    expect(onB.stdout).toBe(onA.stdout);
    expect(onB.stdout.trim().split('\n').length).toBe(new Set(applied.stdout.trim().split('\n')).size);
    const again = await b.kubectl(['apply', '-f', EXAMPLES]);
    expect(again.stdout).not.toContain('configured');
  });

  it('kubectl get -w on one shows a label set through the other', async () => {
    const watch = b.spawnKubectl(['get', 'clusters', '-w', '-o', 'custom-columns=NAME:.metadata.name,TEAM:.metadata.labels.team']);
    await eventually(() => watch.output().includes('member1'), 'the initial list on the watch');
    const labelled = await a.kubectl(['label', 'cluster', 'member1', 'team=blue']);
    expect(labelled.code, labelled.stderr).toBe(0);
    await eventually(() => /member1\s+blue/.test(watch.output()), 'the labelled cluster on the watch');
    watch.child.kill('SIGTERM');
    await watch.exited;
  });
}, kubectlSkipReason);
