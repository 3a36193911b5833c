/**
 * Webhook server benchmark: fleetgate against two floors (bench/floor.ts) with the same
 * certificate and payload sizes: bare Node https, and the same through Koa, its router
 * and raw-body (the stack fleetgate is built on), so the framework's share is measured
 * too. Servers run pinned to core 0, the load generator (autocannon, this process) to
 * core 1; runs alternate between the servers so machine noise hits all of them. Reports
 * req/s, p50/p99 and server CPU µs per request from /proc, with ratios to the floors;
 * then p99 at a fixed 2,000 req/s, and the RSS of all three: at rest before any request,
 * just started and settled (V8 shrinks an idle heap after some seconds), and the peak under
 * load. Run: `npm run bench:server` (Linux).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createCA, createServingCert } from '../certs/tinyca.js';
import { corpus } from './corpus.js';
import { kindsFor } from '../rules/index.js';
import { median } from './stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const here = fileURLToPath(new URL('.', import.meta.url));
const CLOCK_TICKS = 100; // USER_HZ on Linux

const dir = mkdtempSync(join(tmpdir(), 'fleetgate-bench-'));
const ca = createCA();
const serving = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
writeFileSync(join(dir, 'tls.crt'), serving.certPem);
writeFileSync(join(dir, 'tls.key'), serving.keyPem);

const objects = corpus() as Record<string, any>[];
const cluster = objects.find((o) => o.kind === 'Cluster')!;
const bareCluster = { ...cluster, spec: { ...cluster.spec, resourceModels: undefined } };
const review = (object: unknown) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'bench', operation: 'CREATE', object } });
const payloads = {
  valid: { path: '/validate-cluster', body: review(cluster) },
  invalid: { path: '/validate-cluster', body: review(objects[objects.indexOf(cluster) + 2]) },
  mutate: { path: '/mutate-cluster', body: review(bareCluster) },
};

/** Every path fleetgate serves reviews on, for the Koa floor's router. */
const webhookPaths = ['/validate', '/mutate', ...kindsFor().flatMap((info) => [info.webhookPaths.validate, info.webhookPaths.mutate])];

/** V8 shrinks an idle heap some seconds after start-up or load; memory at rest is measured that long after. */
const SETTLE_MS = 12_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Memory {
  started: number;
  settled?: number;
  peak?: number;
}

