import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, createServingCert, ensureDevCerts } from '../../certs/tinyca.js';
import { runCli } from '../cli/run-cli.js';

describe('development certificates', () => {
  it('are created once and reused while valid', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'fleetgate-dev-')), 'certs');
    expect(ensureDevCerts(dir).created).toBe(true);
    const cert = readFileSync(join(dir, 'tls.crt'), 'utf8');
    expect(ensureDevCerts(dir).created).toBe(false);
    expect(readFileSync(join(dir, 'tls.crt'), 'utf8')).toBe(cert);
  });

  it('are replaced when they are about to expire or unreadable', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'fleetgate-dev-')), 'certs');
    ensureDevCerts(dir);
    const ca = createCA('short-lived', 1);
    writeFileSync(join(dir, 'tls.crt'), createServingCert(ca, { dnsNames: ['localhost'], days: 0 }).certPem);
    expect(ensureDevCerts(dir).created).toBe(true);
    writeFileSync(join(dir, 'tls.crt'), 'not a certificate');
    expect(ensureDevCerts(dir).created).toBe(true);
  });
});

// Each case makes several RSA keys in JavaScript (node-forge): seconds each on a busy machine.
describe('development certificates found in the folder', { timeout: 90_000 }, () => {
  const served = { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] };
  const folder = () => join(mkdtempSync(join(tmpdir(), 'fleetgate-dev-')), 'certs');
  const contents = (dir: string) => ['ca.crt', 'tls.crt', 'tls.key'].map((f) => readFileSync(join(dir, f), 'utf8'));

  it('are refused, and left alone, when they were made for other names (fleetgate certs for the cluster)', async () => {
    const dir = folder();
    expect((await runCli(['certs', '--dns', 'fleetgate.karmada-system.svc', '--ip', '127.0.0.1', '--out', dir])).code).toBe(0);
    const before = contents(dir);
    expect(() => ensureDevCerts(dir, served)).toThrow(
      `${join(dir, 'tls.crt')} is a certificate for DNS:fleetgate.karmada-system.svc, IP Address:127.0.0.1, which does not cover localhost, ::1; ` +
        `to serve it, pass --cert-dir ${dir}; for development certificates, move ${dir} away or pass --dev-cert-dir DIR`,
    );
    expect(contents(dir)).toEqual(before);
  });

  it('are refused when the serving certificate is not signed by the CA beside it', () => {
    const dir = folder();
    ensureDevCerts(dir, served);
    const other = createServingCert(createCA(), served);
    writeFileSync(join(dir, 'tls.crt'), other.certPem);
    writeFileSync(join(dir, 'tls.key'), other.keyPem);
    const before = contents(dir);
    expect(() => ensureDevCerts(dir, served)).toThrow(`${join(dir, 'tls.crt')} is not signed by ${join(dir, 'ca.crt')}`);
    expect(contents(dir)).toEqual(before);
  });

  it('are refused when the CA is not a development CA', () => {
    const dir = folder();
    mkdirSync(dir);
    const ca = createCA('Example Corp issuing CA');
    const leaf = createServingCert(ca, served);
    writeFileSync(join(dir, 'ca.crt'), ca.certPem);
    writeFileSync(join(dir, 'tls.crt'), leaf.certPem);
    writeFileSync(join(dir, 'tls.key'), leaf.keyPem);
    expect(() => ensureDevCerts(dir, served)).toThrow(`${join(dir, 'ca.crt')} is not a fleetgate development CA (its subject is CN=Example Corp issuing CA)`);
  });

  it('are reused when made by fleetgate certs for exactly the names served', async () => {
    const dir = folder();
    expect((await runCli(['certs', '--dns', 'localhost', '--ip', '127.0.0.1', '--ip', '::1', '--out', dir])).code).toBe(0);
    const before = contents(dir);
    expect(ensureDevCerts(dir, served).created).toBe(false);
    expect(contents(dir)).toEqual(before);
  });

  it('are made anew when they are development certificates for only some of the names served, or their key does not match', () => {
    const dir = folder();
    ensureDevCerts(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const made = ensureDevCerts(dir, served);
    expect(made.created).toBe(true);
    const leaf = new X509Certificate(readFileSync(join(dir, 'tls.crt')));
    expect(leaf.checkIP('::1')).toBe('::1');
    writeFileSync(join(dir, 'tls.key'), createServingCert(createCA(), served).keyPem);
    expect(ensureDevCerts(dir, served).created).toBe(true);
    expect(ensureDevCerts(dir, served).created).toBe(false);
  });

  it('cover the names served by default: localhost, 127.0.0.1 and ::1', () => {
    const dir = folder();
    ensureDevCerts(dir);
    const leaf = new X509Certificate(readFileSync(join(dir, 'tls.crt')));
    expect([leaf.checkHost('localhost'), leaf.checkIP('127.0.0.1'), leaf.checkIP('::1')]).toEqual(['localhost', '127.0.0.1', '::1']);
  });
});
