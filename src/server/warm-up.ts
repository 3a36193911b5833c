/**
 * The webhook's warm-up: before readiness turns true, the process answers a small corpus of
 * realistic reviews (every kind, valid and broken, CREATE and UPDATE, validated and mutated)
 * over a few keep-alive TLS connections to a twin listener on loopback. A fresh process has no
 * compiled code; without this, a rollout's new pod answers its first requests several times
 * slower and a steady load queues behind them.
 *
 * The twin listener serves the webhook's own handler (the same Koa app, middleware, metrics objects,
 * logger and lookups) with the same certificate, so TLS, Node's HTTP parser, Koa, routing, decoding,
 * the schemas and the rules get compiled for the very objects that serve the API server (a second
 * app built for the warm-up, as before, shared the code but not those objects; measured, it made
 * no difference either way). It is a twin listener, not the webhook's port, because that one may
 * demand client certificates (--client-ca-file) the warm-up has none of. The twin marks each
 * request it receives (warm-up-mark.ts) and the app neither counts marked requests in its metrics
 * nor logs them, so warm-up reviews never reach operators' dashboards or logs.
 *
 * How much is counted in rounds of the corpus (reviews per kind), with a time cap for a starved
 * machine only: a 1 s cap cut the warm-up short even on a quiet machine. What leaves the first
 * requests after readiness near the steady cost is V8's optimizing compiler having run, and many
 * functions reach it only after some thousand requests: three rounds left the first 1,500 requests
 * at 2.5-3.3 times the steady CPU (--trace-opt: some 250 functions compiled by TurboFan in the first
 * 2,000 requests, about all of that extra CPU). So ten rounds, over 16 connections.
 *
 * The probe server's requests come in between the reviews, on a twin plain-HTTP listener of its own:
 * Node's HTTP code compiled for TLS sockets alone met the first /metrics scrape or kubelet probe after
 * readiness with another kind of socket and response, and V8 threw that code away under load
 * (--trace-deopt: "wrong map" in parserOnIncoming, assignSocket and their neighbours in the first
 * milliseconds after the first scrape, then compiled again while the load's requests waited).
 *
 * The full garbage collection that leaves the heap small runs halfway through the rounds, not after
 * them. One after them, when no request is in flight any more, left twice as many functions to be
 * optimized after readiness as no collection did (--trace-opt, 20 rounds), and 16 rounds followed by
 * it still left the first requests at 2.2-2.3 times the steady cost: with no request alive, the
 * hidden classes only requests' objects used die, and V8 discards the code optimized against them
 * (--trace-deopt-verbose: "weak objects"; see collectYoungGeneration in heap.ts). The rounds after it
 * compile that code again before readiness. Figures: docs/reliability.md (npm run bench:warm-up-ab).
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type ServerOptions } from 'node:https';
import { Agent as HttpAgent, createServer as createHttpServer, get as httpGet, type RequestListener, type Server as HttpServer } from 'node:http';
import { kindsFor } from '../../rules/index.js';
import { DELETION_PROTECTION_PATH } from '../engine/deletion-protection.js';
import { collectGarbageMeasured } from './heap.js';
import { listen } from './https.js';
import { processCpuMs } from '../util/cpu-time.js';
import { markWarmUp } from './warm-up-mark.js';

/** Where `npm run build` writes the corpus (scripts/warm-up-corpus.mjs), next to this module in dist. */
export const WARM_UP_CORPUS_FILE = 'warm-up-corpus.json';

export interface WarmUpSettings {
  /** Wall-clock cap in ms: the warm-up stops sending when it runs out (default WARM_UP_BUDGET_MS). */
  budgetMs?: number;
  /** How many times the corpus is sent (default WARM_UP_ROUNDS). */
  rounds?: number;
  /** Keep-alive connections used at once (default WARM_UP_CONNECTIONS). */
  connections?: number;
  /** The objects reviewed; default: the corpus shipped in the package. */
  corpus?: readonly Record<string, unknown>[];
}

