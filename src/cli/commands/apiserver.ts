/** `fleetgate apiserver`: the resource API for the 13 kinds, which kubectl drives unmodified. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { groupDomainProblem, parseFlags, usageError, type CliIO, type Command } from '../io.js';

const HELP = `Usage: fleetgate apiserver [flags]

Serves the control plane's resource API for the 13 kinds over HTTPS, as kube-apiserver serves
custom resources: kubectl apply, get, get -w, patch, label, delete, diff and explain work
unmodified, and every write is defaulted and validated by fleetgate's library.

Flags:
  --port N                    HTTPS port (default 6443)
  --bind-address ADDR         address to listen on (default 127.0.0.1); any address other than
                              a loopback one requires --token-auth-file and/or --client-ca-file
  --storage KIND              durable (default): every acknowledged write is on disk, in a
                              LevelDB store under --data-dir, before it is answered;
                              memory: nothing is kept after the process ends
  --data-dir DIR              where the durable store keeps its data (default ./data); one
                              fleetgate apiserver at a time may use it
  --probe-port N              plain-HTTP port for /healthz, /readyz, /livez, /metrics (default 8001)
  --cert-dir DIR              directory holding tls.crt and tls.key
  --tls-cert-file FILE        serving certificate (with --tls-private-key-file)
  --tls-private-key-file FILE serving private key
  --tls-min-version V         1.2 (default) or 1.3
  --token-auth-file FILE      bearer tokens, kube-apiserver's CSV format: token,user,uid[,"groups"]
  --client-ca-file FILE       accept client certificates signed by this CA
  --group-domain DOMAIN       API group domain (default karmada.io)
  --write-kubeconfig FILE     write a kubeconfig for this server to FILE
  --log-level LEVEL           debug, info (default), warn, error
  --allow-no-execute-taint-policy=false
                              refuse NoExecute ClusterTaintPolicy taints (Karmada's default)

With no certificate flags, a development CA and a serving certificate for localhost are
generated into ./certs on first start and reused afterwards. On start it prints the kubectl
prefix to use, for example:

  kubectl --server https://127.0.0.1:6443 --certificate-authority /path/to/certs/ca.crt --token local

(Without --token-auth-file or --client-ca-file nobody is authenticated and the token is a
placeholder: over HTTPS, kubectl with no credential stops to prompt for a username.)

Example:
  fleetgate apiserver --data-dir /var/lib/fleetgate
  kubectl --server https://127.0.0.1:6443 --certificate-authority certs/ca.crt --token local apply -f examples/
`;

const port = (value: string | undefined, fallback: number): number | undefined => {
  if (value === undefined) return fallback;
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  return n <= 65535 ? n : undefined;
};

async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseFlags('apiserver', io, {
    args,
    strict: true,
    options: {
      port: { type: 'string' },
      'bind-address': { type: 'string' },
      storage: { type: 'string' },
      'data-dir': { type: 'string' },
      'probe-port': { type: 'string' },
      'cert-dir': { type: 'string' },
      'tls-cert-file': { type: 'string' },
      'tls-private-key-file': { type: 'string' },
      'tls-min-version': { type: 'string' },
      'token-auth-file': { type: 'string' },
      'client-ca-file': { type: 'string' },
      'group-domain': { type: 'string' },
      'write-kubeconfig': { type: 'string' },
      'log-level': { type: 'string' },
      'allow-no-execute-taint-policy': { type: 'string' },
    },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  const usage = (message: string) => usageError('apiserver', io, message);
  const apiPort = port(values.port, 6443);
  if (apiPort === undefined) return usage(`--port must be a port number, got "${values.port}"`);
  const probePort = port(values['probe-port'], 8001);
  if (probePort === undefined) return usage(`--probe-port must be a port number, got "${values['probe-port']}"`);
  const storageKind = values.storage ?? 'durable';
  if (storageKind !== 'memory' && storageKind !== 'durable') return usage(`--storage must be durable or memory, got "${storageKind}"`);
  if (storageKind === 'memory' && values['data-dir'] !== undefined) return usage('--data-dir has no use with --storage memory');
  const minVersion = values['tls-min-version'] ?? '1.2';
  if (minVersion !== '1.2' && minVersion !== '1.3') return usage(`--tls-min-version must be 1.2 or 1.3, got "${minVersion}"`);
  const domainProblem = values['group-domain'] === undefined ? undefined : groupDomainProblem(values['group-domain']);
  if (domainProblem) return usage(domainProblem);
  const level = values['log-level'] ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) return usage(`--log-level must be debug, info, warn or error, got "${level}"`);
  const allowNoExecute = values['allow-no-execute-taint-policy'];
  if (allowNoExecute !== undefined && allowNoExecute !== 'true' && allowNoExecute !== 'false') return usage('--allow-no-execute-taint-policy must be true or false');

  const logger = pino({ level }, { write: (line: string) => io.stderr(line) });
  try {
    // Loaded here: the other commands should not pay for Koa and the storage engine.
    const { serveApi } = await import('../../apiserver/serve.js');
    const dataDir = resolve(values['data-dir'] ?? 'data');
    const storage =
      storageKind === 'memory'
        ? (await import('../../apiserver/storage/index.js')).createMemoryStorage()
        : await (await import('../../apiserver/storage/index.js')).openDurableStorage({ directory: dataDir });
    logger.info(storageKind === 'memory' ? { storage: 'memory' } : { storage: 'durable', dataDir }, storageKind === 'memory' ? 'storage: in memory, nothing is kept after exit' : `storage: durable, in ${dataDir}`);
    const server = await serveApi({
      storage,
      port: apiPort,
      probePort,
      bindAddress: values['bind-address'],
      groupDomain: values['group-domain'],
      certDir: values['cert-dir'],
      tlsCertFile: values['tls-cert-file'],
      tlsPrivateKeyFile: values['tls-private-key-file'],
      tlsMinVersion: minVersion === '1.3' ? 'TLSv1.3' : 'TLSv1.2',
      tokenAuthFile: values['token-auth-file'],
      clientCaFile: values['client-ca-file'],
      allowNoExecuteTaintPolicy: allowNoExecute === undefined ? undefined : allowNoExecute === 'true',
      logger,
    });
    io.onServe?.(server);
    const ca = server.caFile ? resolve(server.caFile) : undefined;
    // Over HTTPS, kubectl with no credential at all stops to prompt for a username. Without
    // authentication the server ignores any token, so the line carries a placeholder one; with
    // it, the user adds their own (--token, --client-certificate).
    const anonymous = !values['token-auth-file'] && !values['client-ca-file'];
    const kubeconfig = values['write-kubeconfig'];
    if (kubeconfig) {
      writeFileSync(kubeconfig, kubeconfigFor(server.url, ca, anonymous ? ANONYMOUS_TOKEN : undefined), { mode: 0o600 });
      io.stdout(`kubectl --kubeconfig ${shellWord(resolve(kubeconfig))}\n`);
    } else {
      io.stdout(`kubectl --server ${server.url}${ca ? ` --certificate-authority ${shellWord(ca)}` : ''}${anonymous ? ` --token ${ANONYMOUS_TOKEN}` : ''}\n`);
    }
    return 0;
  } catch (err) {
    io.stderr(`fleetgate apiserver: ${(err as Error).message}\n`);
    return 1;
  }
}

/** The token the printed line carries when the server authenticates nobody (see run). */
const ANONYMOUS_TOKEN = 'local';

/** A kubeconfig naming this server; credentials (a token, a client certificate) are the user's to add, but for the placeholder token. */
export function kubeconfigFor(server: string, certificateAuthority: string | undefined, token?: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'fleetgate', cluster: { server, ...(certificateAuthority ? { 'certificate-authority': certificateAuthority } : {}) } }],
    users: [{ name: 'fleetgate', user: token ? { token } : {} }],
    contexts: [{ name: 'fleetgate', context: { cluster: 'fleetgate', user: 'fleetgate' } }],
    'current-context': 'fleetgate',
  });
}

/** A path as one shell word: quoted only when it needs to be. */
const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

export const apiserverCommand: Command = { name: 'apiserver', summary: 'serve the resource API for the 13 kinds (kubectl works against it)', help: HELP, run };
