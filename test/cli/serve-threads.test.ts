import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { mayRaiseThreads } from '../../src/server/thread-priority.js';
import { built, startServe as startChild } from './serve-child.js';

const linux = process.platform === 'linux';
const privileged = mayRaiseThreads();
const setpriv = linux && process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

/** `fleetgate serve` as a process, with each of its threads' nice values (field 19 of /proc/<pid>/task/<tid>/stat, the 17th after the name). */
function startServe(args: string[], wrap: string[] = []) {
  const server = startChild(args, { wrap });
  const nice = () => {
    const pid = server.child.pid!;
    const of = (tid: string) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(')').at(-1)!.trim().split(' ')[16]);
    const others = readdirSync(`/proc/${pid}/task`).filter((tid) => tid !== String(pid));
    return { main: of(String(pid)), others: others.map(of) };
  };
  return { ...server, nice };
}

describe.skipIf(!built || !linux)("fleetgate serve's background threads (Linux; runs dist/, which npm test builds first)", { timeout: 60_000 }, () => {
  it('--background-threads=low runs every thread but the main one at nice 19', async () => {
    const server = startServe(['--background-threads=low']);
    await server.line('run below the main thread');
    const { main, others } = server.nice();
    expect(main).toBe(getPriority());
    // V8's platform workers (four by default) at least, and libuv's threads started by then.
    expect(others.filter((n) => n === 19).length).toBeGreaterThanOrEqual(4);
  });

  it('--background-threads=normal leaves every thread at the priority it started with', async () => {
    const server = startServe(['--background-threads=normal']);
    await server.line('fleetgate webhook serving');
    await new Promise((r) => setTimeout(r, 300));
    const { main, others } = server.nice();
    expect(others.every((n) => n === main)).toBe(true);
    expect(server.lines.some((l) => /background threads/i.test(l.msg))).toBe(false);
  });

  it.skipIf(!setpriv)('adaptive (the default) without CAP_SYS_NICE says why it leaves the threads alone, and does (needs root and setpriv to drop the capability)', async () => {
    const server = startServe([], ['setpriv', '--inh-caps=-sys_nice', '--bounding-set=-sys_nice']);
    await server.line('keep the main thread\'s priority: lowering them while it has idle time needs CAP_SYS_NICE');
    const { main, others } = server.nice();
    expect(others.every((n) => n === main)).toBe(true);
  });

  it.skipIf(!privileged)(
    'adaptive (the default) lowers them, puts them back while the main thread is saturated, and lowers them again after (needs CAP_SYS_NICE)',
    async () => {
      const server = startServe(['--log-level', 'debug']);
      await server.line('while it has idle time, at its priority while it is saturated');
      expect(server.nice().others.filter((n) => n === 19).length).toBeGreaterThanOrEqual(4);

      const { port } = await server.line('fleetgate webhook serving');
      const ca = readFileSync(join(server.cwd, 'certs', 'ca.crt'));
      const agent = new Agent({ keepAlive: true, maxSockets: 32 });
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'load', operation: 'CREATE', object: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: { syncMode: 'Push' } } },
      });
      let loading = true;
      const post = () =>
        new Promise<void>((done) => {
          const req = request({ host: '127.0.0.1', port, path: '/validate', method: 'POST', ca, servername: 'localhost', agent, headers: { 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', done);
          });
          req.on('error', () => done());
          req.end(body);
        });
      const load = Promise.all(Array.from({ length: 32 }, async () => { while (loading) await post(); }));
      try {
        await server.line('main thread saturated', 20_000);
        expect(server.nice().others.every((n) => n === server.nice().main)).toBe(true);
      } finally {
        loading = false;
        await load;
        agent.destroy();
      }
      await server.line('has idle time again', 20_000);
      expect(server.nice().others.filter((n) => n === 19).length).toBeGreaterThanOrEqual(4);
    },
  );
});
