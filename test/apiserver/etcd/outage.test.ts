/**
 * etcd going away under load, with two API server replicas: requests fail fast with a 503
 * Status that names etcd, /readyz turns false, the replicas recover by themselves once etcd is
 * back, no acknowledged write is lost, and the watches opened before the outage resume and
 * deliver every acknowledged write (none stalls). Also a frozen etcd (SIGSTOP): calls end at
 * their deadline instead of hanging.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeWithEtcd, startEtcd, type EtcdServer } from './etcd-server.js';
import { CLUSTERS, builtSkipReason, cluster, eventually, startApiserver, type ApiserverProcess, type Reply } from './apiserver-process.js';

const TIMEOUT = '2s';

interface Attempt {
  name: string;
  reply?: Reply;
  error?: string;
}

describeWithEtcd('the etcd backend when etcd goes away', () => {
  let etcd: EtcdServer;
  let a: ApiserverProcess;
  let b: ApiserverProcess;

  beforeEach(async () => {
    etcd = await startEtcd();
    [a, b] = await Promise.all([
      startApiserver(['--etcd-servers', etcd.url, '--etcd-request-timeout', TIMEOUT]),
      startApiserver(['--etcd-servers', etcd.url, '--etcd-request-timeout', TIMEOUT]),
    ]);
  }, 60_000);

  afterEach(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.close();
  });

  it('stopped and restarted under load: 503s fast, not ready, recovers, loses no acknowledged write, stalls no watch', async () => {
    const start = await a.request('GET', CLUSTERS);
    const from = start.body.metadata.resourceVersion;
    const watches = await Promise.all([a.watch(`${CLUSTERS}?watch=true&resourceVersion=${from}`), b.watch(`${CLUSTERS}?watch=true&resourceVersion=${from}`)]);

    const attempts: Attempt[] = [];
    let loading = true;
    const worker = async (id: number) => {
      for (let i = 0; loading && i < 5_000; i++) {
        const name = `load-${id}-${i}`;
        const target = i % 2 ? a : b;
        const attempt: Attempt = { name };
        attempts.push(attempt);
        try {
          attempt.reply = await target.request('POST', CLUSTERS, cluster(name));
        } catch (error) {
          attempt.error = (error as Error).message;
        }
        // While etcd is down the answers come at once: pace the loop rather than spin.
        if (attempt.reply?.status !== 201) await new Promise((r) => setTimeout(r, 20));
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(worker));
    const acknowledged = () => attempts.filter((attempt) => attempt.reply?.status === 201);

    await eventually(() => acknowledged().length >= 40, '40 acknowledged writes before the outage');
    await etcd.stop('SIGKILL');
    const stoppedAt = attempts.length;
    await eventually(async () => (await a.readyz()) === 503 && (await b.readyz()) === 503, 'both replicas not ready', 10_000);
    await eventually(() => attempts.slice(stoppedAt).filter((attempt) => attempt.reply?.status === 503).length >= 20, '20 refused writes during the outage');
    const read = await a.request('GET', `${CLUSTERS}/load-0-0`);
    // "Any state" is still answered, from the watch cache, as kube-apiserver answers it.
    const cached = await b.request('GET', `${CLUSTERS}?resourceVersion=0`);
    expect(cached.status).toBe(200);
    expect(cached.body.items.length).toBeGreaterThanOrEqual(40);

    await etcd.start();
    await eventually(async () => (await a.readyz()) === 200 && (await b.readyz()) === 200, 'both replicas ready again', 20_000);
    const recoveredAt = acknowledged().length;
    await eventually(() => acknowledged().length >= recoveredAt + 40, '40 acknowledged writes after the outage', 20_000);
    loading = false;
    await load;

    // Refusals were quick 503 Statuses naming etcd (connection refused: no waiting for the deadline).
    const refused = attempts.filter((attempt) => attempt.reply && attempt.reply.status !== 201);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    for (const attempt of [...refused, { name: 'read', reply: read }]) {
      expect(attempt.reply!.status, JSON.stringify(attempt.reply!.body)).toBe(503);
      expect(attempt.reply!.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });
      expect(attempt.reply!.body.message).toMatch(new RegExp(`^storage is unavailable: etcd \\(${etcd.url.replace(/\./g, '\\.')}\\) (is unavailable: .+|did not answer within 2s.*)$`));
      expect(attempt.reply!.ms).toBeLessThan(2_000 + 1_500);
    }
    expect(attempts.filter((attempt) => attempt.error)).toEqual([]);

    // Every acknowledged write is in etcd, as acknowledged, and reached both watches (which are still open).
    const written = new Map(acknowledged().map((attempt) => [attempt.name, attempt.reply!.body.metadata.resourceVersion]));
    const list = await b.request('GET', `${CLUSTERS}?labelSelector=test%3Detcd`);
    const stored = new Map<string, string>(list.body.items.map((item: any) => [item.metadata.name, item.metadata.resourceVersion]));
    for (const [name, rv] of written) expect(stored.get(name), name).toBe(rv);
    for (const watch of watches) {
      await watch.until((events) => [...written.keys()].every((name) => events.some((event) => event.object.metadata.name === name)), 'every acknowledged write on the watch');
      expect(watch.ended).toBe(false);
      const revisions = watch.events.map((event) => Number(event.object.metadata.resourceVersion));
      expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
      expect(new Set(revisions).size).toBe(revisions.length);
      for (const event of watch.events) {
        expect(event.type).toBe('ADDED');
        if (written.has(event.object.metadata.name)) expect(event.object.metadata.resourceVersion).toBe(written.get(event.object.metadata.name));
      }
      watch.close();
    }
  }, 120_000);

  it('frozen: a call ends at its deadline with a 503, readiness turns false, and both come back when etcd does', async () => {
    await a.request('POST', CLUSTERS, cluster('frozen-1'));
    const watch = await b.watch(`${CLUSTERS}?watch=true`);
    await watch.until((events) => events.length === 1, 'the initial ADDED');
    etcd.pause();
    try {
      const read = await a.request('GET', `${CLUSTERS}/frozen-1`);
      expect(read.status).toBe(503);
      expect(read.body.message).toBe(`storage is unavailable: etcd (${etcd.url}) did not answer within 2s`);
      expect(read.ms).toBeGreaterThan(1_500);
      expect(read.ms).toBeLessThan(2_000 + 1_500);
      const write = await a.request('PATCH', `${CLUSTERS}/frozen-1`, { spec: { region: 'r1' } });
      expect(write.status).toBe(503);
      await eventually(async () => (await a.readyz()) === 503, 'A not ready', 10_000);
    } finally {
      etcd.resume();
    }
    await eventually(async () => (await a.readyz()) === 200, 'A ready again', 20_000);
    const after = await a.request('PATCH', `${CLUSTERS}/frozen-1`, { spec: { region: 'r2' } });
    expect(after.status).toBe(200);
    await watch.until((events) => events.some((event) => event.type === 'MODIFIED' && event.object.spec.region === 'r2'), 'the write after the freeze on the watch');
    expect(watch.ended).toBe(false);
    watch.close();
  }, 60_000);
}, builtSkipReason);
