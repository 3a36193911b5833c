/**
 * The real kubectl reads this server's discovery and OpenAPI documents: api-resources, short
 * names, explain, its OpenAPI disk cache, and server-side field validation chosen from the PATCH
 * operation's parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discoveryResponse } from '../../src/apiserver/discovery.js';
import { openApiResponse } from '../../src/apiserver/openapi.js';
import { fakeServer, kubectlSkipReason, send, type FakeServer } from './kubectl.js';

if (kubectlSkipReason) console.warn(`[kubectl-discovery] SKIPPED: ${kubectlSkipReason}`);
const suite = kubectlSkipReason ? describe.skip : describe;
const title = (t: string) => (kubectlSkipReason ? `${t} — SKIPPED: ${kubectlSkipReason}` : t);

/** Discovery and OpenAPI from the modules; `legacyOnly` hides the aggregated form, as an old server would. */
function documents(legacyOnly: boolean) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://localhost');
    const accept = legacyOnly && /^\/apis?\/?$/.test(url.pathname) ? 'application/json' : req.headers.accept;
    const answer =
      discoveryResponse({ path: url.pathname, accept, ifNoneMatch: req.headers['if-none-match'] }) ??
      openApiResponse({ path: url.pathname, hash: url.searchParams.get('hash'), accept, ifNoneMatch: req.headers['if-none-match'] });
    if (answer) {
      send(res, answer);
      return false;
    }
    if (req.method === 'GET' && url.pathname === '/apis/work.karmada.io/v1alpha1/namespaces/default/works') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'WorkList', apiVersion: 'work.karmada.io/v1alpha1', metadata: { resourceVersion: '7' }, items: [] }));
      return false;
    }
    if (req.method === 'POST' && url.pathname === '/apis/cluster.karmada.io/v1alpha1/clusters') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(body);
      });
      return true;
    }
    return false;
  };
}

suite(title('kubectl against the discovery and OpenAPI documents'), () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await fakeServer(documents(false));
  });
  afterAll(() => server?.close());

  it('lists the 13 resources with their short names through aggregated discovery', async () => {
    const { code, stdout, stderr } = await server.kubectl(['api-resources', '--no-headers']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = stdout.trim().split('\n').map((line) => line.split(/\s+/));
    expect(rows).toHaveLength(13);
    expect(rows).toContainEqual(['works', 'wk', 'work.karmada.io/v1alpha1', 'true', 'Work']);
    expect(rows).toContainEqual(['clusterresourcebindings', 'crb', 'work.karmada.io/v1alpha2', 'false', 'ClusterResourceBinding']);
    expect(rows).toContainEqual(['clusters', 'cluster.karmada.io/v1alpha1', 'false', 'Cluster']);
    const discovery = server.log.filter((l) => l.url.startsWith('/api'));
    expect(discovery.every((l) => l.url.startsWith('/api?') || l.url.startsWith('/apis?'))).toBe(true);
  });

  it('lists a category', async () => {
    const { stdout } = await server.kubectl(['api-resources', '--categories=karmada-io', '-o', 'name']);
    expect(stdout.trim().split('\n')).toHaveLength(9);
    expect(stdout).not.toContain('clusters.cluster.karmada.io');
  });

  it('resolves a short name', async () => {
    const { code, stderr } = await server.kubectl(['get', 'wk', '-n', 'default']);
    expect(stderr.trim()).toBe('No resources found in default namespace.');
    expect(code).toBe(0);
  });

  it('explains a field from the OpenAPI v3 document, then reads the document from its disk cache', async () => {
    const first = await server.kubectl(['explain', 'cluster.spec']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('KIND:       Cluster');
    expect(first.stdout).toContain('syncMode\t<string> -required-\n  enum: Push, Pull\n    How the cluster syncs resources from the control plane.');
    expect(first.stdout).toMatch(/taints\t<\[\]Object>/);
    const documentFetches = () => server.log.filter((l) => l.url.startsWith('/openapi/v3/apis/cluster.karmada.io/v1alpha1')).length;
    expect(documentFetches()).toBe(1);
    const second = await server.kubectl(['explain', 'clusters.spec.taints']);
    expect(second.stdout).toContain('effect\t<string> -required-');
    expect(documentFetches()).toBe(1);
  });

  it('validates on the server: kubectl sends fieldValidation=Strict, found on the PATCH operation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-manifest-'));
    try {
      const file = join(dir, 'c.yaml');
      writeFileSync(file, 'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: m1\nspec:\n  syncMode: Push\n  bogus: 1\n');
      const { code, stdout, stderr } = await server.kubectl(['create', '-f', file, '--dry-run=server']);
      expect(stderr).toBe('');
      expect(stdout.trim()).toBe('cluster.cluster.karmada.io/m1 created (server dry run)');
      expect(code).toBe(0);
      const post = server.log.find((l) => l.method === 'POST')!;
      expect(new URL(post.url, server.url).searchParams.get('fieldValidation')).toBe('Strict');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

suite(title('kubectl against legacy discovery'), () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await fakeServer(documents(true));
  });
  afterAll(() => server?.close());

  it('reads every group-version document and lists the same resources', async () => {
    const { code, stdout } = await server.kubectl(['api-resources', '--no-headers']);
    expect(code).toBe(0);
    const rows = stdout.trim().split('\n').map((line) => line.split(/\s+/));
    expect(rows).toHaveLength(13);
    expect(rows).toContainEqual(['works', 'wk', 'work.karmada.io/v1alpha1', 'true', 'Work']);
    const groupVersions = server.log.filter((l) => /^\/apis\/[^/?]+\/[^/?]+\?/.test(l.url)).map((l) => l.url.split('?')[0]);
    expect(new Set(groupVersions).size).toBe(10);
  });
});
