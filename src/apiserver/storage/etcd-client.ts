/**
 * The connection to etcd: the npm `etcd3` client (its gRPC connection pool, TLS and raw KV and
 * Watch services), set up so that a call fails fast and says why.
 *
 * etcd3's own fault handling is switched off. Its default global policy retries a failed call
 * three times, and a retried compare-and-swap transaction whose first attempt did reach etcd
 * answers "already exists" or "conflict" for a write that in fact succeeded; its default host
 * circuit breaker keeps failing calls for five seconds after etcd is back. Instead every call
 * gets one deadline, reads are retried on another server within it (as etcd's Go client retries
 * only calls that are safe to repeat), and gRPC reconnects within a second once etcd answers.
 */
import { readFileSync } from 'node:fs';
import { noop } from 'cockatiel';
import {
  ClientClosedError,
  ClientRuntimeError,
  Etcd3,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCGenericError,
  GRPCOutOfRangeError,
  GRPCUnavailableError,
  type IOptions,
} from 'etcd3';
import { DEFAULT_REQUEST_TIMEOUT_MS, EtcdOptionsError, checkEtcdOptions, type EtcdConnectionOptions } from './etcd-options.js';

export { DEFAULT_REQUEST_TIMEOUT_MS, EtcdOptionsError, checkEtcdOptions, type EtcdConnectionOptions };

/** An etcd3 client that fails fast (see the module comment). Reads the TLS files now: a missing one is an error here. */
export function connectEtcd(options: EtcdConnectionOptions): Etcd3 {
  checkEtcdOptions(options);
  const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const read = (flag: string, file: string | undefined) => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(file);
    } catch (error) {
      throw new EtcdOptionsError(`${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  const ca = read('--etcd-cafile', options.caFile);
  const cert = read('--etcd-certfile', options.certFile);
  const key = read('--etcd-keyfile', options.keyFile);
  const config: IOptions = {
    hosts: options.servers,
    // Without a CA file, https trusts the system's roots (etcd3 passes undefined through to gRPC).
    ...(ca || cert ? { credentials: { rootCertificate: ca as Buffer, ...(cert ? { certChain: cert, privateKey: key! } : {}) } } : {}),
    faultHandling: { host: () => noop, global: noop },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeout }),
    grpcOptions: {
      // A list of a large kind is one response: gRPC's default 4 MiB limit would fail it.
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      // Reconnect within a second of etcd coming back (gRPC's default backoff grows to two minutes).
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 1_000,
      // Notice a silent etcd (a partition, a stopped process) on a watch stream; etcd's minimum is 5 s.
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
    },
  };
  return new Etcd3(config);
}

/** etcd refused a read at a revision it has compacted away. */
export const isCompacted = (error: unknown): boolean =>
  error instanceof GRPCOutOfRangeError && error.message.includes('required revision has been compacted');

/** etcd refused a read at a revision it has not reached. */
export const isFutureRevision = (error: unknown): boolean =>
  error instanceof GRPCOutOfRangeError && error.message.includes('required revision is a future revision');

export const isDeadlineExceeded = (error: unknown): boolean => error instanceof GRPCDeadlineExceededError;

/**
 * Whether the call failed for want of an answer (no connection, no answer in time), rather than
 * etcd answering with a refusal (a request too large, a full database, a permission): only the
 * first makes the backend not ready.
 */
export const isUnreachable = (error: unknown): boolean =>
  error instanceof GRPCUnavailableError ||
  error instanceof GRPCDeadlineExceededError ||
  error instanceof GRPCCancelledError ||
  error instanceof ClientClosedError ||
  error instanceof ClientRuntimeError ||
  (error instanceof GRPCGenericError && error.constructor === GRPCGenericError) ||
  !(error instanceof Error) ||
  error.constructor === Error;

/** The cause of a failed call in a few words, without the stack: `14 UNAVAILABLE: No connection established…`. */
export function describeEtcdError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/^\w*Error: /, '')
    .split('\n')[0]!
    .replace('Last error: Error: ', 'Last error: ')
    .replace(/\.? Resolution note: $/, '');
}