export interface WarmUpResult {
  /** Reviews answered. */
  reviews: number;
  /** Wall-clock ms from start to the twin closed. */
  ms: number;
  /** CPU ms the process spent meanwhile (the warm-up's and anything else it did). */
  cpuMs: number;
  /** True when the budget ran out before every round was sent. */
  cutShort: boolean;
  /** Requests sent to the probe server's twin. */
  probes: number;
  /** V8 heap in use (MiB) before and after the warm-up's full collection (absent when aborted before it). */
  heapUsedMiB?: { before: number; after: number };
}

/** Rounds of the corpus sent by default: 13 reviews of each kind a round. */
export const WARM_UP_ROUNDS = 10;
/** Keep-alive connections the warm-up uses by default. */
export const WARM_UP_CONNECTIONS = 16;
/** One probe-server request after every this many reviews: 90 of them in the default warm-up, a third of them /metrics. */
export const WARM_UP_PROBE_EVERY = 20;
/** The probe requests, in turn; kept-alive and fresh connections alternate (Prometheus keeps its connection, the kubelet does not). */
const PROBE_PATHS = ['/metrics', '/readyz', '/healthz'] as const;
/** The default time cap: the rounds took 1.5-2 s of CPU on a busy shared machine; only a starved process reaches it. */
export const WARM_UP_BUDGET_MS = 5000;

/** The corpus shipped in the package, or undefined where there is none (running from source). */
export function shippedCorpus(): Record<string, unknown>[] | undefined {
  try {
    return JSON.parse(readFileSync(new URL(`./${WARM_UP_CORPUS_FILE}`, import.meta.url), 'utf8')) as Record<string, unknown>[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

interface WarmUpRequest {
  path: string;
  body: string;
}

/**
 * Every object of the corpus as the API server sends it: CREATE and UPDATE (the stored object is
 * the first valid one of its kind), to its kind's validating and mutating paths; and a DELETE of
 * each kind to the deletion-protection path. Objects of kinds not served are skipped.
 */
export function warmUpRequests(corpus: readonly Record<string, unknown>[], groupDomain: string): WarmUpRequest[] {
  const kinds = new Map(kindsFor(groupDomain).map((k) => [k.kind, k]));
  const stored = new Map<string, Record<string, unknown>>();
  const out: WarmUpRequest[] = [];
  let uid = 0;
  const add = (path: string, request: Record<string, unknown>) =>
    out.push({ path: `${path}?timeout=10s`, body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `warm-up-${uid++}`, ...request } }) });
  for (const object of corpus) {
    const info = kinds.get(object.kind as string);
    if (!info) continue;
    // The first object of a kind is its valid example: the stored object of every update.
    if (!stored.has(info.kind)) stored.set(info.kind, object);
    const kind = { group: info.group, version: info.version, kind: info.kind };
    const resource = { group: info.group, version: info.version, resource: info.plural };
    const name = (object.metadata as { name?: string } | undefined)?.name;
    for (const operation of ['CREATE', 'UPDATE'] as const)
      for (const path of [info.webhookPaths.validate, info.webhookPaths.mutate])
        add(path, { kind, resource, name, operation, object, ...(operation === 'UPDATE' ? { oldObject: stored.get(info.kind) } : {}), userInfo: { username: 'system:fleetgate:warm-up' }, dryRun: false });
  }
  for (const [, object] of stored) {
    const info = kinds.get(object.kind as string)!;
    add(DELETION_PROTECTION_PATH, { kind: { group: info.group, version: info.version, kind: info.kind }, operation: 'DELETE', oldObject: object, userInfo: { username: 'system:fleetgate:warm-up' } });
  }
  return out;
}

/** One POST over `agent`; resolves with the status once the answer is read (0 on a transport error). */
function post(agent: Agent, port: number, item: WarmUpRequest): Promise<number> {
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, path: item.path, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', () => done(0));
    });
    req.on('error', () => done(0));
    req.end(item.body);
  });
}

