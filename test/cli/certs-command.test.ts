import { describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { runCli } from './run-cli.js';

const run = (argv: string[]) => runCli(argv);

const tempDir = () => mkdtempSync(join(tmpdir(), 'fleetgate-certs-'));
const files = (dir: string) => ({ ca: join(dir, 'ca.crt'), cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') });

/** Resolves once the TLS handshake is done, with whether the peer was authorized; rejects on a handshake error. */
function handshake(options: ConnectionOptions): Promise<boolean> {
  return new Promise((done, fail) => {
    const socket = connect(options, () => {
      done(socket.authorized);
      socket.end();
    });
    socket.on('error', fail);
  });
}

async function listen(dir: string): Promise<{ server: Server; port: number }> {
  const f = files(dir);
  const server = createServer({ cert: readFileSync(f.cert), key: readFileSync(f.key) }, (_req, res) => res.end('ok'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('fleetgate certs', () => {
  it('writes ca.crt, tls.crt and tls.key (0600) and prints only the base64 caBundle on stdout', async () => {
    const dir = join(tempDir(), 'nested', 'certs');
    const { code, stdout, stderr } = await run(['certs', '--out', dir, '--dns', 'fleetgate.karmada-system.svc', '--ip', '127.0.0.1', '--days', '30']);
    expect(code, stderr).toBe(0);
    const f = files(dir);
    expect(readdirSync(dir).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    expect(statSync(f.key).mode & 0o777).toBe(0o600);

    // stdout is exactly the caBundle: one line, base64 of ca.crt.
    expect(stdout).toMatch(/^[A-Za-z0-9+/]+=*\n$/);
    expect(Buffer.from(stdout.trim(), 'base64').toString('utf8')).toBe(readFileSync(f.ca, 'utf8'));
    // The private key appears nowhere in the output.
    const keyBody = readFileSync(f.key, 'utf8').split('\n')[1]!;
    expect(stdout + stderr).not.toContain('PRIVATE KEY');
    expect(stdout + stderr).not.toContain(keyBody);
    expect(stderr).toContain(f.key);
    expect(stderr).toContain(`fleetgate serve --cert-dir ${dir}`);

    const ca = new X509Certificate(readFileSync(f.ca));
    const leaf = new X509Certificate(readFileSync(f.cert));
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe('DNS:fleetgate.karmada-system.svc, IP Address:127.0.0.1');
    const days = (Date.parse(leaf.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThanOrEqual(30);
  });

  it("produces a certificate Node's TLS accepts for the --dns names and the --ip addresses", async () => {
    const dir = tempDir();
    const { code } = await run(['certs', '--out', dir, '--dns', 'webhook.example.test,localhost', '--ip', '127.0.0.1', '--ip', '::1']);
    expect(code).toBe(0);
    const ca = readFileSync(files(dir).ca);
    expect(new X509Certificate(readFileSync(files(dir).cert)).subjectAltName).toBe(
      'DNS:webhook.example.test, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    const { server, port } = await listen(dir);
    try {
      // By each DNS name, verified against the CA.
      expect(await handshake({ host: '127.0.0.1', port, ca, servername: 'webhook.example.test' })).toBe(true);
      expect(await handshake({ host: '127.0.0.1', port, ca, servername: 'localhost' })).toBe(true);
      // By IP: no SNI, the host name check uses the IP SAN.
      expect(await handshake({ host: '127.0.0.1', port, ca })).toBe(true);
      // A name not in the certificate, or a trust store without this CA, fails.
      await expect(handshake({ host: '127.0.0.1', port, ca, servername: 'other.example.test' })).rejects.toThrow(/altnames/i);
      await expect(handshake({ host: '127.0.0.1', port, servername: 'localhost' })).rejects.toThrow();
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('refuses to overwrite existing files without --force and replaces them with it', async () => {
    const dir = tempDir();
    const f = files(dir);
    expect((await run(['certs', '--out', dir, '--dns', 'localhost'])).code).toBe(0);
    const before = { ca: readFileSync(f.ca, 'utf8'), cert: readFileSync(f.cert, 'utf8'), key: readFileSync(f.key, 'utf8') };

    const refused = await run(['certs', '--out', dir, '--dns', 'localhost']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('refusing to overwrite');
    expect(refused.stderr).toContain(f.ca);
    expect(refused.stderr).toContain(f.key);
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(f.key, 'utf8')).toBe(before.key);

    // Even one leftover file is protected.
    const partial = tempDir();
    writeFileSync(join(partial, 'tls.key'), 'precious');
    const one = await run(['certs', '--out', partial, '--dns', 'localhost']);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(join(partial, 'tls.key'));
    expect(existsSync(join(partial, 'ca.crt'))).toBe(false);
    expect(readFileSync(join(partial, 'tls.key'), 'utf8')).toBe('precious');

    const forced = await run(['certs', '--out', dir, '--dns', 'localhost', '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(f.ca, 'utf8')).not.toBe(before.ca);
    expect(readFileSync(f.cert, 'utf8')).not.toBe(before.cert);
    expect(readFileSync(f.key, 'utf8')).not.toBe(before.key);
    expect(statSync(f.key).mode & 0o777).toBe(0o600);
    expect(Buffer.from(forced.stdout.trim(), 'base64').toString('utf8')).toBe(readFileSync(f.ca, 'utf8'));
    expect(readdirSync(dir).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']); // no temporary files left
  });

  it('usage errors exit 2 and write nothing', async () => {
    const dir = tempDir();
    const cases: string[][] = [
      ['certs'],
      ['certs', '--dns', 'localhost'],
      ['certs', '--out', dir],
      ['certs', '--out', dir, '--dns', 'Not_A_Name'],
      ['certs', '--out', dir, '--ip', '300.1.1.1'],
      ['certs', '--out', dir, '--dns', 'localhost', '--days', '0'],
      ['certs', '--out', dir, '--dns', 'localhost', '--days', 'ten'],
      ['certs', '--out', dir, '--dns', 'localhost', '--bogus'],
      ['certs', '--out', dir, '--dns', 'localhost', 'extra'],
    ];
    for (const argv of cases) {
      const { code, stdout, stderr } = await run(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^fleetgate certs: /);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an --out that cannot be written is an I/O error (exit 2)', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'x');
    const { code, stdout, stderr } = await run(['certs', '--out', file, '--dns', 'localhost']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('cannot write');
  });

  it('has help with examples, also from fleetgate --help', async () => {
    const { code, stdout } = await run(['certs', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: fleetgate certs --out DIR --dns NAME');
    expect(stdout).toContain('Examples:');
    expect((await run(['--help'])).stdout).toMatch(/fleetgate certs\s+create a development CA/);
  });
});
