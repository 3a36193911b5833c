/**
 * Runs the webhook: HTTPS on the webhook port, plain HTTP probes and metrics on a
 * second port, certificate hot reload, graceful shutdown. Certificates come from
 * files or, with none given, from the development CA generated on first start.
 */
import { createServer as createHttpsServer, type Server as HttpsServer, type ServerOptions } from 'node:https';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { createApp, type AppOptions } from './app.js';
import { createMetrics } from './metrics.js';
import { kubeLookups, type KubeLookups } from './kube.js';
import { ensureDevCerts } from '../../certs/tinyca.js';
import { DEFAULT_GROUP_DOMAIN, ruleModules } from '../../rules/index.js';
import { kindValidator } from '../schema.js';

export interface ServeOptions extends Omit<AppOptions, 'metrics' | 'logger'> {
  port?: number;
  probePort?: number;
  bindAddress?: string;
  certDir?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsMinVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** Require API-server client certificates signed by this CA. */
  clientCaFile?: string;
  /** Files or directories of Services and ResourceInterpreterCustomizations answering the lookups. */
  contextPaths?: string[];
  /** Read lookups from the control plane through this kubeconfig (watch-backed caches). */
  kubeconfig?: string;
  /** Read lookups from the control plane with the pod's service account. */
  inCluster?: boolean;
  /** Where development certificates are kept when no certificate is given. */
  devCertDir?: string;
  logger?: Logger;
}

export interface RunningServer {
  server: HttpsServer;
  probes: HttpServer;
  port: number;
  probePort: number;
  caFile?: string;
  /** Re-reads the certificate files now (also done automatically when they change). */
  reloadCertificates(): boolean;
  /**
   * Stops serving: readiness turns false, new connections stop, the reviews in flight finish,
   * then every connection is closed. `signal`, if given, is logged.
   */
  close(signal?: string): Promise<void>;
}

/**
 * The API server reuses connections and drops idle ones after 90 s; closing ours
 * first would race its next request and fail it with an EOF.
 */
const KEEP_ALIVE_TIMEOUT_MS = 95_000;

/**
 * No API server waits longer than 30 s for a webhook's answer, so a request that takes longer
 * to arrive (a stalled or trickled body, headers never finished) is given up on. Node checks
 * both limits only while a request is arriving, not on an idle kept-alive connection. A TLS
 * handshake gets as long (Node's default, 120 s, let connections that never start one hold a
 * descriptor four times longer than any other kind of silent client).
 */
const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node looks for requests past those limits (its default, 30 s, would double them). */
const TIMEOUT_CHECK_INTERVAL_MS = 5_000;

/** What /readyz says before the control-plane caches have their first list. */
const WAITING_FOR_CACHES = 'waiting for the first list of Services and ResourceInterpreterCustomizations from the control plane';

/** Certificate writers (kubelet's Secret volumes, cert-manager) change several files in a burst. */
const RELOAD_DEBOUNCE_MS = 100;
/** How long shutdown waits for a request body still arriving before it gives up on the request. */
const ARRIVAL_GRACE_MS = 1000;

interface TlsFiles {
  cert: string;
  key: string;
  caFile?: string;
}

