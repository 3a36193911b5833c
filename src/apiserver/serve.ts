/**
 * Runs `fleetgate apiserver`: the resource API over HTTPS (certificates as `serve` handles them),
 * probes and metrics on a plain port, a storage backend behind the contract, and a clean stop:
 * readiness turns false, watches end, requests in flight finish, then storage closes.
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Server as HttpServer } from 'node:http';
import { pino, type Logger } from 'pino';
import type Router from '@koa/router';
import type { RuleOptions } from '../index.js';
import { groupDomainOf } from '../engine/rule.js';
import { createProbeServer, listen, reloadCertificatesOnChange, secureContext, tlsFiles, trackRequests, type TlsOptions } from '../server/https.js';
import type { Storage } from './storage/index.js';
import { createApiServerApp } from './app.js';
import { authenticator, isLoopback, readTokenFile } from './auth.js';
import { createApiServerMetrics } from './metrics.js';
import { apiResources } from './resources.js';
import { qualifiedResource } from './keys.js';

export interface ApiServerOptions extends TlsOptions, RuleOptions {
  /** The storage backend, opened; the server closes it when it stops. */
  storage: Storage;
  port?: number;
  probePort?: number;
  bindAddress?: string;
  groupDomain?: string;
  tokenAuthFile?: string;
  tlsMinVersion?: 'TLSv1.2' | 'TLSv1.3';
  logger?: Logger;
  /** Tests: a watch's default length and bookmark interval. */
  minRequestTimeoutSeconds?: number;
  bookmarkIntervalMs?: number;
  /** Discovery and OpenAPI routes (apiserver-meta). */
  extraRoutes?: (router: Router) => void;
}

export interface RunningApiServer {
  server: HttpsServer;
  probes: HttpServer;
  port: number;
  probePort: number;
  /** `https://127.0.0.1:6443` */
  url: string;
  /** The CA that signed the serving certificate, when this server made it (development certificates). */
  caFile?: string;
  reloadCertificates(): boolean;
  /** Stops serving (see the module comment); `signal`, if given, is logged. */
  close(signal?: string): Promise<void>;
}

export const DEFAULT_PORT = 6443;
export const DEFAULT_PROBE_PORT = 8001;
export const DEFAULT_BIND_ADDRESS = '127.0.0.1';

/** Slow clients are cut at kube-apiserver's request timeout; watches are exempt (they end themselves). */
const REQUEST_TIMEOUT_MS = 60_000;
const KEEP_ALIVE_TIMEOUT_MS = 95_000;

export async function serveApi(options: ApiServerOptions): Promise<RunningApiServer> {
  const log = options.logger ?? pino({ level: 'info' });
  const host = options.bindAddress ?? DEFAULT_BIND_ADDRESS;
  const groupDomain = groupDomainOf(options.groupDomain);
  // Everything that can fail on bad input is checked before anything listens.
  const tokens = options.tokenAuthFile ? readTokenFile(options.tokenAuthFile) : undefined;
  const authenticated = Boolean(tokens || options.clientCaFile);
  if (!isLoopback(host) && !authenticated) {
    throw new Error(`refusing to serve on ${host} without authentication: give --token-auth-file and/or --client-ca-file, or bind a loopback address`);
  }
  const files = tlsFiles({ ...options, bindAddress: host });
  const initialTls = secureContext(files, options.clientCaFile);
  const resources = apiResources(groupDomain);
  const metrics = createApiServerMetrics(
    resources.map(qualifiedResource),
    { processMetrics: true },
  );
  const check = authenticated ? authenticator(tokens, Boolean(options.clientCaFile)) : undefined;

  let ready = true;
  const api = createApiServerApp({
    storage: options.storage,
    groupDomain,
    logger: log,
    allowNoExecuteTaintPolicy: options.allowNoExecuteTaintPolicy,
    ...(check ? { authenticate: (ctx) => check(ctx.req) } : {}),
    draining: () => !ready,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    extraRoutes: options.extraRoutes,
  });
  api.app.middleware.unshift(metrics.middleware);
  const server = createHttpsServer(
    {
      ...initialTls,
      minVersion: options.tlsMinVersion ?? 'TLSv1.2',
      // Certificates are asked for, not required: a request may authenticate by token instead.
      ...(options.clientCaFile ? { requestCert: true, rejectUnauthorized: false } : {}),
    },
    api.app.callback(),
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  // A watch is one long response: Node's requestTimeout counts until the request has arrived, not
  // the response, so it cuts only slow senders.
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  const tracker = trackRequests(server);
  const certificates = reloadCertificatesOnChange(server, files, options.clientCaFile, initialTls, log);

  const probes = createProbeServer(metrics.registry, () => (!ready ? 'shutting down' : !options.storage.ready() ? 'storage is not ready' : undefined), log);

  let closing: Promise<void> | undefined;
  const close = (signal?: string) =>
    (closing ??= (async () => {
      if (signal) log.info({ signal, requestsInFlight: tracker.inFlight() }, 'ending watches and draining the requests in flight, then exiting');
      ready = false;
      certificates.stop();
      api.endWatches();
      await tracker.drain();
      await new Promise<void>((done) => (probes.listening ? probes.close(() => done()) : done()));
      await options.storage.close();
    })());

  let port: number;
  let probePort: number;
  try {
    port = (await listen(server, options.port ?? DEFAULT_PORT, host)).port;
    probePort = (await listen(probes, options.probePort ?? DEFAULT_PROBE_PORT, host)).port;
  } catch (err) {
    await close();
    throw err;
  }
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `https://${shown}:${port}`;
  const certificateNote = files.devNote ? `; ${files.devNote}` : '';
  log.info(
    { port, probePort, groupDomain, authentication: authenticated ? 'required' : 'none (loopback)' },
    `fleetgate apiserver serving on ${url}${certificateNote}; probes and metrics on http://${shown}:${probePort}`,
  );
  return { server, probes, port, probePort, url, ...(files.caFile ? { caFile: files.caFile } : {}), reloadCertificates: certificates.reload, close };
}
