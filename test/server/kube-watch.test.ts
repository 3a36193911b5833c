/**
 * The control-plane caches' watches (src/server/kube-watch.ts) against the reliability harnesses'
 * fake API server: renewed at a `timeoutSeconds` the server honours, and given up when the server
 * black-holes one (never writes to it, never ends it), so the cache lists again instead of staying
 * stale for good. Watch timeouts are shortened to seconds here; in production they are 5 to 10 minutes.
 */
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { FakeControlPlane } from '../../bench/reliability/fake-control-plane.js';
import { kubeLookups, type KubeLookups } from '../../src/server/kube.js';
import { DEFAULT_WATCH_TIMEOUTS, expiringWatch, watchTimeoutSeconds } from '../../src/server/kube-watch.js';
import { validate } from '../../src/index.js';
import { config } from '../fixtures/resourceinterpreterwebhookconfiguration.js';

const service = (config as any).webhooks.find((w: any) => w.clientConfig.service).clientConfig.service;
const headless = { apiVersion: 'v1', kind: 'Service', metadata: { name: service.name, namespace: service.namespace }, spec: { clusterIP: 'None' } };
const SHORT = { minTimeoutMs: 1_000, graceMs: 500 };

const until = async (check: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
};

let plane: FakeControlPlane | undefined;
let kube: KubeLookups | undefined;
afterEach(async () => {
  await kube?.stop();
  await plane?.stop();
  kube = plane = undefined;
});

function logged() {
  const lines: any[] = [];
  return { lines, logger: pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) }) };
}

const serviceRequests = (p: FakeControlPlane) => p.requests.filter((r) => r.path === '/api/v1/services');
/** The verdict on the webhook configuration, and how long it took: denied once the cache holds the headless Service. */
async function verdict(k: KubeLookups): Promise<{ allowed: boolean; ms: number }> {
  const began = performance.now();
  const result = await validate(config, { lookups: k.lookups });
  return { allowed: result.allowed, ms: performance.now() - began };
}

describe('watch timeouts', () => {
  it('asks for a timeout between 1× and 2× the minimum, in whole seconds (client-go: 5 to 10 minutes)', () => {
    expect(watchTimeoutSeconds({ ...DEFAULT_WATCH_TIMEOUTS, random: () => 0 })).toBe(300);
    expect(watchTimeoutSeconds({ ...DEFAULT_WATCH_TIMEOUTS, random: () => 0.999 })).toBe(600);
    expect(watchTimeoutSeconds({ minTimeoutMs: 200, graceMs: 0, random: () => 0 })).toBe(1);
  });

  it('a watch the server ends at its timeoutSeconds is watched again from where it was, not listed again', async () => {
    plane = new FakeControlPlane();
    const kubeconfig = await plane.start('answer');
    const { lines, logger } = logged();
    kube = await kubeLookups({ kubeconfig, groupDomain: 'karmada.io', logger, watchTimeouts: SHORT });
    expect(await until(() => serviceRequests(plane!).filter((r) => r.watch).length >= 3)).toBe(true);
    const requests = serviceRequests(plane);
    expect(requests.filter((r) => !r.watch)).toHaveLength(1);
    for (const watch of requests.filter((r) => r.watch)) expect(['1', '2']).toContain(watch.query.get('timeoutSeconds'));
    // A change after renewals still arrives on the renewed watch.
    expect((await verdict(kube)).allowed).toBe(true);
    plane.set('services', [headless]);
    expect(await until(async () => !(await verdict(kube!)).allowed, 5_000)).toBe(true);
    expect(lines).toEqual([]);
  });

  it('a watch connection the control plane cuts is watched again, and the process goes on', async () => {
    plane = new FakeControlPlane();
    const kubeconfig = await plane.start('answer');
    const { logger } = logged();
    kube = await kubeLookups({ kubeconfig, groupDomain: 'karmada.io', logger, watchTimeouts: SHORT, restartDelayMs: 200 });
    expect((await verdict(kube)).allowed).toBe(true);
    expect(await until(() => serviceRequests(plane!).some((r) => r.watch))).toBe(true);
    // Refusing cuts the open watches mid-response (an 'aborted' error on each); an unheard one would end the test process.
    await plane.setMode('refuse');
    await new Promise((r) => setTimeout(r, 300));
    plane.set('services', [headless]);
    await plane.setMode('answer');
    expect(await until(async () => !(await verdict(kube!)).allowed, 10_000)).toBe(true);
  });

  it('a watch the control plane black-holes is given up and listed again: verdicts stay on time from the cache, and follow once it answers', async () => {
    plane = new FakeControlPlane();
    const kubeconfig = await plane.start('answer');
    const { lines, logger } = logged();
    kube = await kubeLookups({ kubeconfig, groupDomain: 'karmada.io', logger, watchTimeouts: SHORT, listTimeoutMs: 1_000, restartDelayMs: 200 });
    expect((await verdict(kube)).allowed).toBe(true);
    expect(await until(() => serviceRequests(plane!).some((r) => r.watch))).toBe(true);

    // The open watches are lost for good; the Service appears meanwhile, and is never sent on them.
    await plane.setMode('blackhole');
    plane.set('services', [headless]);
    const during: { allowed: boolean; ms: number }[] = [];
    const blackholed = Date.now();
    while (Date.now() - blackholed < 3_000) {
      during.push(await verdict(kube));
      await new Promise((r) => setTimeout(r, 100));
    }
    // From the cache, as while it hangs: the last state seen, answered at once (far within any ?timeout=).
    expect(during.every((v) => v.allowed)).toBe(true);
    expect(Math.max(...during.map((v) => v.ms))).toBeLessThan(500);

    await plane.setMode('answer');
    const back = Date.now();
    // Without the expiry, the lost watch stays open and silent, and this verdict never changes.
    expect(await until(async () => !(await verdict(kube!)).allowed, 10_000)).toBe(true);
    expect(Date.now() - back).toBeLessThan(10_000);
    expect(lines.some((line) => line.msg.startsWith('the control plane sent nothing to end a watch past its timeout') && line.path === '/api/v1/services')).toBe(true);
    // Recovered: live changes arrive again.
    plane.set('services', []);
    expect(await until(async () => (await verdict(kube!)).allowed, 5_000)).toBe(true);
    expect(kube.synced()).toBe(true);
  }, 30_000);
});

