/**
 * A tiny certificate authority for development and tests (node-forge, RSA-2048):
 * a self-signed CA and a serving certificate it signs. Not for production, where
 * certificates come from cert-manager or the operator's own PKI.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type Forge from 'node-forge';
import { lazyRequire } from '../src/util/lazy.js';

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

/** The subject every development CA gets, `serve`'s and `fleetgate certs`'s alike. */
export const DEV_CA_NAME = 'fleetgate development CA';

export function createCA(commonName = DEV_CA_NAME, days = DEFAULT_DAYS): KeyPair {
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

/** The names a flag-less `serve` answers on: what its development certificate covers. */
export const DEV_NAMES: Required<Pick<ServingCertOptions, 'dnsNames' | 'ipAddresses'>> = { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] };

const expiring = (cert: X509Certificate) => new Date(cert.validTo).getTime() - Date.now() <= RENEW_BEFORE_MS;

const readCert = (file: string): X509Certificate | undefined => {
  try {
    return new X509Certificate(readFileSync(file));
  } catch {
    return undefined; // unreadable or not a certificate
  }
};

const keyMatches = (cert: X509Certificate, keyFile: string): boolean => {
  try {
    return cert.checkPrivateKey(createPrivateKey(readFileSync(keyFile)));
  } catch {
    return false;
  }
};

/** An IP address in one spelling: X509Certificate writes ::1 as 0:0:0:0:0:0:0:1. */
const canonicalIP = (ip: string): string => (isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip);

/** Whether every name the certificate carries is one of `names`: made for them and nothing else. */
function namesOnly(cert: X509Certificate, names: ServingCertOptions): boolean {
  const served = new Set([...names.dnsNames.map((n) => `DNS:${n}`), ...(names.ipAddresses ?? []).map((ip) => `IP Address:${canonicalIP(ip)}`)]);
  return (cert.subjectAltName ?? '')
    .split(', ')
    .filter(Boolean)
    .every((entry) => served.has(entry.startsWith('IP Address:') ? `IP Address:${canonicalIP(entry.slice('IP Address:'.length))}` : entry));
}

/**
 * What to do with the certificates already in a development certificate folder: reuse them
 * only when they are development certificates (a fleetgate development CA that signed the
 * serving certificate, whose key is beside it) covering every name served; make them anew when
 * they are missing, unreadable, expiring, or development certificates for nothing but some of
 * those names. Anything else is certificates made on purpose (for other names, by another CA),
 * which are never overwritten: the answer says what is wrong with them.
 */
function judgeDevCerts(files: { caFile: string; certFile: string; keyFile: string }, names: ServingCertOptions): 'reuse' | 'make' | { refuse: string } {
  if (![files.caFile, files.certFile, files.keyFile].every((f) => existsSync(f))) return 'make';
  const ca = readCert(files.caFile);
  const leaf = readCert(files.certFile);
  if (!ca || !leaf || expiring(ca) || expiring(leaf)) return 'make';
  if (ca.subject !== `CN=${DEV_CA_NAME}`) return { refuse: `${files.caFile} is not a fleetgate development CA (its subject is ${ca.subject.replace(/\n/g, ', ')})` };
  if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey)) return { refuse: `${files.certFile} is not signed by ${files.caFile}` };
  const uncovered = [
    ...names.dnsNames.filter((n) => leaf.checkHost(n, { subject: 'never' }) === undefined),
    ...(names.ipAddresses ?? []).filter((ip) => leaf.checkIP(ip) === undefined),
  ];
  if (uncovered.length > 0) {
    if (namesOnly(leaf, names)) return 'make';
    return { refuse: `${files.certFile} is a certificate for ${leaf.subjectAltName ?? 'no names'}, which does not cover ${uncovered.join(', ')}` };
  }
  return keyMatches(leaf, files.keyFile) ? 'reuse' : 'make';
}

/**
 * Reuses `dir/{ca.crt,tls.crt,tls.key}` when they are development certificates for `names`
 * (see judgeDevCerts), or creates them; the key is written 0600. Throws when the folder holds
 * other certificates (writing nothing) and when it cannot be written.
 */
export function ensureDevCerts(dir: string, names: ServingCertOptions = DEV_NAMES): DevCertFiles {
  const files = { dir, caFile: join(dir, 'ca.crt'), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  const verdict = judgeDevCerts(files, names);
  if (verdict === 'reuse') return { ...files, created: false };
  const alternatives = `for development certificates, move ${dir} away or pass --dev-cert-dir DIR`;
  if (verdict !== 'make') throw new Error(`${verdict.refuse}; to serve it, pass --cert-dir ${dir}; ${alternatives}`);
  const unwritable = (err: unknown) => {
    const { code, message } = err as NodeJS.ErrnoException;
    const why = code === 'EACCES' || code === 'EROFS' || code === 'EPERM' ? `${dir} is not writable (${code})` : message;
    return new Error(`cannot write development certificates: ${why}; pass --cert-dir DIR, a directory holding tls.crt and tls.key, or --dev-cert-dir DIR, a writable directory for development certificates`);
  };
  try {
    mkdirSync(dir, { recursive: true }); // before the keys are made: they take seconds
  } catch (err) {
    throw unwritable(err);
  }
  const ca = createCA();
  const serving = createServingCert(ca, names);
  try {
    writeFileSync(files.caFile, ca.certPem);
    writeFileSync(files.certFile, serving.certPem);
    writeFileSync(files.keyFile, serving.keyPem, { mode: 0o600 });
    chmodSync(files.keyFile, 0o600);
  } catch (err) {
    throw unwritable(err);
  }
  return { ...files, created: true };
}

export const caBundleBase64 = (caFile: string): string => Buffer.from(readFileSync(caFile)).toString('base64');