/** One GET over `agent` (a fresh connection when false); resolves once the answer is read, whatever it was. */
function probe(agent: HttpAgent | false, port: number, path: string): Promise<void> {
  return new Promise((done) => {
    const req = httpGet({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () => done());
      res.on('error', () => done());
    });
    req.on('error', () => done());
  });
}

/** Closes a twin listener and the connections it still holds, if it listens. */
async function closeTwin(server: HttpServer | undefined): Promise<void> {
  if (!server?.listening) return;
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
}

/** The request handlers the warm-up exercises: the webhook's, and the probe server's when given. */
export interface WarmUpHandlers {
  reviews: RequestListener;
  probes?: RequestListener;
}

/**
 * Runs the warm-up: starts the twin listeners on 127.0.0.1 (ephemeral ports), sends the corpus'
 * requests round after round over `connections` keep-alive connections, with a probe request every
 * WARM_UP_PROBE_EVERY reviews, until the rounds are done, the budget runs out or `signal` aborts,
 * then closes the twins. Throws only on a failure to start.
 */
export async function warmUp(handlers: WarmUpHandlers, tls: Pick<ServerOptions, 'cert' | 'key' | 'minVersion'>, requests: WarmUpRequest[], settings: WarmUpSettings, signal?: AbortSignal): Promise<WarmUpResult> {
  const budgetMs = settings.budgetMs ?? WARM_UP_BUDGET_MS;
  const rounds = settings.rounds ?? WARM_UP_ROUNDS;
  const connections = settings.connections ?? WARM_UP_CONNECTIONS;
  const started = performance.now();
  const cpuAtStart = processCpuMs();
  const twin = createServer({ ...tls }, (req, res) => {
    markWarmUp(req);
    handlers.reviews(req, res);
  });
  const probeTwin = handlers.probes && createHttpServer(handlers.probes);
  let port: number;
  let probePort: number | undefined;
  try {
    port = (await listen(twin, 0, '127.0.0.1')).port;
    if (probeTwin) probePort = (await listen(probeTwin, 0, '127.0.0.1')).port;
  } catch (err) {
    await closeTwin(twin);
    throw err;
  }
  // The twin's own certificate, whatever names it covers: this client talks to nothing else.
  const agent = new Agent({ keepAlive: true, maxSockets: connections, rejectUnauthorized: false });
  const probeAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  let probes = 0;
  const deadline = started + budgetMs;
  const total = requests.length * rounds;
  let next = 0;
  let reviews = 0;
  let heapUsedMiB: WarmUpResult['heapUsedMiB'];
  const collect = () => {
    heapUsedMiB = collectGarbageMeasured().heapUsedMiB;
  };
  // Halfway, while requests are in flight, so the rounds after it compile again what it discards.
  const collectAt = Math.floor(total / 2);
  const stop = () => signal?.aborted || performance.now() >= deadline;
  const worker = async () => {
    while (next < total && !stop()) {
      if (next === collectAt && !heapUsedMiB) collect();
      const index = next++;
      if ((await post(agent, port, requests[index % requests.length]!)) === 200) reviews++;
      if (probePort !== undefined && (index + 1) % WARM_UP_PROBE_EVERY === 0) {
        const turn = probes++;
        await probe(turn % 2 === 0 ? probeAgent : false, probePort, PROBE_PATHS[turn % PROBE_PATHS.length]!);
      }
    }
  };
  try {
    // A request in flight when the budget ends is not waited for long: closing the twin below cuts it.
    let cap: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(Array.from({ length: connections }, worker)), new Promise((done) => (cap = setTimeout(done, budgetMs + 250)))]);
    clearTimeout(cap);
  } finally {
    agent.destroy();
    probeAgent.destroy();
    await Promise.all([closeTwin(twin), closeTwin(probeTwin)]);
  }
  // Cut short by its budget before halfway: the collection still comes before readiness.
  if (!signal?.aborted && !heapUsedMiB) collect();
  return { reviews, ms: performance.now() - started, cpuMs: processCpuMs() - cpuAtStart, cutShort: next < total, heapUsedMiB, probes };
}
