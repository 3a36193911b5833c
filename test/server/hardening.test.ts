import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'node:https';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { pino } from 'pino';
import { createCA } from '../../certs/tinyca.js';
import { serve, type RunningServer, type ServeOptions } from '../../src/server/serve.js';
import { MAX_TIMEOUT_MS, reviewBudgetMs } from '../../src/server/deadline.js';
import { examples } from '../fixtures/index.js';
import { config } from '../fixtures/resourceinterpreterwebhookconfiguration.js';
import { servingCertDir } from './cert-dir.js';

const ca = createCA();
const cluster = examples.find((e) => e.kind === 'Cluster') as any;

/** A server whose info log lines are kept in `lines`. */
function start(options: ServeOptions = {}): Promise<RunningServer & { lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(ca), logger, ...options }).then((s) => Object.assign(s, { lines }));
}

/** Posts `body`, the first `split` bytes at once and the rest after `delayMs`. */
function post(server: RunningServer, path: string, body: string, split = body.length, delayMs = 0, agent?: Agent): Promise<{ status: number; json: any }> {
  return new Promise((done, fail) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, method: 'POST', ca: ca.certPem, servername: 'localhost', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => done({ status: res.statusCode ?? 0, json: text.startsWith('{') ? JSON.parse(text) : text }));
      },
    );
    req.on('error', fail);
    req.write(body.slice(0, split));
    setTimeout(() => req.end(body.slice(split)), delayMs);
  });
}

const reviewOf = (object: unknown) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', operation: 'CREATE', object } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `check` against a server whose lookups never answer, so every review that needs one waits out its budget. */
async function withLookupsThatNeverAnswer(check: (server: RunningServer) => Promise<void>): Promise<void> {
  const server = await start({ lookups: { getService: () => new Promise<undefined>(() => {}) } });
  try {
    await check(server);
  } finally {
    await server.close();
  }
}

/** A keep-alive agent whose one connection is `socket`. */
function agentOn(socket: TLSSocket): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agent.createConnection = () => socket;
  return agent;
}

/** A ?timeout=2s review on `agent`'s connection gets its own 1.8 s: none of it counted as spent before it arrived. */
async function expectOwnBudget(server: RunningServer, agent: Agent): Promise<void> {
  const sent = Date.now();
  const { json } = await post(server, '/validate?timeout=2s', reviewOf(config), undefined, 0, agent);
  expect(json.response.status).toMatchObject({ code: 503 });
  expect(Date.now() - sent).toBeGreaterThanOrEqual(1500);
  agent.destroy();
}

describe('what the logs and metrics may say', () => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => (server = await start()));
  afterAll(() => server.close());

  it('logs a denial with identity and field paths only', async () => {
    const bad = { ...cluster, spec: { ...cluster.spec, syncMode: 'Sideways' } };
    await post(server, '/validate-cluster', reviewOf(bad));
    const line = server.lines.find((l) => l.msg === 'denied' && l.uid === 'u1')!;
    expect(line).toMatchObject({ level: 30, kind: 'Cluster', name: cluster.metadata.name, operation: 'CREATE', causes: ['spec.syncMode'] });
    expect(JSON.stringify(line)).not.toContain('Sideways');
  });

  it('leaves out identity fields that are not strings, and keeps metric labels to a closed set', async () => {
    const hostile = { ...cluster, kind: { secret: 'KIND-VALUE' }, metadata: { name: { secret: 'NAME-VALUE' }, namespace: { secret: 'NS-VALUE' } } };
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u2', operation: { secret: 'OP-VALUE' }, object: hostile } });
    const { json } = await post(server, '/validate', body);
    expect(json.response.allowed).toBe(false);
    const logged = JSON.stringify(server.lines.filter((l) => l.uid === 'u2'));
    expect(logged).not.toMatch(/KIND-VALUE|NAME-VALUE|NS-VALUE|OP-VALUE/);
    await post(server, '/validate', reviewOf({ ...cluster, kind: 'Secret' }));
    const metrics = await (await fetch(`http://127.0.0.1:${server.probePort}/metrics`)).text();
    const kindsCounted = [...metrics.matchAll(/fleetgate_admission_verdicts_total\{kind="([^"]*)",operation="([^"]*)"/g)];
    expect(new Set(kindsCounted.map((m) => m[1]))).toEqual(new Set(['Cluster', 'unknown']));
    expect(new Set(kindsCounted.map((m) => m[2]))).toEqual(new Set(['CREATE', 'unknown']));
  });
});

describe('the review deadline', () => {
  it('runs from the moment the request arrives, not from when its body has been read', async () => {
    const never = { getService: () => new Promise<undefined>(() => {}) };
    const server = await start({ lookups: never });
    try {
      const began = Date.now();
      // Budget for ?timeout=3s: 2.7 s from arrival. The body's second half comes 1.5 s late.
      const { json } = await post(server, '/validate?timeout=3s', reviewOf(config), 50, 1500);
      expect(Date.now() - began).toBeLessThan(3000);
      expect(json.response.status).toMatchObject({ code: 503 });
    } finally {
      await server.close();
    }
  });

  it('runs, for the first request on a new connection, from the accept: the API server counts the handshake', () =>
    withLookupsThatNeverAnswer(async (server) => {
      // A TCP connection accepted now, its TLS handshake and request 1.5 s later (a busy server is slow to them).
      const raw = await new Promise<Socket>((done, fail) => {
        const s = tcpConnect(server.port, '127.0.0.1', () => done(s)).on('error', fail);
      });
      const accepted = Date.now();
      await sleep(1500);
      const agent = agentOn(tlsConnect({ socket: raw, ca: ca.certPem, servername: 'localhost' }));
      const first = await post(server, '/validate?timeout=3s', reviewOf(config), undefined, 0, agent);
      // Budget 2.7 s from the accept, not from the request's arrival 1.5 s later (that would be 4.2 s).
      expect(Date.now() - accepted).toBeLessThan(3000);
      expect(first.json.response.status).toMatchObject({ code: 503 });
      // The next request on the kept-alive connection starts its own clock, after an idle second.
      await sleep(1000);
      await expectOwnBudget(server, agent);
    }));

  it('does not count the time a connection waited idle after its handshake, before its first request', () =>
    // Go's transport keeps a connection it dialed for a request another connection served, and uses it later.
    withLookupsThatNeverAnswer(async (server) => {
      const idle = await new Promise<TLSSocket>((done, fail) => {
        const s = tlsConnect({ host: '127.0.0.1', port: server.port, ca: ca.certPem, servername: 'localhost' }, () => done(s)).on('error', fail);
      });
      await sleep(1500);
      await expectOwnBudget(server, agentOn(idle));
    }));

  it('never exceeds the longest timeout an API server sends', () => {
    expect(reviewBudgetMs('600h')).toBeLessThanOrEqual(MAX_TIMEOUT_MS);
    expect(reviewBudgetMs('30s')).toBe(reviewBudgetMs('31s'));
    expect(reviewBudgetMs('10s')).toBeLessThan(10_000);
  });
});
