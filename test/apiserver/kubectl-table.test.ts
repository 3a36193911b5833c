/**
 * The real kubectl prints this server's Tables: `get` (with the Cluster printer and a CRD's
 * printer columns), `-o wide`, `-A`, and `get -w` over a Table watch whose later events carry no
 * column definitions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discoveryResponse } from '../../src/apiserver/discovery.js';
import { openApiResponse } from '../../src/apiserver/openapi.js';
import { apiResources } from '../../src/apiserver/resources.js';
import { negotiateResource, tableWatchEncoder, toTable } from '../../src/apiserver/table.js';
import { fakeServer, kubectlSkipReason, send, type FakeServer } from './kubectl.js';

if (kubectlSkipReason) console.warn(`[kubectl-table] SKIPPED: ${kubectlSkipReason}`);
const suite = kubectlSkipReason ? describe.skip : describe;
const title = (t: string) => (kubectlSkipReason ? `${t} — SKIPPED: ${kubectlSkipReason}` : t);

const resource = (kind: string) => apiResources().find((r) => r.kind === kind)!;
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

const clusters = {
  kind: 'ClusterList',
  apiVersion: 'cluster.karmada.io/v1alpha1',
  metadata: { resourceVersion: '40' },
  items: [
    {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'member1', creationTimestamp: minutesAgo(192), resourceVersion: '31' },
      spec: { syncMode: 'Push', apiEndpoint: 'https://172.18.0.3:6443', zones: ['zone-a', 'zone-b'], region: 'eu-west-1' },
      status: { kubernetesVersion: 'v1.31.2', conditions: [{ type: 'Ready', status: 'True' }] },
    },
    {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'member2', creationTimestamp: minutesAgo(15), resourceVersion: '39' },
      spec: { syncMode: 'Pull' },
    },
  ],
};

const works = {
  kind: 'WorkList',
  apiVersion: 'work.karmada.io/v1alpha1',
  metadata: { resourceVersion: '50' },
  items: [
    {
      apiVersion: 'work.karmada.io/v1alpha1',
      kind: 'Work',
      metadata: { name: 'nginx-687f7fb96f', namespace: 'karmada-es-member1', creationTimestamp: minutesAgo(70), resourceVersion: '44' },
      spec: { workload: { manifests: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] } },
      status: { conditions: [{ type: 'Applied', status: 'True' }] },
    },
    {
      apiVersion: 'work.karmada.io/v1alpha1',
      kind: 'Work',
      metadata: { name: 'svc-5c8f', namespace: 'karmada-es-member2', creationTimestamp: minutesAgo(25), resourceVersion: '49' },
      spec: { workload: { manifests: [{ apiVersion: 'v1', kind: 'Service' }] } },
    },
  ],
};

let registries = {
  kind: 'ResourceRegistryList',
  apiVersion: 'search.karmada.io/v1alpha1',
  metadata: { resourceVersion: '60' },
  items: [] as { metadata: Record<string, unknown> }[],
};

function handler(req: IncomingMessage, res: ServerResponse): boolean {
  const url = new URL(req.url!, 'http://localhost');
  const answer =
    discoveryResponse({ path: url.pathname, accept: req.headers.accept }) ?? openApiResponse({ path: url.pathname, hash: url.searchParams.get('hash'), accept: req.headers.accept });
  if (answer) {
    send(res, answer);
    return false;
  }
  type List = { metadata: object; items: { metadata: Record<string, unknown> }[] };
  const lists: Record<string, [string, List]> = {
    '/apis/cluster.karmada.io/v1alpha1/clusters': ['Cluster', clusters],
    '/apis/work.karmada.io/v1alpha1/works': ['Work', works],
    '/apis/search.karmada.io/v1alpha1/resourceregistries': ['ResourceRegistry', registries],
  };
  const found = lists[url.pathname];
  if (!found) return false;
  const [kind, list] = found;
  const representation = negotiateResource(req.headers.accept);
  const asTable = representation?.convert?.kind === 'Table';
  if (url.searchParams.get('watch') === 'true') {
    // Two changes, then the stream ends (kubectl get -w exits when it does).
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const encode = tableWatchEncoder(resource(kind));
    const changed = { ...list.items[1]!, metadata: { ...list.items[1]!.metadata, resourceVersion: '41' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } } as Record<string, unknown>;
    const added = { ...list.items[0]!, metadata: { ...list.items[0]!.metadata, name: 'member3', resourceVersion: '42', creationTimestamp: minutesAgo(20) } } as Record<string, unknown>;
    for (const [type, object] of [['MODIFIED', changed], ['ADDED', added]] as const) {
      res.write(`${JSON.stringify({ type, object: asTable ? encode(object) : object })}\n`);
    }
    res.end();
    return false;
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(asTable ? toTable(resource(kind), list as Record<string, unknown>, { version: representation!.convert!.version }) : list));
  return false;
}

const lines = (text: string) => text.trimEnd().split('\n').map((l) => l.trimEnd());

suite(title('kubectl get against Tables'), () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await fakeServer(handler);
  });
  afterAll(() => server?.close());

  it('prints clusters as Karmada does: NAME VERSION MODE READY AGE', async () => {
    const { code, stdout, stderr } = await server.kubectl(['get', 'clusters']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual([
      'NAME      VERSION   MODE   READY     AGE',
      'member1   v1.31.2   Push   True      3h12m',
      'member2             Pull   Unknown   15m',
    ]);
    const list = server.log.find((l) => l.url.startsWith('/apis/cluster.karmada.io/v1alpha1/clusters'))!;
    expect(list.accept).toBe('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json');
  });

  it('shows the priority-1 columns with -o wide', async () => {
    const { stdout } = await server.kubectl(['get', 'clusters', '-o', 'wide']);
    expect(lines(stdout)[0]).toBe('NAME      VERSION   MODE   READY     AGE     ZONES           REGION      PROVIDER   API-ENDPOINT              PROXY-URL');
    expect(lines(stdout)[1]).toBe('member1   v1.31.2   Push   True      3h12m   zone-a,zone-b   eu-west-1   <none>     https://172.18.0.3:6443   <none>');
  });

  it("prints a CRD kind's printer columns, with the namespace from each row's metadata under -A", async () => {
    const { code, stdout } = await server.kubectl(['get', 'works', '-A']);
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual([
      'NAMESPACE            NAME               WORKLOAD-KIND   APPLIED   AGE',
      'karmada-es-member1   nginx-687f7fb96f   Deployment      True      70m',
      'karmada-es-member2   svc-5c8f           Service                   25m',
    ]);
  });

  it('prints ResourceRegistry with the generic columns, and an empty list whose rows are unset', async () => {
    const empty = await server.kubectl(['get', 'resourceregistries']);
    expect([empty.code, empty.stdout, empty.stderr.trim()]).toEqual([0, '', 'No resources found']);
    registries = { ...registries, items: [{ metadata: { name: 'registry-1', creationTimestamp: '2025-01-10T12:00:00Z' } }] };
    const one = await server.kubectl(['get', 'resourceregistries']);
    expect(lines(one.stdout)).toEqual(['NAME         CREATED AT', 'registry-1   2025-01-10T12:00:00Z']);
  });

  it('prints a Table watch, headers from the first event only', async () => {
    const { code, stdout } = await server.kubectl(['get', 'clusters', '-w']);
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual([
      'NAME      VERSION   MODE   READY     AGE',
      'member1   v1.31.2   Push   True      3h12m',
      'member2             Pull   Unknown   15m',
      'member2             Pull   False     15m',
      'member3   v1.31.2   Push   True      20m',
    ]);
    const watch = server.log.find((l) => l.url.includes('watch=true'))!;
    expect(new URL(watch.url, server.url).searchParams.get('resourceVersion')).toBe('40');
  });
});
