/**
 * Is a change to the webhook's own path faster? The Koa app of a baseline build and of this build
 * (createApp(), with their metrics and a pino logger), in one process, answering the same requests
 * in alternating rounds: whatever else the shared machine does hits both sides of each round alike,
 * so the per-round CPU-time ratio shows differences of a few per cent that two servers measured
 * one after the other (`npm run bench:server`, the soak) cannot on a busy machine.
 *
 *   npm run bench:path-ab -- BASELINE_DIST_DIR [mix | PAYLOAD.json WEBHOOK_PATH]
 *
 * `mix` (the default) is the soak's realistic mix (bench/reliability/review-mix.ts): every kind,
 * valid and broken, CREATE and UPDATE, validating and mutating paths. A payload file is one
 * AdmissionReview sent again and again to one path.
 *
 * What it measures is what fleetgate adds to a request once Node has it: Koa, the body reader,
 * JSON, the review, the answer, metrics and the log line (written with a system call, as to
 * stderr). Node's HTTP parsing, TLS and the socket are left out: the request and the answer go
 * through Node's own IncomingMessage and ServerResponse over a socket stand-in that drops what is
 * written. So it resolves the part a change to the app can move; what that is worth per request
 * on the wire is for `npm run bench:server` or the soak to show. Two copies of one build gave
 * medians of 0.99 and 1.01 (quartiles 0.96–1.01 on one payload, 0.94–1.08 on the mix).
 */
import { openSync, readFileSync, writeSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { Mix } from './reliability/review-mix.js';
import { median, quantile } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const REQUESTS_PER_ROUND = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP_ROUNDS = Number(process.env.BENCH_WARMUP_ROUNDS ?? 10);

const [baselineDir, payload = 'mix', payloadPath] = process.argv.slice(2);
if (!baselineDir || (payload !== 'mix' && !payloadPath)) {
  console.error('usage: node dist/bench/path-ab.js BASELINE_DIST_DIR [mix | PAYLOAD.json WEBHOOK_PATH]   (see the comment at the top of bench/path-ab.ts)');
  process.exit(2);
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A build's app as `fleetgate serve` makes it: metrics, and a logger at info writing each line with a system call. */
async function appOf(distDir: string): Promise<Handler> {
  const { createApp } = await import(pathToFileURL(resolve(distDir, 'src/server/app.js')).href);
  const { createMetrics } = await import(pathToFileURL(resolve(distDir, 'src/server/metrics.js')).href);
  const sink = openSync('/dev/null', 'w');
  const logger = pino({ level: 'info' }, { write: (line: string) => void writeSync(sink, line) });
  return createApp({ metrics: createMetrics(), logger }).callback();
}

const baseline = await appOf(baselineDir);
const current = await appOf(resolve(import.meta.dirname, '..'));

/** The requests of one round: path and body. */
const requests: { path: string; body: Buffer }[] = (() => {
  if (payload !== 'mix') {
    const body = readFileSync(payload);
    return [{ path: payloadPath!, body }];
  }
  const mix = new Mix();
  return Array.from({ length: 512 }, (_, i) => {
    const request = mix.at(i);
    return { path: request.path, body: Buffer.from(mix.bodyOf(request, `path-ab-${i}`)) };
  });
})();

/** One request through `handler`, over Node's own request and response objects; settles when the answer is written. */
function exchange(handler: Handler, path: string, body: Buffer): Promise<void> {
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      done();
    },
  });
  const req = new IncomingMessage(socket as never);
  req.method = 'POST';
  req.url = path;
  req.headers = { host: 'localhost', 'content-type': 'application/json', 'content-length': String(body.length) };
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  const done = new Promise<void>((settle, fail) =>
    res.once('finish', () => (res.statusCode === 200 ? settle() : fail(new Error(`${path} answered ${res.statusCode}`)))),
  );
  handler(req, res);
  req.push(body);
  // What Node's parser says at the end of a body: a request not complete at its end is an aborted one.
  req.complete = true;
  req.push(null);
  return done;
}

async function round(handler: Handler): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
    const r = requests[i % requests.length]!;
    await exchange(handler, r.path, r.body);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / REQUESTS_PER_ROUND;
}

for (let i = 0; i < WARMUP_ROUNDS; i++) {
  await round(baseline);
  await round(current);
}
const ratios: number[] = [];
const micros: { baseline: number[]; current: number[] } = { baseline: [], current: [] };
for (let i = 0; i < ROUNDS; i++) {
  // Which side goes first alternates, so neither always meets the other's garbage.
  let b: number;
  let c: number;
  if (i % 2) {
    b = await round(baseline);
    c = await round(current);
  } else {
    c = await round(current);
    b = await round(baseline);
  }
  micros.baseline.push(b);
  micros.current.push(c);
  ratios.push(c / b);
}
console.log(`webhook path, ${payload === 'mix' ? 'the soak mix' : `${payload} to ${payloadPath}`}: ${ROUNDS} rounds of ${REQUESTS_PER_ROUND} requests`);
console.log(`baseline ${median(micros.baseline).toFixed(1)} µs CPU a request, this build ${median(micros.current).toFixed(1)} µs (medians)`);
console.log(`this build / baseline, CPU per request: median ${median(ratios).toFixed(3)}, quartiles ${quantile(ratios, 0.25).toFixed(3)}–${quantile(ratios, 0.75).toFixed(3)}`);
