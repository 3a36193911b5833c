/** `fleetgate apiserver`: the resource API for the 13 kinds, which kubectl drives unmodified. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { stringify } from 'yaml';
import { groupDomainProblem, parseFlags, usageError, type CliIO, type Command } from '../io.js';
import { parseGoDuration } from '../../server/deadline.js';
import { EtcdOptionsError, checkEtcdOptions } from '../../apiserver/storage/etcd-options.js';
import type { EtcdStorageOptions } from '../../apiserver/storage/etcd-store.js';
import type { Storage } from '../../apiserver/storage/index.js';

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
  --etcd-servers URL[,URL...] keep everything in etcd instead (http:// or https:// client URLs),
                              so several fleetgate apiservers serve one state; see
                              docs/apiserver-etcd.md
  --etcd-prefix PREFIX        where the keys live in etcd (default /registry)
  --etcd-cafile FILE          CA bundle that signed etcd's serving certificate
  --etcd-certfile FILE        client certificate for etcd (with --etcd-keyfile)
  --etcd-keyfile FILE         client private key for etcd
  --etcd-compaction-interval D
                              how often etcd's history is compacted, as kube-apiserver does
                              (default 5m; 0 turns it off)
  --etcd-request-timeout D    how long one etcd call may take; past it the request answers 503
                              (default 5s)
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
  fleetgate apiserver --etcd-servers http://127.0.0.1:2379
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
      'etcd-servers': { type: 'string' },
      'etcd-prefix': { type: 'string' },
      'etcd-cafile': { type: 'string' },
      'etcd-certfile': { type: 'string' },
      'etcd-keyfile': { type: 'string' },
      'etcd-compaction-interval': { type: 'string' },
      'etcd-request-timeout': { type: 'string' },
    },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  const usage = (message: string) => usageError('apiserver', io, message);
  const apiPort = port(values.port, 6443);
  if (apiPort === undefined) return usage(`--port must be a port number, got "${values.port}"`);
  const probePort = port(values['probe-port'], 8001);
  if (probePort === undefined) return usage(`--probe-port must be a port number, got "${values['probe-port']}"`);
  const etcd = etcdOptions(values);
  if (typeof etcd === 'string') return usage(etcd);
  if (etcd && values.storage !== undefined) return usage('--storage has no use with --etcd-servers: etcd is the storage');
  if (etcd && values['data-dir'] !== undefined) return usage('--data-dir has no use with --etcd-servers: etcd keeps the data');
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
    const storage = etcd
      ? await openEtcd(etcd, values['group-domain'], logger)
      : storageKind === 'memory'
        ? (await import('../../apiserver/storage/index.js')).createMemoryStorage()
        : await (await import('../../apiserver/storage/index.js')).openDurableStorage({ directory: dataDir });
    if (!etcd) logger.info(storageKind === 'memory' ? { storage: 'memory' } : { storage: 'durable', dataDir }, storageKind === 'memory' ? 'storage: in memory, nothing is kept after exit' : `storage: durable, in ${dataDir}`);
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

type EtcdFlags = Pick<EtcdStorageOptions, 'servers' | 'prefix' | 'caFile' | 'certFile' | 'keyFile' | 'compactionIntervalMs' | 'requestTimeoutMs'>;

/** The etcd backend's options from the flags; undefined without --etcd-servers; a usage problem as a string. */
function etcdOptions(values: Record<string, string | boolean | undefined>): EtcdFlags | undefined | string {
  const flag = (name: string) => values[name] as string | undefined;
  const servers = flag('etcd-servers');
  if (servers === undefined) {
    const stray = ['etcd-prefix', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'etcd-compaction-interval', 'etcd-request-timeout'].find((name) => flag(name) !== undefined);
    return stray ? `--${stray} needs --etcd-servers` : undefined;
  }
  const options: EtcdFlags = { servers: servers.split(',').map((server) => server.trim()).filter(Boolean) };
  const prefix = flag('etcd-prefix');
  if (prefix !== undefined) {
    if (!prefix.startsWith('/')) return `--etcd-prefix must start with "/", got "${prefix}"`;
    options.prefix = prefix;
  }
  if (flag('etcd-cafile') !== undefined) options.caFile = flag('etcd-cafile');
  if (flag('etcd-certfile') !== undefined) options.certFile = flag('etcd-certfile');
  if (flag('etcd-keyfile') !== undefined) options.keyFile = flag('etcd-keyfile');
  const interval = flag('etcd-compaction-interval');
  if (interval !== undefined) {
    const ms = interval === '0' ? 0 : parseGoDuration(interval);
    if (ms === undefined) return `--etcd-compaction-interval must be a duration such as 5m or 0, got "${interval}"`;
    options.compactionIntervalMs = ms;
  }
  const timeout = flag('etcd-request-timeout');
  if (timeout !== undefined) {
    const ms = parseGoDuration(timeout);
    if (ms === undefined || ms <= 0) return `--etcd-request-timeout must be a positive duration such as 5s, got "${timeout}"`;
    options.requestTimeoutMs = ms;
  }
  try {
    checkEtcdOptions(options);
  } catch (error) {
    if (error instanceof EtcdOptionsError) return error.message;
    throw error;
  }
  return options;
}

/** Opens the etcd backend with a watch cache for every served kind, started now as kube-apiserver starts its cachers. */
async function openEtcd(flags: EtcdFlags, groupDomain: string | undefined, logger: Logger): Promise<Storage> {
  const { openEtcdStorage } = await import('../../apiserver/storage/etcd-store.js');
  const { apiResources } = await import('../../apiserver/resources.js');
  const { collectionPrefix } = await import('../../apiserver/keys.js');
  const kinds = apiResources(groupDomain).map((resource) => collectionPrefix(resource, undefined));
  const storage = await openEtcdStorage({ ...flags, kinds, logger });
  const prefix = flags.prefix ?? '/registry';
  logger.info({ storage: 'etcd', etcd: flags.servers, prefix }, `storage: etcd at ${flags.servers.join(',')}, under ${prefix}${storage.ready() ? '' : ' (not reachable yet: not ready until it is)'}`);
  return storage;
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
