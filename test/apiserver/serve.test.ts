/**
 * serveApi: HTTPS with the development CA, authentication (bearer tokens from kube's token file,
 * client certificates), the refusal to serve a non-loopback address unauthenticated, probes and
 * metrics, logs without tokens or object contents, and a shutdown that ends watches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { pino } from 'pino';
import { createCA, createClientCert } from '../../certs/tinyca.js';
import { serveApi, type ApiServerOptions, type RunningApiServer } from '../../src/apiserver/serve.js';
import { createMemoryStorage } from '../../src/apiserver/storage/index.js';
import { cluster } from '../fixtures/cluster.js';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
let running: RunningApiServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(options: Partial<ApiServerOptions> = {}, logLines?: string[]): Promise<{ server: RunningApiServer; ca: Buffer }> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-apiserver-serve-'));
  const logger = logLines ? pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) }) : pino({ level: 'silent' });
  running = await serveApi({ storage: createMemoryStorage(), port: 0, probePort: 0, devCertDir: join(dir, 'certs'), logger, ...options });
  return { server: running, ca: readFileSync(running.caFile!) };
}

function call(server: RunningApiServer, ca: Buffer, method: string, path: string, options: { body?: unknown; token?: string; cert?: { certPem: string; keyPem: string } } = {}): Promise<{ status: number; body: any; text: string }> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method,
        ca,
        servername: 'localhost',
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
        ...(options.cert ? { cert: options.cert.certPem, key: options.cert.keyPem } : {}),
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode!, body, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const probe = async (server: RunningApiServer, path: string) => {
  const res = await fetch(`http://127.0.0.1:${server.probePort}${path}`);
  return { status: res.status, text: await res.text() };
};

describe('fleetgate apiserver serving', () => {
  it('serves HTTPS with the development CA on loopback, with no authentication', async () => {
    const { server, ca } = await start();
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    const version = await call(server, ca, 'GET', '/version');
    expect(version.body).toMatchObject({ major: '1', minor: '32' });
    expect((await call(server, ca, 'POST', CLUSTERS, { body: cluster })).status).toBe(201);
  });

  it('refuses to serve a non-loopback address without authentication', async () => {
    await expect(start({ bindAddress: '0.0.0.0' })).rejects.toThrow(/refusing to serve on 0\.0\.0\.0 without authentication: give --token-auth-file and\/or --client-ca-file/);
  });

  it('with --token-auth-file: a known bearer token gets in, none or another is a 401 Status', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-tokens-'));
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 's3cr3t-token,alice,1000,"admins,devs"\nother-token,bob,1001\n');
    const { server, ca } = await start({ tokenAuthFile: file });
    const none = await call(server, ca, 'GET', CLUSTERS);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    expect((await call(server, ca, 'GET', CLUSTERS, { token: 'wrong' })).status).toBe(401);
    expect((await call(server, ca, 'GET', CLUSTERS, { token: 's3cr3t-token' })).status).toBe(200);
    expect((await call(server, ca, 'GET', CLUSTERS, { token: 'other-token' })).status).toBe(200);
  });

  it('a token file that is not kube\'s format is refused at start, without its contents', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-tokens-'));
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'only-a-token-xyz\n');
    await expect(start({ tokenAuthFile: file })).rejects.toThrow(/line 1: want at least 3 columns/);
    await expect(start({ tokenAuthFile: file })).rejects.not.toThrow(/only-a-token-xyz/);
  });

  it('with --client-ca-file: a certificate the CA signed gets in, none or another CA\'s is a 401', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-clientca-'));
    const clientCa = createCA('client CA');
    writeFileSync(join(dir, 'client-ca.crt'), clientCa.certPem);
    const { server, ca } = await start({ clientCaFile: join(dir, 'client-ca.crt'), bindAddress: '127.0.0.1' });
    const good = createClientCert(clientCa, 'alice');
    const stranger = createClientCert(createCA('other CA'), 'mallory');
    expect((await call(server, ca, 'GET', CLUSTERS, { cert: good })).status).toBe(200);
    expect((await call(server, ca, 'GET', CLUSTERS)).status).toBe(401);
    expect((await call(server, ca, 'GET', CLUSTERS, { cert: stranger })).status).toBe(401);
  }, 60_000);

  it('probes and metrics on the plain port', async () => {
    const { server, ca } = await start();
    expect(await probe(server, '/healthz')).toEqual({ status: 200, text: 'ok' });
    expect(await probe(server, '/readyz')).toEqual({ status: 200, text: 'ok' });
    await call(server, ca, 'GET', `${CLUSTERS}/nope`);
    const metrics = await probe(server, '/metrics');
    expect(metrics.text).toMatch(/apiserver_request_total\{verb="GET",resource="clusters.cluster.karmada.io",code="404"\} 1/);
  });

  it('logs neither tokens nor object contents at info', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-tokens-'));
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'tok-secret-123,alice,1000\n');
    const lines: string[] = [];
    const { server, ca } = await start({ tokenAuthFile: file }, lines);
    const secretCluster = structuredClone(cluster) as any;
    secretCluster.spec.proxyHeader = { 'Proxy-Authorization': 'Basic very-secret-value' };
    secretCluster.spec.syncMode = 'Bogus';
    await call(server, ca, 'POST', CLUSTERS, { body: secretCluster, token: 'tok-secret-123' });
    await call(server, ca, 'POST', CLUSTERS, { body: secretCluster, token: 'tok-wrong-456' });
    await call(server, ca, 'POST', CLUSTERS, { body: '{"not json', token: 'tok-secret-123' });
    const log = lines.join('');
    expect(log).toContain('fleetgate apiserver serving on');
    // A refusal is logged by its cause fields, not their messages (which quote the values).
    expect(log).toMatch(/"code":422,"reason":"Invalid","causes":\["spec.syncMode"\],"msg":"refused"/);
    for (const secret of ['tok-secret-123', 'tok-wrong-456', 'very-secret-value']) expect(log).not.toContain(secret);
  });

  it('close() turns readiness false, ends running watches, and stops', async () => {
    const { server, ca } = await start();
    const ended = new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: `${CLUSTERS}?watch=true`, ca, servername: 'localhost' }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    await call(server, ca, 'POST', CLUSTERS, { body: cluster });
    const closing = server.close('SIGTERM');
    running = undefined;
    expect(await ended).toContain('"type":"ADDED"');
    await closing;
  });
});
