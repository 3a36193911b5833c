import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:https';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createCA } from '../../certs/tinyca.js';
import { serve, type RunningServer, type ServeOptions } from '../../src/server/serve.js';
import { warmUp, warmUpRequests, WARM_UP_PROBE_EVERY, WARM_UP_ROUNDS } from '../../src/server/warm-up.js';
import { isWarmUp } from '../../src/server/warm-up-mark.js';
import { review } from '../../src/admission/review.js';
import { kindsFor } from '../../rules/index.js';
import { corpus } from '../../bench/corpus.js';
import { servingCertDir } from './cert-dir.js';
import { cluster, reviewOf } from './app-client.js';
import { runCli } from '../cli/run-cli.js';

const ca = createCA();
const objects = corpus() as Record<string, unknown>[];
let running: RunningServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A server whose log lines (debug and up) are kept in `lines`. */
async function start(options: ServeOptions): Promise<RunningServer & { lines: Record<string, any>[] }> {
  const lines: Record<string, any>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  running = await serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(ca), logger, ...options });
  return Object.assign(running, { lines });
}

const readyz = async (server: RunningServer) => {
  const res = await fetch(`http://127.0.0.1:${server.probePort}/readyz`);
  return { status: res.status, text: await res.text() };
};
const metrics = async (server: RunningServer) => (await fetch(`http://127.0.0.1:${server.probePort}/metrics`)).text();

function post(server: RunningServer, path: string, body: string): Promise<number> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'POST', ca: ca.certPem, servername: 'localhost', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const verdictLines = (lines: Record<string, any>[]) => lines.filter((l) => ['allowed', 'denied', 'errored'].includes(l.msg));

describe('the warm-up corpus', () => {
  it('reaches every kind, CREATE and UPDATE, validate and mutate, allowed and denied, and deletion protection', () => {
    const requests = warmUpRequests(objects, 'karmada.io');
    const seen = new Set<string>();
    for (const r of requests) {
      const body = JSON.parse(r.body);
      const mode = r.path.startsWith('/validate-resourcedeletionprotection') ? 'deletion-protection' : r.path.startsWith('/validate') ? 'validate' : 'mutate';
      const out = review(body, { mode }) as { response: { allowed: boolean } };
      seen.add(`${body.request.kind.kind} ${body.request.operation} ${mode} ${out.response.allowed ? 'allowed' : 'denied'}`);
    }
    for (const { kind } of kindsFor()) {
      for (const operation of ['CREATE', 'UPDATE']) {
        expect(seen, `${kind} ${operation}`).toContain(`${kind} ${operation} validate allowed`);
        expect(seen, `${kind} ${operation}`).toContain(`${kind} ${operation} validate denied`);
        expect(seen, `${kind} ${operation}`).toContain(`${kind} ${operation} mutate allowed`);
      }
      expect(seen).toContain(`${kind} DELETE deletion-protection allowed`);
    }
  });
});

