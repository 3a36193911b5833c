/**
 * What both HTTPS servers (`serve`, the webhook; `apiserver`, the resource API) do the same way:
 * which certificate to serve (files, a directory, or the development CA made on first start), the
 * client CA bundle, certificate hot reload, listening, and draining the requests in flight on
 * shutdown.
 */
import type { Server as HttpsServer, ServerOptions } from 'node:https';
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server as HttpServer, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isIP, type AddressInfo, type Socket } from 'node:net';
import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry as MetricsRegistry } from 'prom-client';
import { DEV_NAMES, ensureDevCerts } from '../../certs/tinyca.js';
import { watchCertificateFiles } from './cert-watch.js';

export interface TlsOptions {
  /** The address served: a specific IP address is added to the names development certificates cover. */
  bindAddress?: string;
  certDir?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Require client certificates signed by this CA. */
  clientCaFile?: string;
  /** Where development certificates are kept when no certificate is given. */
  devCertDir?: string;
}

export interface TlsFiles {
  cert: string;
  key: string;
  caFile?: string;
  /** For development certificates: what the start-up line says about them. */
  devNote?: string;
}

/** Certificate writers (kubelet's Secret volumes, cert-manager) change several files in a burst. */
const RELOAD_DEBOUNCE_MS = 100;
/** How often the certificate files are read in any case, for changes no file watch reports (controller-runtime's interval). */
const RELOAD_POLL_MS = 10_000;
/** How long shutdown waits for a request body still arriving before it gives up on the request. */
const ARRIVAL_GRACE_MS = 1000;

/** The names development certificates cover: localhost and its addresses, and a specific address served. */
function devNames(bindAddress: string | undefined) {
  const specific = bindAddress && isIP(bindAddress) && !['0.0.0.0', '::', ...DEV_NAMES.ipAddresses].includes(bindAddress);
  return specific ? { ...DEV_NAMES, ipAddresses: [...DEV_NAMES.ipAddresses, bindAddress] } : DEV_NAMES;
}

export function tlsFiles(options: TlsOptions): TlsFiles {
  if (options.tlsCertFile || options.tlsPrivateKeyFile) {
    if (!options.tlsCertFile || !options.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    return { cert: options.tlsCertFile, key: options.tlsPrivateKeyFile };
  }
  if (options.certDir) return { cert: join(options.certDir, 'tls.crt'), key: join(options.certDir, 'tls.key') };
  const names = devNames(options.bindAddress);
  const dev = ensureDevCerts(resolve(options.devCertDir ?? 'certs'), names);
  const covered = [...names.dnsNames, ...names.ipAddresses].join(', ');
  const devNote = `CA bundle at ${dev.caFile} (${dev.created ? 'generated' : 'reusing'} development certificates for ${covered})`;
  return { cert: dev.certFile, key: dev.keyFile, caFile: dev.caFile, devNote };
}

export function secureContext(files: TlsFiles, clientCaFile: string | undefined): Pick<ServerOptions, 'cert' | 'key' | 'ca'> {
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

/** Listens on `host` (Node's default, every address, when undefined) and answers the address bound. */
export const listen = (server: HttpServer | HttpsServer, port: number, host: string | undefined) =>
  new Promise<AddressInfo>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done(server.address() as AddressInfo);
    });
  });

export interface CertificateReloader {
  /** Re-reads the certificate files now (also done automatically when they change). */
  reload(): boolean;
  stop(): void;
}

/** Serves new certificates to new handshakes when the files change; existing connections keep theirs. */
export function reloadCertificatesOnChange(
  server: HttpsServer,
  files: TlsFiles,
  clientCaFile: string | undefined,
  initial: Pick<ServerOptions, 'cert' | 'key' | 'ca'>,
  log: Logger,
): CertificateReloader {
  // What is being served, as read: a check that finds the same bytes reloads nothing.
  let served = initial;
  const sameFiles = (a: typeof served, b: typeof served) =>
    (a.cert as Buffer).equals(b.cert as Buffer) && (a.key as Buffer).equals(b.key as Buffer) && (a.ca === undefined ? b.ca === undefined : b.ca !== undefined && (a.ca as Buffer).equals(b.ca as Buffer));
  /** Why the last reload failed: the files are read every 10 s, and one broken state is reported once. */
  let failure: string | undefined;
  const reload = (): boolean => {
    try {
      const next = secureContext(files, clientCaFile);
      failure = undefined;
      if (sameFiles(next, served)) return true;
      // Existing connections keep their context; new handshakes get the new certificate.
      server.setSecureContext(next);
      served = next;
      log.info({ cert: files.cert }, 'serving certificate reloaded');
      return true;
    } catch (err) {
      // Mid-rotation the key may not match the certificate yet; the next change or check retries.
      const message = (err as Error).message;
      if (message !== failure) log.warn({ cert: files.cert, err: message }, 'serving certificate not reloaded');
      failure = message;
      return false;
    }
  };
  const watch = watchCertificateFiles([files.cert, files.key, ...(clientCaFile ? [clientCaFile] : [])], reload, {
    debounceMs: RELOAD_DEBOUNCE_MS,
    pollMs: RELOAD_POLL_MS,
    unwatchable: (path, err) => log.warn({ path, err: err.message }, 'cannot watch certificate file; looking again in 10 s'),
  });
  return { reload, stop: () => watch.close() };
}

