/**
 * `fleetgate certs`: a development CA and a serving certificate it signs, written in
 * the layout a TLS Secret volume mounts (what `fleetgate serve --cert-dir` reads).
 * The certificates come from certs/tinyca.ts, the code behind `serve`'s development mode.
 */
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { caBundleBase64, createCA, createServingCert, type KeyPair } from '../../../certs/tinyca.js';
import { dns1123Subdomain, wildcardDns1123Subdomain } from '../../checks/names.js';
import { parseFlags, usageError, type CliIO, type Command } from '../io.js';

const CA_FILE = 'ca.crt';
const CERT_FILE = 'tls.crt';
const KEY_FILE = 'tls.key';
const DEFAULT_DAYS = 365;
const MAX_DAYS = 36500;

const HELP = `Usage: fleetgate certs --out DIR --dns NAME... [--ip IP...] [--days N] [--force]

Creates a development CA and a serving certificate signed by it (node-forge, RSA-2048,
SHA-256; the same code that 'fleetgate serve' uses for its development certificates):
  DIR/ca.crt    the CA certificate: the webhook configuration's caBundle
  DIR/tls.crt   the serving certificate; its SANs are the --dns names and --ip addresses
  DIR/tls.key   the serving certificate's private key (mode 0600)
The CA's private key is discarded: nothing else can be signed with this CA.

The base64 caBundle is printed on stdout as a single line (so $(fleetgate certs ...)
works); notes go to stderr. Private keys are never printed. Existing files are not
replaced unless --force is given. For development and tests; in production use
cert-manager or your own PKI.

Flags:
  --out DIR       directory for ca.crt, tls.crt and tls.key (created if missing); required
  --dns NAME      DNS name for the certificate (e.g. fleetgate.karmada-system.svc);
                  repeatable, or comma-separated; a wildcard *.example.com is allowed
  --ip IP         IP address for the certificate; repeatable, or comma-separated
                  (at least one --dns or --ip is required)
  --days N        validity of the CA and the serving certificate (default ${DEFAULT_DAYS})
  --force         replace existing ca.crt, tls.crt, tls.key

Examples:
  fleetgate certs --out ./serving-certs --dns fleetgate.karmada-system.svc --dns fleetgate.karmada-system.svc.cluster.local
  CA_BUNDLE=$(fleetgate certs --out ./serving-certs --dns localhost --ip 127.0.0.1 --ip ::1 --days 30)
  kubectl -n karmada-system create secret tls fleetgate-serving-cert --cert=serving-certs/tls.crt --key=serving-certs/tls.key
  fleetgate serve --cert-dir ./serving-certs

(./certs is where a flag-less 'fleetgate serve' keeps its own development certificates.)

Exit codes: 0 written, 1 refused to overwrite or could not create the certificates,
2 usage or I/O error.
`;

class UsageError extends Error {}

/** `--dns a --dns b,c` → [a, b, c]. */
const splitList = (values: string[] | undefined): string[] =>
  (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');

function dnsNames(values: string[] | undefined): string[] {
  return splitList(values).map((raw) => {
    const name = raw.toLowerCase().replace(/\.$/, '');
    const problem = name.startsWith('*.') ? wildcardDns1123Subdomain(name) : dns1123Subdomain(name);
    if (problem) throw new UsageError(`--dns "${raw}" is not a DNS name: ${problem}`);
    return name;
  });
}

function ipAddresses(values: string[] | undefined): string[] {
  return splitList(values).map((ip) => {
    if (isIP(ip) === 0) throw new UsageError(`--ip "${ip}" is not an IPv4 or IPv6 address`);
    return ip;
  });
}

function days(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DAYS;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > MAX_DAYS) {
    throw new UsageError(`--days must be a whole number of days from 1 to ${MAX_DAYS}, got "${value}"`);
  }
  return n;
}

/** Writes through a temporary file in the same directory, so the target never holds a partial file or a key with loose permissions. */
function writeFileAtomically(path: string, content: string, mode: number): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(temp, content, { mode, flag: 'wx' });
    chmodSync(temp, mode); // the umask may have removed bits; set exactly this mode
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

async function run(args: string[], io: CliIO): Promise<number> {
  const usage = (message: string): number => usageError('certs', io, message);
  const parsed = parseFlags('certs', io, {
    args,
    strict: true,
    options: {
      out: { type: 'string', short: 'o' },
      dns: { type: 'string', multiple: true },
      ip: { type: 'string', multiple: true },
      days: { type: 'string' },
      force: { type: 'boolean' },
    },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  let options: { dnsNames: string[]; ipAddresses: string[]; days: number };
  try {
    if (!values.out) throw new UsageError('--out DIR is required');
    options = { dnsNames: dnsNames(values.dns), ipAddresses: ipAddresses(values.ip), days: days(values.days) };
    if (options.dnsNames.length === 0 && options.ipAddresses.length === 0) {
      throw new UsageError('at least one --dns NAME or --ip IP is required');
    }
  } catch (err) {
    if (err instanceof UsageError) return usage(err.message);
    throw err;
  }

  const dir = resolve(values.out);
  const files = { ca: join(dir, CA_FILE), cert: join(dir, CERT_FILE), key: join(dir, KEY_FILE) };
  const existing = Object.values(files).filter((f) => existsSync(f));
  if (existing.length > 0 && !values.force) {
    io.stderr(`fleetgate certs: refusing to overwrite ${existing.join(', ')}; use --force to replace ${existing.length === 1 ? 'it' : 'them'}\n`);
    return 1;
  }

  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    io.stderr(`fleetgate certs: cannot write to ${dir}: ${(err as Error).message}\n`);
    return 2;
  }

  let ca: KeyPair;
  let serving: KeyPair;
  try {
    ca = createCA(undefined, options.days);
    serving = createServingCert(ca, options);
  } catch (err) {
    io.stderr(`fleetgate certs: could not create the certificates: ${(err as Error).message}\n`);
    return 1;
  }

  try {
    writeFileAtomically(files.ca, ca.certPem, 0o644);
    writeFileAtomically(files.cert, serving.certPem, 0o644);
    writeFileAtomically(files.key, serving.keyPem, 0o600);
  } catch (err) {
    io.stderr(`fleetgate certs: cannot write to ${dir}: ${(err as Error).message}\n`);
    return 2;
  }

  const leaf = new X509Certificate(serving.certPem);
  io.stdout(`${caBundleBase64(files.ca)}\n`);
  io.stderr(
    `fleetgate certs: wrote ${files.ca}, ${files.cert} and ${files.key} (the key with mode 0600)${existing.length ? ' (replaced the existing files)' : ''}\n` +
      `  serving certificate for ${leaf.subjectAltName ?? '(no SANs)'}, valid until ${new Date(leaf.validTo).toISOString()}\n` +
      `  signed by a new CA whose private key was discarded\n` +
      `  stdout: the caBundle (base64 of ${CA_FILE}) for the webhook configuration's clientConfig.caBundle\n` +
      `  serve with: fleetgate serve --cert-dir ${dir}\n`,
  );
  return 0;
}

export const certsCommand: Command = {
  name: 'certs',
  summary: 'create a development CA and serving certificate (ca.crt, tls.crt, tls.key)',
  help: HELP,
  run,
};
