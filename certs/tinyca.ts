/**
 * A tiny certificate authority for development and tests (node-forge, RSA-2048):
 * a self-signed CA and a serving certificate it signs. Not for production, where
 * certificates come from cert-manager or the operator's own PKI.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import type Forge from 'node-forge';
import { lazyRequire } from '../src/lazy.js';

// Only generating certificates needs node-forge; a server whose certificates exist never loads it.
const forge = lazyRequire<typeof Forge>('node-forge');

export interface KeyPair {
  certPem: string;
  keyPem: string;
}

export interface ServingCertOptions {
  dnsNames: string[];
  ipAddresses?: string[];
  days?: number;
}

const DEFAULT_DAYS = 365;

/** 16 random bytes as a positive DER integer: top bit clear, and no leading zero byte. */
function serialNumber(): string {
  const bytes = forge().random.getBytesSync(16).split('').map((c) => c.charCodeAt(0));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
}

function validity(cert: Forge.pki.Certificate, days: number): void {
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 5 * 60 * 1000); // tolerate small clock skew
  cert.validity.notAfter = new Date(now.getTime() + days * 24 * 60 * 60 * 1000);
}

export function createCA(commonName = 'fleetgate development CA', days = DEFAULT_DAYS): KeyPair {
  const keys = forge().pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const cert = forge().pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  validity(cert, days);
  const subject = [{ name: 'commonName', value: commonName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge().md.sha256.create());
  return { certPem: forge().pki.certificateToPem(cert), keyPem: forge().pki.privateKeyToPem(keys.privateKey) };
}

export function createServingCert(ca: KeyPair, options: ServingCertOptions): KeyPair {
  return signLeaf(ca, options.dnsNames[0] ?? options.ipAddresses?.[0] ?? 'fleetgate', options, { serverAuth: true });
}

/** A client certificate, e.g. for testing `--client-ca-file` as the API server would present one. */
export function createClientCert(ca: KeyPair, commonName: string, days = DEFAULT_DAYS): KeyPair {
  return signLeaf(ca, commonName, { dnsNames: [], days }, { clientAuth: true });
}

function signLeaf(ca: KeyPair, commonName: string, options: ServingCertOptions, usage: { serverAuth?: boolean; clientAuth?: boolean }): KeyPair {
  const caCert = forge().pki.certificateFromPem(ca.certPem);
  const caKey = forge().pki.privateKeyFromPem(ca.keyPem);
  const keys = forge().pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const cert = forge().pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  validity(cert, options.days ?? DEFAULT_DAYS);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer(caCert.subject.attributes);
  const altNames = [
    ...options.dnsNames.map((value) => ({ type: 2, value })),
    ...(options.ipAddresses ?? []).map((ip) => ({ type: 7, ip })),
  ];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', ...usage },
    ...(altNames.length ? [{ name: 'subjectAltName', altNames }] : []),
  ]);
  cert.sign(caKey, forge().md.sha256.create());
  return { certPem: forge().pki.certificateToPem(cert), keyPem: forge().pki.privateKeyToPem(keys.privateKey) };
}

export interface DevCertFiles {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  created: boolean;
}

/** Certificates closer than this to their end are replaced rather than reused. */
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

function stillValid(certFile: string): boolean {
  try {
    return new Date(new X509Certificate(readFileSync(certFile)).validTo).getTime() - Date.now() > RENEW_BEFORE_MS;
  } catch {
    return false; // unreadable or not a certificate: make a new one
  }
}

/**
 * Reuses `dir/{ca.crt,tls.crt,tls.key}` while they are valid, or creates them for
 * localhost; the key is written 0600.
 */
export function ensureDevCerts(dir: string): DevCertFiles {
  const files = { dir, caFile: join(dir, 'ca.crt'), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  if ([files.caFile, files.certFile, files.keyFile].every((f) => existsSync(f)) && stillValid(files.certFile) && stillValid(files.caFile)) {
    return { ...files, created: false };
  }
  mkdirSync(dir, { recursive: true });
  const ca = createCA();
  const serving = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] });
  writeFileSync(files.caFile, ca.certPem);
  writeFileSync(files.certFile, serving.certPem);
  writeFileSync(files.keyFile, serving.keyPem, { mode: 0o600 });
  chmodSync(files.keyFile, 0o600);
  return { ...files, created: true };
}

export const caBundleBase64 = (caFile: string): string => Buffer.from(readFileSync(caFile)).toString('base64');