function tlsFiles(options: ServeOptions, log: Logger): TlsFiles {
  if (options.tlsCertFile || options.tlsPrivateKeyFile) {
    if (!options.tlsCertFile || !options.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    return { cert: options.tlsCertFile, key: options.tlsPrivateKeyFile };
  }
  if (options.certDir) return { cert: join(options.certDir, 'tls.crt'), key: join(options.certDir, 'tls.key') };
  const dev = ensureDevCerts(resolve(options.devCertDir ?? 'certs'));
  log.info({ dir: dev.dir, caBundle: dev.caFile }, `${dev.created ? 'generated' : 'reusing'} development certificates; CA bundle at ${dev.caFile}`);
  return { cert: dev.certFile, key: dev.keyFile, caFile: dev.caFile };
}

function secureContext(files: TlsFiles, clientCaFile: string | undefined): Pick<ServerOptions, 'cert' | 'key' | 'ca'> {
  return {
    cert: readFileSync(files.cert),
    key: readFileSync(files.key),
    ...(clientCaFile ? { ca: clientCas(clientCaFile) } : {}),
  };
}

/**
 * The client CA bundle, refused unless it holds a certificate that parses: TLS would take any
 * text and then fail every handshake while the probes said ready. The error names the file, never
 * what it holds (a private key put there by mistake, say).
 */
function clientCas(file: string): Buffer {
  const bundle = readFileSync(file);
  const blocks = bundle.toString('latin1').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  const parses = (pem: string) => {
    try {
      return Boolean(new X509Certificate(pem));
    } catch {
      return false;
    }
  };
  if (blocks.length === 0 || !blocks.every(parses)) throw new Error(`--client-ca-file ${file} holds no PEM certificate, or one that does not parse`);
  return bundle;
}

const listen = (server: HttpServer | HttpsServer, port: number, host: string) =>
  new Promise<number>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done((server.address() as AddressInfo).port);
    });
  });

