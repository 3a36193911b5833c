/**
 * `fleetgate apiserver` as a process (dist/, which npm test builds first): the line it prints, the
 * kubeconfig it writes, SIGTERM, one process per data directory, and durability end to end: a
 * client writes continuously, the server is killed with SIGKILL, restarted on the same data
 * directory, and every acknowledged write is there, whole.
 */
import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { cluster } from '../fixtures/cluster.js';

const bin = fileURLToPath(new URL('../../dist/src/cli/bin.js', import.meta.url));
const built = existsSync(bin);
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';

interface Started {
  child: ChildProcess;
  /** The first line on stdout: the kubectl prefix. */
  line: Promise<string>;
  exited: Promise<number | null>;
  log: () => string;
}

function startServer(cwd: string, args: string[]): Started {
  const child = spawn(process.execPath, [bin, 'apiserver', '--port', '0', '--probe-port', '0', ...args], { cwd });
  let out = '';
  let log = '';
  child.stderr!.on('data', (d) => (log += d));
  const line = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${log}`)));
  });
  line.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, line, exited, log: () => log };
}

const portOf = (line: string) => Number(/https:\/\/127\.0\.0\.1:(\d+)/.exec(line)![1]);

function call(port: number, ca: Buffer, method: string, path: string, body?: unknown, onResponse?: (res: import('node:http').IncomingMessage) => void): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, ca, servername: 'localhost', headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      onResponse?.(res);
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text.split('\n')[0]!) : undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe.skipIf(!built)('fleetgate apiserver as a process (runs dist/, which npm test builds first)', () => {
  it('prints the kubectl line to paste; drains and exits 0 on SIGTERM, ending a watch cleanly', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-apiserver-proc-'));
    const server = startServer(cwd, ['--storage', 'memory']);
    const line = await server.line;
    expect(line).toBe(`kubectl --server https://127.0.0.1:${portOf(line)} --certificate-authority ${join(cwd, 'certs', 'ca.crt')} --token local`);
    const ca = readFileSync(join(cwd, 'certs', 'ca.crt'));
    const port = portOf(line);
    let streaming!: () => void;
    const started = new Promise<void>((r) => (streaming = r));
    const watch = call(port, ca, 'GET', `${CLUSTERS}?watch=true&resourceVersion=1`, undefined, () => streaming());
    await started;
    server.child.kill('SIGTERM');
    expect((await watch).status).toBe(200);
    expect(await server.exited).toBe(0);
  });

  it('--write-kubeconfig writes a kubeconfig and prints the line that uses it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-apiserver-proc-'));
    const server = startServer(cwd, ['--storage', 'memory', '--write-kubeconfig', 'kc.yaml']);
    const line = await server.line;
    expect(line).toBe(`kubectl --kubeconfig ${join(cwd, 'kc.yaml')}`);
    const config = parse(readFileSync(join(cwd, 'kc.yaml'), 'utf8'));
    expect(config.clusters[0].cluster['certificate-authority']).toBe(join(cwd, 'certs', 'ca.crt'));
    expect(config.clusters[0].cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('one process per data directory: a second is refused, clearly', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-apiserver-proc-'));
    const first = startServer(cwd, ['--data-dir', 'data']);
    await first.line;
    const second = startServer(cwd, ['--data-dir', 'data']);
    expect(await second.exited).toBe(1);
    expect(second.log()).toContain(`the data directory ${join(cwd, 'data')} is in use by another fleetgate apiserver`);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('every acknowledged write survives SIGKILL, and none is half there', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-apiserver-kill-'));
    const acknowledged = new Map<string, { uid: string; resourceVersion: string }>();
    for (let round = 0; round < 3; round++) {
      const server = startServer(cwd, ['--data-dir', 'data']);
      const port = portOf(await server.line);
      const ca = readFileSync(join(cwd, 'certs', 'ca.crt'));
      // What the last round acknowledged is here, whole.
      const listed = await call(port, ca, 'GET', CLUSTERS);
      const byName = new Map<string, any>(listed.body.items.map((i: any) => [i.metadata.name, i]));
      for (const [name, ack] of acknowledged) {
        const found = byName.get(name);
        expect(found, `acknowledged ${name} is missing after SIGKILL`).toBeDefined();
        expect(found.metadata.uid).toBe(ack.uid);
        expect(found.metadata.resourceVersion).toBe(ack.resourceVersion);
        expect(found.spec).toEqual(cluster.spec);
      }
      for (const item of listed.body.items) expect(item.spec).toEqual(cluster.spec);
      // Writers in parallel, then SIGKILL at a random moment while they write.
      let stop = false;
      const writers = [0, 1, 2, 3].map(async (w) => {
        for (let i = 0; !stop; i++) {
          const name = `r${round}-w${w}-${i}`;
          try {
            const res = await call(port, ca, 'POST', CLUSTERS, { ...structuredClone(cluster), metadata: { name } });
            if (res.status === 201) acknowledged.set(name, { uid: res.body.metadata.uid, resourceVersion: res.body.metadata.resourceVersion });
          } catch {
            return; // the connection died with the process
          }
        }
      });
      await new Promise((r) => setTimeout(r, 400 + Math.random() * 800));
      server.child.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      await server.exited;
    }
    expect(acknowledged.size).toBeGreaterThan(10);
    const last = startServer(cwd, ['--data-dir', 'data']);
    const port = portOf(await last.line);
    const ca = readFileSync(join(cwd, 'certs', 'ca.crt'));
    const listed = await call(port, ca, 'GET', CLUSTERS);
    const names = new Set(listed.body.items.map((i: any) => i.metadata.name));
    for (const name of acknowledged.keys()) expect(names.has(name), name).toBe(true);
    last.child.kill('SIGTERM');
    expect(await last.exited).toBe(0);
  }, 120_000);
});
