import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, createServingCert, ensureDevCerts } from '../../certs/tinyca.js';

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
