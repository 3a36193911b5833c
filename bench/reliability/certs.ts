/** Certificates for the servers under test: a CA and a serving certificate for localhost in a new folder, and its rotation. */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, createServingCert, type KeyPair } from '../../certs/tinyca.js';

export interface CertDir {
  dir: string;
  /** The CA's certificate (PEM), for clients. */
  ca: string;
  authority: KeyPair;
}

const servingFor = (authority: KeyPair) => createServingCert(authority, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });

/** tls.crt and tls.key in a new folder, as `--cert-dir` reads them. */
export function certDir(): CertDir {
  const authority = createCA('reliability harness CA');
  const serving = servingFor(authority);
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-reliability-certs-'));
  writeFileSync(join(dir, 'tls.crt'), serving.certPem);
  writeFileSync(join(dir, 'tls.key'), serving.keyPem);
  return { dir, ca: authority.certPem, authority };
}

/** New serving certificates and keys for `certs`, signed by its CA: made ahead, as key generation takes seconds of CPU. */
export function servingCerts(certs: CertDir, count: number): KeyPair[] {
  return Array.from({ length: count }, () => servingFor(certs.authority));
}

/**
 * Writes `next` as the serving certificate and key. `inPlace` writes the two files one after the
 * other (a moment where they do not match, as a careless tool does); otherwise each is written
 * aside and renamed over the old one.
 */
export function rotate(certs: CertDir, next: KeyPair, inPlace: boolean): void {
  for (const [name, text] of [['tls.crt', next.certPem], ['tls.key', next.keyPem]] as const) {
    const file = join(certs.dir, name);
    if (inPlace) writeFileSync(file, text);
    else {
      writeFileSync(`${file}.new`, text);
      renameSync(`${file}.new`, file);
    }
  }
}
