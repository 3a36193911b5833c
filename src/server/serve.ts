/**
 * Runs the webhook: HTTPS on the webhook port, plain HTTP probes and metrics on a
 * second port, certificate hot reload, graceful shutdown. Certificates come from
 * files or, with none given, from the development CA generated on first start.
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainThread } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import { createApp, type AppOptions } from './app.js';
import { createMetrics } from './metrics.js';
import { kubeClient, kubeLookups, type KubeLookups } from './kube.js';
import { listening } from './listening.js';
import { stampArrivals } from './arrival.js';
import { listen, probeHandler, reloadCertificatesOnChange, secureContext, tlsFiles, trackRequests } from './https.js';
import { ruleModules } from '../../rules/index.js';
import { groupDomainOf } from '../engine/rule.js';
import { kindValidator } from '../schema/validators.js';
import { capYoungGeneration, collectGarbageMeasured, collectWhenIdle, collectYoungGeneration, type IdleCollectionOptions } from './heap.js';
import { controlBackgroundThreads, mayRaiseThreads, type BackgroundThreadsControl, type BackgroundThreadsMode } from './thread-priority.js';
import { shippedCorpus, warmUp, warmUpRequests, WARM_UP_CORPUS_FILE, type WarmUpResult, type WarmUpSettings } from './warm-up.js';

export interface ServeOptions extends Omit<AppOptions, 'metrics' | 'logger'> {
  port?: number;
  probePort?: number;
  /** Default: Node's, every IPv6 and IPv4 address (`::`), or every IPv4 address where IPv6 is off. */
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
  /**
   * Review a corpus of realistic objects over loopback before readiness turns true, so the first
   * requests are not answered by cold code (default: on, with the corpus shipped in the package).
   */
  warmUp?: boolean | WarmUpSettings;
  /**
   * After the warm-up, a collection of the young generation in idle windows until V8 gives back the
   * young generation the warm-up grew (default: on; see collectWhenIdle). Each logged at debug.
   */
  idleCollection?: boolean | IdleCollectionOptions;
  /**
   * V8's background threads after the warm-up (see thread-priority.ts): `adaptive` below the main
   * thread while it has idle time and at its priority while it is saturated (where the process may
   * raise them again), `low` below it for good, `normal` untouched (default: this changes every
   * thread of the process, which only a process that is the server alone should do: the CLI's).
   */
  backgroundThreads?: BackgroundThreadsMode;
  /**
   * Holds V8's young generation at this many bytes, warm-up included (see capYoungGeneration).
   * Default: V8's own sizing, as this sets a process-wide V8 flag, which only a process that is the
   * server alone should do: the CLI passes YOUNG_GENERATION_CAP_BYTES unless the operator sized the
   * young generation. Ignored in a worker thread.
   */
  youngGenerationCapBytes?: number;
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
  /** Settles once the warm-up is over (at once when it is off): then readiness no longer waits for it. Never rejects. */
  warmedUp: Promise<WarmUpResult | undefined>;
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

/** What /readyz says while the warm-up runs. */
const WARMING_UP = 'warming up: reviewing realistic objects so the first requests are not answered by cold code';

/** What /readyz says before the control-plane caches have their first list. */
const WAITING_FOR_CACHES = 'waiting for the first list of Services and ResourceInterpreterCustomizations from the control plane';