describe('warmUp()', { timeout: 60_000 }, () => {
  it('marks every request it sends, and runs its full collection halfway through, between requests', async () => {
    const dir = servingCertDir(ca);
    const tls = { cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')) };
    const seen: { at: number; marked: boolean }[] = [];
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      seen.push({ at: performance.now(), marked: isWarmUp(req) });
      req.resume();
      req.on('end', () => res.end('{}'));
    };
    const forced: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (((entry as { detail?: { flags?: number } }).detail?.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced.push(entry.startTime);
    });
    observer.observe({ entryTypes: ['gc'] });
    // 13 requests a round (3 objects x 4, one DELETE), 4 rounds over 2 connections.
    const requests = warmUpRequests(objects.slice(0, 3), 'karmada.io');
    const result = await warmUp({ reviews: handler }, tls, requests, { rounds: 4, connections: 2 });
    await new Promise((r) => setTimeout(r, 100));
    observer.disconnect();
    expect(result).toMatchObject({ reviews: 52, cutShort: false, heapUsedMiB: expect.any(Object) });
    expect(seen.every((s) => s.marked)).toBe(true);
    expect(forced).toHaveLength(1);
    const before = seen.filter((s) => s.at < forced[0]!).length;
    // The 26th request is the one after the collection; the other connection's may have come in first.
    expect(before).toBeGreaterThanOrEqual(24);
    expect(before).toBeLessThanOrEqual(28);
  });

  it("sends the probe server's requests between the reviews, over a kept-alive connection and fresh ones", async () => {
    const dir = servingCertDir(ca);
    const tls = { cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')) };
    let reviewsSeen = 0;
    const reviews = (req: IncomingMessage, res: ServerResponse) => {
      reviewsSeen++;
      req.resume();
      req.on('end', () => res.end('{}'));
    };
    const probesSeen: { path: string; socket: object; reviewsBefore: number }[] = [];
    const probes = (req: IncomingMessage, res: ServerResponse) => {
      probesSeen.push({ path: req.url!, socket: req.socket, reviewsBefore: reviewsSeen });
      res.end('ok');
    };
    // 13 requests a round, 10 rounds: a probe after every WARM_UP_PROBE_EVERY (20) reviews, 6 of them.
    const requests = warmUpRequests(objects.slice(0, 3), 'karmada.io');
    const result = await warmUp({ reviews, probes }, tls, requests, { rounds: 10, connections: 2 });
    expect(result).toMatchObject({ reviews: 130, probes: 130 / WARM_UP_PROBE_EVERY | 0 });
    expect(probesSeen.map((p) => p.path)).toEqual(['/metrics', '/readyz', '/healthz', '/metrics', '/readyz', '/healthz']);
    // Spread over the rounds, not sent at the end.
    expect(probesSeen[0]!.reviewsBefore).toBeLessThanOrEqual(2 * WARM_UP_PROBE_EVERY);
    expect(probesSeen.at(-1)!.reviewsBefore).toBeGreaterThanOrEqual(100);
    // Turns 0, 2 and 4 share one kept-alive connection; 1, 3 and 5 open one each.
    const kept = new Set(probesSeen.filter((_, i) => i % 2 === 0).map((p) => p.socket));
    const fresh = new Set(probesSeen.filter((_, i) => i % 2 === 1).map((p) => p.socket));
    expect(kept.size).toBe(1);
    expect(fresh.size).toBe(3);
  });
});

describe('serve warms up before it is ready', { timeout: 60_000 }, () => {
  it('answers /readyz 503 while warming up and 200 once done; liveness answers throughout', async () => {
    const server = await start({ warmUp: { corpus: objects, budgetMs: 20_000 } });
    const during = await readyz(server);
    expect(during.status).toBe(503);
    expect(during.text).toMatch(/^warming up/);
    expect((await fetch(`http://127.0.0.1:${server.probePort}/livez`)).status).toBe(200);
    const result = await server.warmedUp;
    // WARM_UP_ROUNDS rounds of the corpus: 42 objects x 4 requests, and a DELETE of each of the 13 kinds.
    expect(result).toMatchObject({ reviews: WARM_UP_ROUNDS * (objects.length * 4 + 13), cutShort: false });
    expect(await readyz(server)).toEqual({ status: 200, text: 'ok' });
    const line = server.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('warmed up in '));
    expect(line).toMatchObject({ level: 30, warmUpReviews: result!.reviews, warmUpProbes: Math.floor(result!.reviews / WARM_UP_PROBE_EVERY) });
  });

  it('neither counts warm-up reviews in the metrics nor logs them, while a real review is both', async () => {
    // The webhook's own app answers the warm-up: the lookups given to it are what its reviews call.
    let lookupCalls = 0;
    const lookups = {
      listResourceInterpreterCustomizations: () => (lookupCalls++, []),
      getService: () => (lookupCalls++, undefined),
    };
    const server = await start({ lookups, warmUp: { corpus: objects, budgetMs: 20_000 } });
    await server.warmedUp;
    expect(lookupCalls).toBeGreaterThan(0);
    const before = await metrics(server);
    expect(before).not.toMatch(/^controller_runtime_webhook_requests_total\{/m);
    expect(before).not.toMatch(/^fleetgate_admission_verdicts_total\{/m);
    expect(before).not.toMatch(/^controller_runtime_webhook_latency_seconds_count\{/m);
    expect(verdictLines(server.lines)).toEqual([]);

    expect(await post(server, '/validate-cluster', reviewOf(cluster('Foo')))).toBe(200);
    const after = await metrics(server);
    expect(after).toContain('controller_runtime_webhook_requests_total{webhook="/validate-cluster",code="200"} 1');
    expect(after).toContain('fleetgate_admission_verdicts_total{kind="Cluster",operation="CREATE",verdict="denied"} 1');
    expect(verdictLines(server.lines)).toHaveLength(1);
  });

  it('warms up when the webhook port demands client certificates (the twin listener does not)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-warm-ca-'));
    writeFileSync(join(dir, 'ca.crt'), ca.certPem);
    const server = await start({ clientCaFile: join(dir, 'ca.crt'), warmUp: { corpus: objects.slice(0, 3), rounds: 1 } });
    expect(await server.warmedUp).toMatchObject({ reviews: 3 * 4 + 1 });
  });

  it('stops at its time budget and is ready all the same', async () => {
    const server = await start({ warmUp: { corpus: objects, budgetMs: 1, rounds: 100 } });
    const result = await server.warmedUp;
    expect(result?.cutShort).toBe(true);
    expect(result!.reviews).toBeLessThan(100 * (objects.length * 4 + 13));
    expect((await readyz(server)).status).toBe(200);
    expect(server.lines.find((l) => l.msg?.startsWith('warmed up in '))?.msg).toContain('cut short by its time budget');
  });

  it('runs a full garbage collection before readiness: the heap in use falls', async () => {
    const server = await start({ warmUp: { corpus: objects, budgetMs: 20_000, rounds: 2 } });
    const result = await server.warmedUp;
    expect(result!.heapUsedMiB!.after).toBeLessThan(result!.heapUsedMiB!.before);
    const line = server.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('warmed up in '));
    expect(line?.msg).toMatch(/heap in use \d+ -> \d+ MiB after a full collection/);
  });

  it('collects the young generation when idle after the warm-up, logged at debug', async () => {
    const server = await start({ warmUp: { corpus: objects, budgetMs: 20_000, rounds: 2 }, idleCollection: { windowMs: 200, idleShare: 10 } });
    await server.warmedUp;
    let line: Record<string, any> | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      await new Promise((r) => setTimeout(r, 50));
      line = server.lines.find((l) => l.msg === 'young-generation collection while idle');
    }
    expect(line).toMatchObject({ level: 20 });
    expect(line!.heapUsedMiB.after).toBeLessThanOrEqual(line!.heapUsedMiB.before);
    expect(line!.youngGenerationMiB.after).toBeLessThanOrEqual(line!.youngGenerationMiB.before);
  });

  it('does not collect when idle with idleCollection: false', async () => {
    const server = await start({ warmUp: { corpus: objects.slice(0, 3), rounds: 1 }, idleCollection: false });
    await server.warmedUp;
    await new Promise((r) => setTimeout(r, 500));
    expect(server.lines.some((l) => l.msg === 'young-generation collection while idle')).toBe(false);
  });

  it('is off with warmUp: false: ready at once, no warm-up line', async () => {
    const server = await start({ warmUp: false });
    expect(await readyz(server)).toEqual({ status: 200, text: 'ok' });
    expect(await server.warmedUp).toBeUndefined();
    expect(server.lines.some((l) => /warm/.test(l.msg))).toBe(false);
  });

  it('logs a failure inside the warm-up at warn and becomes ready all the same', async () => {
    // A value JSON cannot write: building the requests throws.
    const server = await start({ warmUp: { corpus: [{ ...objects[0]!, spec: { n: 1n } }] } });
    expect(await server.warmedUp).toBeUndefined();
    expect((await readyz(server)).status).toBe(200);
    expect(server.lines.find((l) => l.msg === 'warm-up failed; ready without it')).toMatchObject({ level: 40, err: expect.stringContaining('BigInt') });
    expect(await post(server, '/validate-cluster', reviewOf(cluster('NoSchedule')))).toBe(200);
  });

  it('stops the warm-up when closed during it', async () => {
    const server = await start({ warmUp: { corpus: objects, budgetMs: 20_000, rounds: 100 } });
    const started = performance.now();
    await server.close();
    running = undefined;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await server.warmedUp)?.cutShort).toBe(true);
  });
});

describe('fleetgate serve --warm-up', { timeout: 60_000 }, () => {
  it('refuses a value other than true or false with a usage error', async () => {
    const { code, stderr } = await runCli(['serve', '--warm-up=maybe']);
    expect(code).toBe(2);
    expect(stderr).toContain('--warm-up must be true or false, got "maybe"');
  });

  it('--warm-up=false is ready at once, without warming up', async () => {
    let server: RunningServer | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-cli-'));
    const { code, stderr } = await runCli(['serve', '--port', '0', '--probe-port', '0', '--bind-address', '127.0.0.1', '--dev-cert-dir', join(dir, 'certs'), '--log-format', 'json', '--warm-up=false'], {
      onServe: (s) => void (server = s as RunningServer),
    });
    expect(code).toBe(0);
    expect(await server!.warmedUp).toBeUndefined();
    expect((await readyz(server!)).status).toBe(200);
    await server!.close();
    expect(stderr).not.toMatch(/"msg":"[^"]*warm/i);
  });
});
