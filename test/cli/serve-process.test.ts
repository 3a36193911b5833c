import { describe, expect, it, onTestFinished } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../dist/src/cli/bin.js', import.meta.url));
const built = existsSync(bin);

/** Starts `fleetgate serve` in `cwd` and resolves once it logs its ports. */
function startProcess(cwd: string, args: string[]) {
  const child = spawn(process.execPath, [bin, 'serve', '--bind-address', '127.0.0.1', '--port', '0', '--probe-port', '0', ...args], { cwd });
  let log = '';
  const ready = new Promise<{ port: number; probePort: number }>((done, fail) => {
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const line = log.split('\n').find((l) => l.includes('"probePort"'));
      if (line) done(JSON.parse(line));
    });
    child.on('exit', (code) => fail(new Error(`exited ${code}: ${log}`)));
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, ready, exited, log: () => log };
}

describe.skipIf(!built)('fleetgate serve as a process (runs dist/, which npm test builds first)', () => {
  it('starts with no certificate flags, generating development certificates once', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-zero-'));
    const first = startProcess(cwd, []);
    await first.ready;
    expect(first.log()).toContain(`CA bundle at ${join(cwd, 'certs', 'ca.crt')}`);
    expect(statSync(join(cwd, 'certs', 'tls.key')).mode & 0o777).toBe(0o600);
    const cert = readFileSync(join(cwd, 'certs', 'tls.crt'), 'utf8');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = startProcess(cwd, []);
    await second.ready;
    expect(second.log()).toContain('reusing development certificates');
    expect(readFileSync(join(cwd, 'certs', 'tls.crt'), 'utf8')).toBe(cert);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('with no --bind-address, serves every address its first line names: localhost, 127.0.0.1 and ::1', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-bind-'));
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--probe-port', '0'], { cwd });
    onTestFinished(() => void child.kill('SIGKILL')); // a failed expectation must not leave the server running
    let log = '';
    const first = await new Promise<any>((done, fail) => {
      child.stderr.on('data', (chunk) => {
        log += chunk;
        if (log.includes('\n')) done(JSON.parse(log.split('\n')[0]!));
      });
      child.on('exit', (code) => fail(new Error(`exited ${code}: ${log}`)));
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const caFile = join(cwd, 'certs', 'ca.crt');
    const ipv6 = Object.values(networkInterfaces()).some((addresses) => addresses?.some((a) => a.address === '::1'));
    const { port, probePort } = first;
    expect(first.msg).toBe(
      `fleetgate webhook serving https://localhost:${port} (listening on ${ipv6 ? 'every IPv6 and IPv4 address' : 'every IPv4 address'}); ` +
        `CA bundle at ${caFile} (generated development certificates for localhost, 127.0.0.1, ::1); ` +
        `probes on http://localhost:${probePort}/readyz, metrics on http://localhost:${probePort}/metrics`,
    );
    const ca = readFileSync(caFile);
    // No servername: each host is checked against the certificate as a client that dials it would.
    const status = (host: string) =>
      new Promise<number>((done, fail) => {
        request({ host, port, path: '/healthz', method: 'GET', ca }, (res) => (res.resume(), done(res.statusCode ?? 0))).on('error', fail).end();
      });
    for (const host of ['localhost', '127.0.0.1', ...(ipv6 ? ['::1'] : [])]) expect(await status(host), host).toBe(404);
    // Ready once the warm-up over the shipped corpus is over (its cap is 5 s).
    const readyz = () => fetch(`http://localhost:${probePort}/readyz`).then((r) => r.status);
    for (const until = Date.now() + 20_000; (await readyz()) !== 200 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    expect(await readyz()).toBe(200);
    const warmed = log.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.msg.startsWith('warmed up in '));
    expect(warmed.warmUpReviews).toBeGreaterThan(0);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('on SIGTERM drains a review still being received, then exits 0', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-drain-'));
    const server = startProcess(cwd, []);
    const { port } = await server.ready;
    const ca = readFileSync(join(cwd, 'certs', 'ca.crt'));
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'drain', operation: 'CREATE', object: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: { syncMode: 'Push' } } },
    });
    const answer = new Promise<any>((done, fail) => {
      const req = request({ host: '127.0.0.1', port, path: '/validate', method: 'POST', ca, servername: 'localhost', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => done({ status: res.statusCode, json: JSON.parse(text) }));
      });
      req.on('error', fail);
      req.write(body.slice(0, 20));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(20)), 200);
      }, 200);
    });
    const { status, json } = await answer;
    expect(status).toBe(200);
    expect(json.response).toMatchObject({ uid: 'drain', allowed: true });
    expect(await server.exited).toBe(0);
    // The logs are JSON lines, the signal's too.
    const lines = server.log().trim().split('\n');
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([]);
    expect(lines.map((l) => JSON.parse(l)).some((l) => l.signal === 'SIGTERM')).toBe(true);
  });

  it('on SIGTERM exits 0 at once when open connections carry no review', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-idle-'));
    const server = startProcess(cwd, []);
    const { port } = await server.ready;
    const idle = connect(port, '127.0.0.1');
    idle.on('error', () => {});
    await new Promise((r) => idle.once('connect', r));
    const began = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(Date.now() - began).toBeLessThan(5000);
    idle.destroy();
  });

  it('writes the whole of a large report into a pipe before it exits', async () => {
    // `fleetgate schema | jq`: exiting before a pipe drains would cut the JSON at 64 KiB. A shell
    // pipe, not Node's own stdio (a socket pair, whose larger buffer would hide the loss).
    const child = spawn('sh', ['-c', `"${process.execPath}" "${bin}" schema | cat`], { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    const text = Buffer.concat(chunks).toString('utf8');
    expect(code).toBe(0);
    expect(text.length).toBeGreaterThan(65_536);
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it('reads standard input as it reads a file: UTF-16 after its byte order mark, and refuses bytes that are not UTF-8', async () => {
    const feed = async (bytes: Buffer): Promise<{ code: number | null; out: string }> => {
      const child = spawn(process.execPath, [bin, 'validate', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.stdin.end(bytes);
      const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
      return { code, out };
    };
    const manifest = 'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: m\nspec:\n  syncMode: Push\n';
    const utf16 = await feed(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(manifest, 'utf16le')]));
    expect(utf16.out).toContain('1 object in 1 file: 1 valid');
    expect(utf16.code).toBe(0);
    const latin1 = await feed(Buffer.from(manifest.replace('name: m', 'name: m\u00e9'), 'latin1'));
    expect(latin1.out).toContain('not UTF-8');
    expect(latin1.code).toBe(2);
  });

  it('a signal ends any other command by that signal, never with exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-signal-'));
    const many = join(dir, 'many.yaml');
    const doc = 'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: m\nspec:\n  syncMode: Foo\n---\n';
    (await import('node:fs')).writeFileSync(many, doc.repeat(50_000));
    const child = spawn(process.execPath, [bin, 'validate', many], { stdio: 'ignore' });
    setTimeout(() => child.kill('SIGINT'), 500);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on('exit', (c, s) => done([c, s])));
    expect(code).not.toBe(0);
    expect(signal).toBe('SIGINT');
  });
});
