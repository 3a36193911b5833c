/** A temporary certificate directory for a test server, as `fleetgate serve --cert-dir` reads it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServingCert, type KeyPair } from '../../certs/tinyca.js';

/** tls.crt and tls.key for localhost and 127.0.0.1, signed by `authority`, in a new directory. */
export function servingCertDir(authority: KeyPair): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-test-certs-'));
  const serving = createServingCert(authority, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  writeFileSync(join(dir, 'tls.crt'), serving.certPem);
  writeFileSync(join(dir, 'tls.key'), serving.keyPem);
  return dir;
}