function pinned(core: number, args: string[]): ChildProcess {
  return spawn('taskset', ['-c', String(core), process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

async function ready(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never became ready`);
}

/** Resolves when the child prints `text` on stdout; rejects if it exits first (a port in use, say). */
const waitFor = (child: ChildProcess, text: string) =>
  new Promise<void>((done, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes(text) && done());
    child.stderr!.resume();
    child.once('exit', (code) => fail(new Error(`the floor exited (code ${code}) before printing "${text}"`)));
  });

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}
const rssMiB = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function answerOf(port: number, path: string, body: string): Promise<string> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', ca: ca.certPem, servername: 'localhost', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => done(text));
    });
    req.on('error', fail);
    req.end(body);
  });
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number;
  errors: number;
}

async function load(port: number, pid: number, path: string, body: string, extra: Partial<autocannon.Options> = {}): Promise<Run> {
  const before = cpuTicks(pid);
  const result = await autocannon({
    url: `https://127.0.0.1:${port}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: CONNECTIONS,
    duration: SECONDS,
    tlsOptions: { ca: ca.certPem, servername: 'localhost' },
    ...extra,
  } as autocannon.Options);
  const ticks = cpuTicks(pid) - before;
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicrosPerRequest: (ticks / CLOCK_TICKS) * 1e6 / Math.max(requests, 1),
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

type Side = 'floor' | 'koa' | 'fleetgate';
const SIDES: readonly Side[] = ['floor', 'koa', 'fleetgate'];


async function main() {
  const fleetgatePort = 18443;
  // One floor per payload, each on its own port: the valid one outlives the others.
  const floorPorts = { valid: 18444, invalid: 18445, mutate: 18446 } as Record<string, number>;
  // Default log level, as in production: every denial writes its info line.
  const fleetgate = pinned(0, [join(here, '../src/cli/bin.js'), 'serve', '--cert-dir', dir, '--port', String(fleetgatePort), '--probe-port', '18000', '--bind-address', '127.0.0.1']);
  fleetgate.stdout!.resume();
  fleetgate.stderr!.resume();
  await ready('http://127.0.0.1:18000/readyz');
  await sleep(1000);
  const memory: Record<Side, Memory> = { floor: { started: 0 }, koa: { started: 0 }, fleetgate: { started: rssMiB(fleetgate.pid!, 'VmRSS') } };
  await sleep(SETTLE_MS);
  memory.fleetgate.settled = rssMiB(fleetgate.pid!, 'VmRSS');

  const results: Record<string, Record<Side, Run[]>> = {};
  const floors: ChildProcess[] = [];
  let validFloor: ChildProcess | undefined;
  try {
    for (const [name, { path, body }] of Object.entries(payloads)) {
      // The floors answer exactly what fleetgate answers, so response sizes match too.
      const answerFile = join(dir, `${name}.json`);
      writeFileSync(answerFile, await answerOf(fleetgatePort, path, body));
      const floorPort = floorPorts[name]!;
      const floor = pinned(0, [join(here, 'floor.js'), dir, String(floorPort), answerFile, 'bare']);
      const koaFloor = pinned(0, [join(here, 'floor.js'), dir, String(floorPort + 10), answerFile, 'koa', ...webhookPaths]);
      floors.push(floor, koaFloor);
      await Promise.all([waitFor(floor, 'floor listening'), waitFor(koaFloor, 'floor listening')]);
      if (name === 'valid') {
        // The memory of the three at rest, before any load: the floors as fleetgate was measured.
        await sleep(1000);
        memory.floor.started = rssMiB(floor.pid!, 'VmRSS');
        memory.koa.started = rssMiB(koaFloor.pid!, 'VmRSS');
        await sleep(SETTLE_MS);
        memory.floor.settled = rssMiB(floor.pid!, 'VmRSS');
        memory.koa.settled = rssMiB(koaFloor.pid!, 'VmRSS');
      }
      results[name] = { floor: [], koa: [], fleetgate: [] };
      for (let r = 0; r < ROUNDS; r++) {
        results[name].floor.push(await load(floorPort, floor.pid!, path, body));
        results[name].koa.push(await load(floorPort + 10, koaFloor.pid!, path, body));
        results[name].fleetgate.push(await load(fleetgatePort, fleetgate.pid!, path, body));
      }
      if (name === 'valid') memory.koa.peak = rssMiB(koaFloor.pid!, 'VmHWM');
      koaFloor.kill('SIGTERM');
      // The valid floor stays up for the fixed-rate runs below.
      if (name === 'valid') validFloor = floor;
      else floor.kill('SIGTERM');
    }
    // At a fixed rate the latency tail says as much about the load generator and the machine
    // as about the server, so the floor runs at the same rate, interleaved, as the baseline.
    const fixedRate = { overallRate: 2000, connections: 8 } as Partial<autocannon.Options>;
    const fixedRuns: { fleetgate: Run[]; floor: Run[] } = { fleetgate: [], floor: [] };
    for (let r = 0; r < ROUNDS; r++) {
      fixedRuns.floor.push(await load(floorPorts.valid!, validFloor!.pid!, payloads.valid.path, payloads.valid.body, fixedRate));
      fixedRuns.fleetgate.push(await load(fleetgatePort, fleetgate.pid!, payloads.valid.path, payloads.valid.body, fixedRate));
    }
    memory.fleetgate.peak = rssMiB(fleetgate.pid!, 'VmHWM');
    memory.floor.peak = rssMiB(validFloor!.pid!, 'VmHWM');
    await sleep(SETTLE_MS);
    const fleetgateAfterLoad = rssMiB(fleetgate.pid!, 'VmRSS');

    console.log(`fleetgate vs a bare Node https floor and a Koa floor; ${CONNECTIONS} connections, keep-alive, ${SECONDS}s x ${ROUNDS} interleaved rounds, medians; servers on core 0, load on core 1`);
    console.log('payload  | server    | req/s  | p50 ms | p99 ms | server CPU µs/req | errors');
    for (const [name, r] of Object.entries(results)) {
      for (const side of SIDES) {
        const runs = r[side];
        console.log(
          `${name.padEnd(8)} | ${side.padEnd(9)} | ${String(Math.round(median(runs.map((x) => x.rps)))).padStart(6)} | ${median(runs.map((x) => x.p50)).toFixed(1).padStart(6)} | ${median(runs.map((x) => x.p99)).toFixed(1).padStart(6)} | ${median(runs.map((x) => x.cpuMicrosPerRequest)).toFixed(0).padStart(17)} | ${runs.reduce((a, x) => a + x.errors, 0)}`,
        );
      }
      // Ratios are taken per round (the sides of a round ran back to back), then the median.
      const ratio = (side: Side, base: Side, of: (x: Run) => number) => median(r[side].map((x, i) => of(x) / of(r[base][i]!)));
      const rps = (x: Run) => x.rps;
      const cpu = (x: Run) => x.cpuMicrosPerRequest;
      console.log(`${name.padEnd(8)} | ratio     | fleetgate: ${ratio('fleetgate', 'floor', rps).toFixed(2)}x the bare floor's throughput (${ratio('fleetgate', 'floor', cpu).toFixed(2)}x its CPU per request), ${ratio('fleetgate', 'koa', rps).toFixed(2)}x the Koa floor's; Koa floor: ${ratio('koa', 'floor', rps).toFixed(2)}x the bare floor's`);
    }
    for (const side of ['floor', 'fleetgate'] as const) {
      const runs = fixedRuns[side];
      console.log(
        `fixed 2,000 req/s on valid, ${side.padEnd(9)}: ${Math.round(median(runs.map((x) => x.rps)))} req/s achieved, p50 ${median(runs.map((x) => x.p50)).toFixed(1)} ms, p99 ${median(runs.map((x) => x.p99)).toFixed(1)} ms (runs: ${runs.map((x) => x.p99).join(', ')}), errors ${runs.reduce((a, x) => a + x.errors, 0)}`,
      );
    }
    // The floors' peaks come from the valid payload's runs (the bare floor's also from the fixed-rate ones); fleetgate's from all.
    const mib = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(0));
    console.log(`RSS MiB, at rest before any request (just started / after ${SETTLE_MS / 1000} s) and peak under load:`);
    for (const side of SIDES) console.log(`  ${side.padEnd(9)}: ${mib(memory[side].started)} / ${mib(memory[side].settled)}, peak ${mib(memory[side].peak)}`);
    console.log(`  fleetgate ${SETTLE_MS / 1000} s after the load ended: ${mib(fleetgateAfterLoad)}`);
  } finally {
    for (const f of floors) f.kill('SIGTERM');
    fleetgate.kill('SIGTERM');
  }
}

await main();