describe('a watch stream the control plane garbles', () => {
  /** One watch through expiringWatch against an HTTP server that writes `body` and ends. */
  async function watchOnce(body: string, callback: (phase: string, object: unknown) => unknown, done: (err: unknown) => unknown, { end = true } = {}) {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (end) res.end(body);
      else res.write(body);
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    onTestFinished(() => {
      server.closeAllConnections();
      return new Promise<void>((closed) => server.close(() => closed()));
    });
    const { port } = server.address() as AddressInfo;
    const transport = expiringWatch(
      { getCurrentCluster: () => ({ server: `http://127.0.0.1:${port}` }), applyToHTTPSOptions: async () => undefined },
      { minTimeoutMs: 60_000, graceMs: 1_000 },
      () => undefined,
    );
    await transport.watch('/api/v1/services', {}, callback as never, done as never);
  }

  it('skips lines that are no watch event, and hands on the events around them', async () => {
    const seen: string[] = [];
    const ended: unknown[] = [];
    const crashes: unknown[] = [];
    const onCrash = (err: unknown) => crashes.push(err);
    process.on('uncaughtException', onCrash);
    onTestFinished(() => void process.off('uncaughtException', onCrash));
    const event = (name: string) => JSON.stringify({ type: 'ADDED', object: { metadata: { name, resourceVersion: '1' } } });
    await watchOnce([event('a'), 'null', '1', '"x"', '[]', '{"type":"ADDED"}', '{"type":7,"object":{}}', 'not json', event('b')].join('\n') + '\n', (phase, object) => {
      seen.push(`${phase} ${(object as any).metadata.name}`);
    }, (err) => ended.push(err));
    expect(await until(() => ended.length > 0, 5_000)).toBe(true);
    expect(seen).toEqual(['ADDED a', 'ADDED b']);
    expect(ended).toEqual([null]);
    expect(crashes).toEqual([]);
  });

  it('ends the watch with the error of an event its handler cannot take, thrown or rejected, so the cache restarts', async () => {
    const handlers = [
      () => {
        throw new Error('unreadable event');
      },
      async () => {
        throw new Error('unreadable event');
      },
    ];
    for (const handler of handlers) {
      // The stream stays open: the failure, not the server, ends the watch.
      const ended: unknown[] = [];
      await watchOnce('{"type":"ADDED","object":{}}\n', handler, (err) => ended.push(err), { end: false });
      expect(await until(() => ended.length > 0, 5_000)).toBe(true);
      expect(ended.map((e) => (e as Error).message)).toEqual(['unreadable event']);
    }
    // A failure that comes after the server ended the stream still reaches done, after its ending.
    const ended: unknown[] = [];
    await watchOnce('{"type":"ADDED","object":{}}\n', handlers[1]!, (err) => ended.push(err));
    expect(await until(() => ended.length > 1, 5_000)).toBe(true);
    expect(ended.map((e) => (e === null ? null : (e as Error).message))).toEqual([null, 'unreadable event']);
  });

  it('hands a failed ending (a relist that throws) back to done as the error, never leaving it unhandled', async () => {
    const ended: unknown[] = [];
    await watchOnce('', () => undefined, async (err) => {
      ended.push(err);
      if (err === null) throw new Error('list items without metadata');
    });
    expect(await until(() => ended.length > 1, 5_000)).toBe(true);
    expect(ended[0]).toBeNull();
    expect((ended[1] as Error).message).toBe('list items without metadata');
  });
});