export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.logger ?? pino({ level: 'info' });
  const host = options.bindAddress;
  const groupDomain = groupDomainOf(options.groupDomain);
  // Everything that can fail on bad input is checked before anything starts or is written.
  const sources = [options.lookups, options.contextPaths?.length, options.kubeconfig, options.inCluster].filter(Boolean).length;
  if (sources > 1) throw new Error('choose one source of lookups: --context, --kubeconfig or --in-cluster');
  if (options.kubeconfig || options.inCluster) await kubeClient(options.kubeconfig ? '--kubeconfig' : '--in-cluster');
  // Capped before the certificates: generating development ones alone grows an uncapped young generation to 16 MiB.
  const youngGeneration = options.youngGenerationCapBytes && isMainThread ? capYoungGeneration(options.youngGenerationCapBytes) : undefined;
  let prepared: Awaited<ReturnType<typeof prepareServing>>;
  try {
    prepared = await prepareServing(options, groupDomain, log);
  } catch (err) {
    youngGeneration?.stop();
    throw err;
  }
  const { files, initialTls, metrics, kube, lookups } = prepared;

  /** False once shutdown begins: readiness fails and answers close their connections. */
  let ready = true;
  const warmUpSettings = options.warmUp === false ? undefined : options.warmUp === true || options.warmUp === undefined ? {} : options.warmUp;
  /** True until the warm-up is over: readiness waits for it. */
  let warming = warmUpSettings !== undefined;
  const warmUpStop = new AbortController();
  const handler = createApp({ ...options, lookups, metrics, logger: log, draining: () => !ready }).callback();
  const server = createHttpsServer(
    {
      ...initialTls,
      minVersion: options.tlsMinVersion ?? 'TLSv1.2',
      handshakeTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      ...(options.clientCaFile ? { requestCert: true, rejectUnauthorized: true } : {}),
    },
    handler,
  );
  // Only a review with lookups has a deadline to keep (see createApp), so only then is each
  // request's arrival worth stamping: without them it was a WeakMap write and a clock read per
  // request for nothing.
  if (lookups) stampArrivals(server);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;

  // Every connection and the reviews in flight: shutdown waits for the reviews, not for connections that carry none.
  const tracker = trackRequests(server);
  const certificates = reloadCertificatesOnChange(server, files, options.clientCaFile, initialTls, log);

  // Not ready while shutting down, warming up, nor before the control-plane caches have their first list.
  const probeRequests = probeHandler(
    metrics.registry,
    () => (!ready ? 'shutting down' : warming ? WARMING_UP : kube && !kube.synced() ? WAITING_FOR_CACHES : undefined),
    log,
  );
  const probes = createHttpServer(probeRequests);

  let warmedUp: Promise<WarmUpResult | undefined> = Promise.resolve(undefined);
  let idleCollection: ReturnType<typeof collectWhenIdle> | undefined;
  let threads: BackgroundThreadsControl | undefined;
  const close = async (signal?: string) => {
    if (signal) log.info({ signal, reviewsInFlight: tracker.inFlight() }, 'draining the reviews in flight, then exiting');
    ready = false;
    warmUpStop.abort();
    await warmedUp;
    idleCollection?.stop();
    threads?.stop();
    youngGeneration?.stop();
    certificates.stop();
    await tracker.drain();
    await new Promise<void>((done) => (probes.listening ? probes.close(() => done()) : done()));
    await kube?.stop();
  };

  let webhookAddress: AddressInfo;
  let probeAddress: AddressInfo;
  try {
    webhookAddress = await listen(server, options.port ?? 8443, host);
    probeAddress = await listen(probes, options.probePort ?? 8000, host);
  } catch (err) {
    // A port in use must not leave the other listener, the watchers or the informers running.
    await close();
    throw err;
  }
  const port = webhookAddress.port;
  const probePort = probeAddress.port;
  const webhook = listening(webhookAddress, 'https');
  const probe = listening(probeAddress, 'http');
  // One line, the first a newcomer sees: where to connect, what to trust, where the probes are.
  const certificateNote = files.devNote ? `; ${files.devNote}` : '';
  log.info(
    { port, probePort, address: webhookAddress.address, groupDomain, ...(files.caFile ? { caBundle: files.caFile } : {}) },
    `fleetgate webhook serving ${webhook.url} (listening on ${webhook.addresses})${certificateNote}; probes on ${probe.url}/readyz, metrics on ${probe.url}/metrics`,
  );

  if (warmUpSettings) {
    // The webhook's own handler on a twin listener, so V8 compiles the very closures and objects that
    // serve the API server; the probe server's handler likewise. The app neither counts nor logs the
    // warm-up's requests; its lookups answer them as they answer any review.
    warmedUp = runWarmUp({ reviews: handler, probes: probeRequests }, { cert: initialTls.cert, key: initialTls.key, minVersion: options.tlsMinVersion ?? 'TLSv1.2' }, warmUpSettings, groupDomain, warmUpStop.signal, log).finally(() => (warming = false));
  }

  if (options.idleCollection !== false) {
    const settings = options.idleCollection === true || options.idleCollection === undefined ? {} : options.idleCollection;
    void warmedUp.then(() => {
      if (!ready) return;
      idleCollection = collectWhenIdle({ ...settings, collect: () => collectLogged(settings.collect ?? collectYoungGeneration, log) });
    });
  }

  const mode = options.backgroundThreads ?? 'normal';
  if (mode !== 'normal') {
    // After the warm-up: lowered during it, the compiler would not get the core the warm-up fills.
    void warmedUp.then(() => {
      if (ready) threads = startBackgroundThreads(mode, log);
    });
  }

  return { server, probes, port, probePort, caFile: files.caFile, reloadCertificates: certificates.reload, warmedUp, close };
}

