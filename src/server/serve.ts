/**
 * Runs the webhook: HTTPS on the webhook port, plain HTTP probes on a second port,
 * graceful shutdown. Certificates come from files or, with none given, from the
 * development CA generated on first start.
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp, type AppOptions } from './app.js';
import { ensureDevCerts } from '../../certs/tinyca.js';

export interface ServeOptions extends AppOptions {
  port?: number;
  probePort?: number;
  bindAddress?: string;
  certDir?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsMinVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** Where development certificates are kept when no certificate is given. */
  devCertDir?: string;
  log?: (message: string) => void;
}

export interface RunningServer {
  server: HttpsServer;
  probes: HttpServer;
  port: number;
  probePort: number;
  caFile?: string;
  /** Readiness turns false, new connections stop, in-flight reviews finish. */
  close(): Promise<void>;
}

/**
 * The API server reuses connections and drops idle ones after 90 s; closing ours
 * first would race its next request and fail it with an EOF.
 */
const KEEP_ALIVE_TIMEOUT_MS = 95_000;

function tlsFiles(options: ServeOptions, log: (m: string) => void): { cert: string; key: string; caFile?: string } {
  if (options.tlsCertFile || options.tlsPrivateKeyFile) {
    if (!options.tlsCertFile || !options.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    return { cert: options.tlsCertFile, key: options.tlsPrivateKeyFile };
  }
  if (options.certDir) return { cert: join(options.certDir, 'tls.crt'), key: join(options.certDir, 'tls.key') };
  const dev = ensureDevCerts(resolve(options.devCertDir ?? 'certs'));
  log(`${dev.created ? 'generated' : 'reusing'} development certificates in ${dev.dir} (CA bundle: ${dev.caFile})`);
  return { cert: dev.certFile, key: dev.keyFile, caFile: dev.caFile };
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
  const log = options.log ?? ((m: string) => console.error(m));
  const host = options.bindAddress ?? '0.0.0.0';
  const files = tlsFiles(options, log);
  const server = createHttpsServer(
    { cert: readFileSync(files.cert), key: readFileSync(files.key), minVersion: options.tlsMinVersion ?? 'TLSv1.2' },
    createApp(options).callback(),
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 5_000;

  let ready = true;
  const probes = createHttpServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const ok = path === '/healthz' || path === '/livez' || (path === '/readyz' && ready);
    const known = path === '/healthz' || path === '/livez' || path === '/readyz';
    res.writeHead(known ? (ok ? 200 : 503) : 404, { 'content-type': 'text/plain' });
    res.end(known ? (ok ? 'ok' : 'shutting down') : 'not found');
  });

  const port = await listen(server, options.port ?? 8443, host);
  const probePort = await listen(probes, options.probePort ?? 8000, host);
  log(`fleetgate webhook serving on https://${host === '0.0.0.0' ? 'localhost' : host}:${port} (probes on http://${host === '0.0.0.0' ? 'localhost' : host}:${probePort}/readyz)`);

  const close = async () => {
    ready = false;
    await new Promise<void>((done) => {
      server.close(() => done());
      server.closeIdleConnections();
    });
    await new Promise<void>((done) => probes.close(() => done()));
  };
  return { server, probes, port, probePort, caFile: files.caFile, close };
}