export interface RequestTracker {
  /** How many requests are in flight now. */
  inFlight(): number;
  /**
   * Closes the server: new connections stop, the requests in flight finish (or, for one whose body
   * never finishes arriving, are cut after a grace), then every connection is closed.
   */
  drain(): Promise<void>;
}

/** On a socket that has carried a request: the request it serves, until that request's response closes. */
const servingRequest = Symbol('fleetgate.servingRequest');
type RequestSocket = Socket & { [servingRequest]?: IncomingMessage | undefined };

/**
 * Tracks every connection, from the TCP accept on (before TLS, before any request), and the
 * requests in flight: shutdown waits for the requests, not for connections that carry none.
 */
export function trackRequests(server: HttpServer | HttpsServer): RequestTracker {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let inFlight = 0;
  let allDone: (() => void) | undefined;
  // The sockets that have carried a request (the TLS ones, not the TCP sockets above), each added
  // once, with the request each serves on the socket itself. A Set of the requests, added to and
  // deleted from for every request, had V8 rebuild its table every few requests, and the tables of
  // a long-lived Set are built in the old generation, garbage only a full collection frees: about
  // half of the old generation's growth under the soak's load (0.5-0.8 -> 0.3 MiB/s).
  const requestSockets = new Set<RequestSocket>();
  function onResponseClose(this: ServerResponse) {
    const socket: RequestSocket | null = this.req.socket;
    if (socket?.[servingRequest] === this.req) socket[servingRequest] = undefined;
    if (--inFlight === 0) allDone?.();
  }
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    const socket: RequestSocket = req.socket;
    if (!(servingRequest in socket)) {
      requestSockets.add(socket);
      socket.once('close', () => requestSockets.delete(socket));
    }
    socket[servingRequest] = req;
    // 'close' comes once; `on` spares the wrapper `once` would make for every request.
    res.on('close', onResponseClose);
  });
  const drain = async () => {
    // Connections that finish their in-flight request go idle after close() began; the
    // keep-alive timeout would hold them, so keep closing idle ones until done.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const serverClosed = new Promise<void>((done) => (server.listening ? server.close(() => done()) : done()));
    server.closeIdleConnections();
    // Once no request is in flight, what is left carries none: a bare TCP connection, one idle
    // after its TLS handshake, one whose request never finished arriving. None may hold shutdown.
    // A request whose body is still arriving gets a moment to finish (then it is one to drain);
    // one that stalls is no request, and its sender retries elsewhere.
    const cutStalled = setTimeout(() => {
      for (const socket of requestSockets) if (socket[servingRequest]?.complete === false) socket.destroy();
    }, ARRIVAL_GRACE_MS);
    if (inFlight > 0) await new Promise<void>((done) => (allDone = done));
    clearTimeout(cutStalled);
    for (const socket of sockets) socket.destroy();
    await serverClosed;
    clearInterval(sweep);
  };
  return { inFlight: () => inFlight, drain };
}

/**
 * The plain-HTTP probe server: `/healthz` and `/livez` (200 while the process runs), `/readyz`
 * (503 with the reason `notReady` gives, else 200) and `/metrics` (Prometheus text).
 */
export function createProbeServer(metrics: MetricsRegistry, notReady: () => string | undefined, log: Logger): HttpServer {
  return createHttpServer(probeHandler(metrics, notReady, log));
}

/** The probe server's request handler (the webhook's warm-up exercises it on a twin listener). */
export function probeHandler(metrics: MetricsRegistry, notReady: () => string | undefined, log: Logger): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/metrics') {
      metrics.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.contentType });
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
    const reason = path === '/readyz' ? notReady() : undefined;
    res.writeHead(known ? (reason ? 503 : 200) : 404, { 'content-type': 'text/plain' });
    res.end(known ? (reason ?? 'ok') : 'not found');
  };
}
