/** How to reach etcd, checked before anything connects (no etcd3 import: the flag checks stay cheap). */

export interface EtcdConnectionOptions {
  /** Client URLs, `http://host:2379` or `https://host:2379` (all of one scheme). */
  servers: string[];
  /** PEM CA bundle that signed etcd's serving certificate (https). */
  caFile?: string;
  /** PEM client certificate and key, for etcd's --client-cert-auth. */
  certFile?: string;
  keyFile?: string;
  /** How long one call may take before it fails (ms). */
  requestTimeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;

/** A problem with the options themselves, found before connecting. */
export class EtcdOptionsError extends Error {
  override readonly name = 'EtcdOptionsError';
}

export function checkEtcdOptions(options: EtcdConnectionOptions): void {
  if (options.servers.length === 0) throw new EtcdOptionsError('--etcd-servers needs at least one URL');
  for (const server of options.servers) {
    if (!/^https?:\/\//.test(server)) throw new EtcdOptionsError(`--etcd-servers: "${server}" must start with http:// or https://`);
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new EtcdOptionsError(`--etcd-servers: "${server}" is not a URL (for example http://127.0.0.1:2379)`);
    }
    if (!url.port) throw new EtcdOptionsError(`--etcd-servers: "${server}" names no port (etcd's client port is usually 2379)`);
    if (url.pathname !== '/' || url.search || url.username) throw new EtcdOptionsError(`--etcd-servers: "${server}" must be scheme://host:port, nothing more`);
  }
  const secure = options.servers.filter((server) => server.startsWith('https:')).length;
  if (secure !== 0 && secure !== options.servers.length) throw new EtcdOptionsError('--etcd-servers: every URL must use the same scheme, all http:// or all https://');
  const tls = options.caFile !== undefined || options.certFile !== undefined || options.keyFile !== undefined;
  if (tls && secure === 0) throw new EtcdOptionsError('--etcd-cafile, --etcd-certfile and --etcd-keyfile need https:// etcd servers');
  if ((options.certFile === undefined) !== (options.keyFile === undefined)) throw new EtcdOptionsError('--etcd-certfile and --etcd-keyfile go together');
}