export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.logger ?? pino({ level: 'info' });
  const host = options.bindAddress ?? '0.0.0.0';
  const groupDomain = options.groupDomain ?? DEFAULT_GROUP_DOMAIN;
  // Everything that can fail on bad input is checked before anything starts or is written.
  const sources = [options.lookups, options.contextPaths?.length, options.kubeconfig, options.inCluster].filter(Boolean).length;
  if (sources > 1) throw new Error('choose one source of lookups: --context, --kubeconfig or --in-cluster');
  const files = tlsFiles(options, log);
  const initialTls = secureContext(files, options.clientCaFile);
  // Every kind's validator is loaded before serving: a broken build fails here, not on each request.
  for (const rules of ruleModules) kindValidator(rules);
  // The YAML readers behind --context are loaded only when it is given.
  const staticLookups = options.contextPaths?.length ? (await import('./context.js')).loadContext(options.contextPaths, groupDomain) : undefined;
  if (staticLookups) log.info({ paths: options.contextPaths }, 'context lookups answered from files');
  const metrics = createMetrics({ processMetrics: true });
  let kube: KubeLookups | undefined;
  if (options.kubeconfig || options.inCluster) {
    kube = await kubeLookups({ kubeconfig: options.kubeconfig, groupDomain, logger: log });
    log.info({ kubeconfig: options.kubeconfig ?? 'in-cluster' }, 'context lookups answered by the control plane (watch-backed caches)');
  }
  const lookups = options.lookups ?? kube?.lookups ?? staticLookups;

  /** False once shutdown begins: readiness fails and answers close their connections. */
  let ready = true;
  const server = createHttpsServer(
    {
      ...initialTls,
      minVersion: options.tlsMinVersion ?? 'TLSv1.2',
      handshakeTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      ...(options.clientCaFile ? { requestCert: true, rejectUnauthorized: true } : {}),
    },
    createApp({ ...options, lookups, metrics, logger: log, draining: () => !ready }).callback(),
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;

  // Every connection, from the TCP accept on (before TLS, before any request), and the reviews
  // in flight: shutdown waits for the reviews, not for connections that carry none.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let reviewsInFlight = 0;
  let allReviewsDone: (() => void) | undefined;
  const requests = new Set<IncomingMessage>();
  server.on('request', (req, res) => {
    reviewsInFlight++;
    requests.add(req);
    res.once('close', () => {
      requests.delete(req);
      if (--reviewsInFlight === 0) allReviewsDone?.();
    });
  });

  // What is being served, as read: a change elsewhere in the folders (a log file) reloads nothing.
  let served = initialTls;
  const sameFiles = (a: typeof served, b: typeof served) =>
    (a.cert as Buffer).equals(b.cert as Buffer) && (a.key as Buffer).equals(b.key as Buffer) && (a.ca === undefined ? b.ca === undefined : b.ca !== undefined && (a.ca as Buffer).equals(b.ca as Buffer));
  const reloadCertificates = (): boolean => {
    try {
      const next = secureContext(files, options.clientCaFile);
      if (sameFiles(next, served)) return true;
      // Existing connections keep their context; new handshakes get the new certificate.
      server.setSecureContext(next);
      served = next;
      log.info({ cert: files.cert }, 'serving certificate reloaded');
      return true;
    } catch (err) {
      // Mid-rotation the key may not match the certificate yet; the next change event retries.
      log.warn({ cert: files.cert, err: (err as Error).message }, 'serving certificate not reloaded');
      return false;
    }
  };
  const watchers: FSWatcher[] = [];
  let pending: NodeJS.Timeout | undefined;
  const watched = [files.cert, files.key, ...(options.clientCaFile ? [options.clientCaFile] : [])];
  // Directories, not files: Secret volumes swap a symlink, which a file watch would miss.
  for (const dir of new Set(watched.map((f) => dirname(resolve(f))))) {
    try {
      watchers.push(
        watch(dir, () => {
          clearTimeout(pending);
          pending = setTimeout(reloadCertificates, RELOAD_DEBOUNCE_MS);
        }),
      );
    } catch (err) {
      log.warn({ dir, err: (err as Error).message }, 'cannot watch certificate directory; reload on restart only');
    }
  }

  const probes = createHttpServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          log.warn({ err: (err as Error).message }, 'metrics collection failed');
          res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed');
        },
      );
      return;
    }
    const known = path === '/healthz' || path === '/livez' || path === '/readyz';
    // Not ready while shutting down, nor before the control-plane caches have their first list.
    const notReady = path !== '/readyz' ? undefined : !ready ? 'shutting down' : kube && !kube.synced() ? WAITING_FOR_CACHES : undefined;
    res.writeHead(known ? (notReady ? 503 : 200) : 404, { 'content-type': 'text/plain' });
    res.end(known ? (notReady ?? 'ok') : 'not found');
  });

  const close = async (signal?: string) => {
    if (signal) log.info({ signal, reviewsInFlight }, 'draining the reviews in flight, then exiting');
    ready = false;
    clearTimeout(pending);
    for (const w of watchers) w.close();
    // Connections that finish their in-flight review go idle after close() began; the
    // keep-alive timeout would hold them for 95 s, so keep closing idle ones until done.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const closed = (s: HttpServer | HttpsServer) => new Promise<void>((done) => (s.listening ? s.close(() => done()) : done()));
    const serverClosed = closed(server);
    server.closeIdleConnections();
    // Once no review is in flight, what is left carries none: a bare TCP connection, one idle
    // after its TLS handshake, one whose request never finished arriving. None may hold shutdown.
    // A request whose body is still arriving gets a moment to finish (then it is a review to
    // drain); one that stalls is no review, and its sender retries elsewhere.
    const cutStalled = setTimeout(() => {
      for (const req of requests) if (!req.complete) req.socket.destroy();
    }, ARRIVAL_GRACE_MS);
    if (reviewsInFlight > 0) await new Promise<void>((done) => (allReviewsDone = done));
    clearTimeout(cutStalled);
    for (const socket of sockets) socket.destroy();
    await serverClosed;
    clearInterval(sweep);
    await closed(probes);
    await kube?.stop();
  };

  let port: number;
  let probePort: number;
  try {
    port = await listen(server, options.port ?? 8443, host);
    probePort = await listen(probes, options.probePort ?? 8000, host);
  } catch (err) {
    // A port in use must not leave the other listener, the watchers or the informers running.
    await close();
    throw err;
  }
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  log.info({ port, probePort, groupDomain }, `fleetgate webhook serving on https://${shown}:${port}; probes and metrics on http://${shown}:${probePort}`);

  return { server, probes, port, probePort, caFile: files.caFile, reloadCertificates, close };
}