/** The certificates, the validators, the metrics and the lookups: everything serve() reads or checks before it listens. */
async function prepareServing(options: ServeOptions, groupDomain: string, log: Logger) {
  const files = tlsFiles(options);
  const initialTls = secureContext(files, options.clientCaFile);
  // Every kind's validator is loaded before serving: a broken build fails here, not on each request.
  for (const rules of ruleModules) kindValidator(rules);
  // The YAML readers behind --context are loaded only when it is given.
  const staticLookups = options.contextPaths?.length ? (await import('../lookups/static.js')).loadContext(options.contextPaths, groupDomain) : undefined;
  if (staticLookups) log.info({ paths: options.contextPaths }, 'context lookups answered from files');
  const metrics = createMetrics({ processMetrics: true });
  let kube: KubeLookups | undefined;
  if (options.kubeconfig || options.inCluster) {
    kube = await kubeLookups({ kubeconfig: options.kubeconfig, groupDomain, logger: log });
    log.info({ kubeconfig: options.kubeconfig ?? 'in-cluster' }, 'context lookups answered by the control plane (watch-backed caches)');
  }
  const lookups = options.lookups ?? kube?.lookups ?? staticLookups;
  return { files, initialTls, metrics, kube, lookups };
}

function startBackgroundThreads(mode: 'adaptive' | 'low', log: Logger): BackgroundThreadsControl | undefined {
  if (process.platform !== 'linux') {
    log.info(`--background-threads=${mode} has no effect on ${process.platform}: per-thread priorities are Linux's`);
    return undefined;
  }
  // The main thread's priority is the process's (process.pid); a server in a worker thread shares
  // its process with a program whose threads are not its own to lower (vitest's, for one).
  if (!isMainThread) {
    log.info(`--background-threads=${mode} has no effect in a worker thread: the process's threads are not the server's alone`);
    return undefined;
  }
  if (mode === 'adaptive' && !mayRaiseThreads()) {
    log.info("V8's background threads keep the main thread's priority: lowering them while it has idle time needs CAP_SYS_NICE to raise them again when it is saturated (--background-threads=low lowers them for good)");
    return undefined;
  }
  const control = controlBackgroundThreads(mode, {
    onChange: (state, count, utilization) =>
      log.debug({ backgroundThreads: state, threads: count, eventLoopUtilization: Math.round(utilization * 100) / 100 }, state === 'normal' ? 'main thread saturated: background threads back at its priority' : 'main thread has idle time again: background threads lowered'),
  });
  log.info(
    { backgroundThreads: mode },
    mode === 'adaptive'
      ? "V8's background threads (optimizing compiler, concurrent GC) run below the main thread while it has idle time, at its priority while it is saturated"
      : "V8's background threads (optimizing compiler, concurrent GC) run below the main thread",
  );
  return control;
}

function collectLogged(collect: () => void, log: Logger): void {
  const { heapUsedMiB, youngGenerationMiB } = collectGarbageMeasured(collect);
  const tenth = ({ before, after }: { before: number; after: number }) => ({ before: Math.round(before * 10) / 10, after: Math.round(after * 10) / 10 });
  log.debug({ heapUsedMiB: tenth(heapUsedMiB), youngGenerationMiB: tenth(youngGenerationMiB) }, 'young-generation collection while idle');
}

/** The warm-up, logged: how long it took once done; a failure at warn, and readiness does not wait for it. */
async function runWarmUp(
  handlers: Parameters<typeof warmUp>[0],
  tls: Parameters<typeof warmUp>[1],
  settings: WarmUpSettings,
  groupDomain: string,
  signal: AbortSignal,
  log: Logger,
): Promise<WarmUpResult | undefined> {
  try {
    const corpus = settings.corpus ?? shippedCorpus();
    if (!corpus) {
      log.warn(`no warm-up corpus (${WARM_UP_CORPUS_FILE} is written by npm run build); ready without warming up`);
      return undefined;
    }
    const result = await warmUp(handlers, tls, warmUpRequests(corpus, groupDomain), settings, signal);
    if (signal.aborted) return result;
    log.info(
      { warmUpMs: Math.round(result.ms), warmUpCpuMs: Math.round(result.cpuMs), warmUpReviews: result.reviews, warmUpProbes: result.probes, heapUsedMiB: result.heapUsedMiB && { before: Math.round(result.heapUsedMiB.before), after: Math.round(result.heapUsedMiB.after) } },
      `warmed up in ${Math.round(result.ms)} ms (${result.reviews} reviews of realistic objects and ${result.probes} probe requests over loopback, ${Math.round(result.cpuMs)} ms of CPU${result.cutShort ? '; cut short by its time budget' : ''}${result.heapUsedMiB ? `; heap in use ${Math.round(result.heapUsedMiB.before)} -> ${Math.round(result.heapUsedMiB.after)} MiB after a full collection` : ''}); readiness no longer waits for it`,
    );
    return result;
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'warm-up failed; ready without it');
    return undefined;
  }
}
