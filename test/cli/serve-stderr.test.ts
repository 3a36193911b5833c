import { describe, expect, it, onTestFinished } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, built } from './serve-child.js';

/** Reads what a non-blocking `fd` has until `done(text)` or, with no `done`, until `quietMs` pass with nothing new. */
async function readFrom(fd: number, done?: (text: string) => boolean, quietMs = 1000, limitMs = 15_000): Promise<string> {
  const buf = Buffer.alloc(1 << 20);
  let text = '';
  const until = Date.now() + limitMs;
  for (let quietSince = Date.now(); Date.now() < until && (done ? !done(text) : Date.now() - quietSince < quietMs); ) {
    try {
      text += buf.toString('utf8', 0, readSync(fd, buf));
      quietSince = Date.now();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  return text;
}

describe.skipIf(!built || process.platform !== 'linux')('fleetgate serve with a standard error nobody reads (runs dist/; a FIFO, Linux)', () => {
  it('answers every review while its log lines wait, and writes them all once stderr is read again', { timeout: 60_000 }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-stderr-'));
    const fifo = join(cwd, 'stderr');
    execFileSync('mkfifo', [fifo]);
    // The server's stderr: a pipe of 64 KiB, blocking for its writer, as a container runtime's is.
    const stderr = openSync(fifo, constants.O_RDWR);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const child = spawn(process.execPath, [bin, 'serve', '--bind-address', '127.0.0.1', '--port', '0', '--probe-port', '0', '--warm-up=false', '--log-format', 'json'], {
      cwd,
      stdio: ['ignore', 'ignore', stderr],
    });
    onTestFinished(() => {
      child.kill('SIGKILL');
      closeSync(reader);
      closeSync(stderr);
    });
    const start = await readFrom(reader, (text) => text.includes('"probePort"'));
    const { port } = JSON.parse(start.split('\n').find((l) => l.includes('"probePort"'))!);

    // 121 causes a denial, ~3.2 KB of log line: 4,000 of them are 13 MB, more than the pipe and the server's 8 MiB bound hold.
    const taints = Array.from({ length: 60 }, (_, i) => ({ key: `bad key ${i}`, effect: 'Bogus' }));
    const ca = readFileSync(join(cwd, 'certs', 'ca.crt'));
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const deny = (uid: string) =>
      new Promise<boolean>((done, fail) => {
        const body = JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: { uid, operation: 'CREATE', object: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: { syncMode: 'Sideways', taints } } },
        });
        const req = request({ host: '127.0.0.1', port, path: '/validate', method: 'POST', ca, servername: 'localhost', agent, timeout: 5000, headers: { 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => done(JSON.parse(text).response.allowed === false));
        });
        req.on('timeout', () => req.destroy(new Error(`review ${uid} unanswered after 5 s: the server waited for its stderr`)));
        req.on('error', fail);
        req.end(body);
      });
    const count = 4000;
    let next = 0;
    let denied = 0;
    await Promise.all(Array.from({ length: 16 }, async () => { while (next < count) if (await deny(`r${next++}`)) denied++; }));
    agent.destroy();
    expect(denied).toBe(count);
    const held = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;

    // Read again: what was held comes out, with a line saying how many were dropped.
    const lines = (await readFrom(reader, undefined, 1000, 30_000)).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const logged = lines.filter((l) => l.msg === 'denied').length;
    // One notice, or more when one fitted in while the lines after it still did not.
    const notices = lines.filter((l) => /log lines? dropped/.test(l.msg)).map((l) => l.msg as string);
    expect(notices.length).toBeGreaterThan(0);
    for (const msg of notices) expect(msg).toMatch(/^\d+ log lines? dropped: standard error was not being read, and 8388608 bytes of lines already waited$/);
    expect(logged + notices.reduce((sum, msg) => sum + Number(/^(\d+)/.exec(msg)![1]), 0)).toBe(count);
    // What was held is bounded: the 13 MB of lines were never all in memory at once.
    expect(held).toBeLessThan(200 * 2 ** 20);
  });
});
