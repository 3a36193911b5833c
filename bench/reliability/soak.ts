/**
 * Harness 2, soak: `npm run reliability:soak [-- --seconds 60 --rate 2000]`.
 *
 * `fleetgate serve` pinned to core 0 (taskset), this process (the load) to core 1. The load is
 * open-loop (bench/reliability/open-loop.ts): `--rate` requests a second at fixed intended times,
 * over keep-alive HTTPS connections (a lean pool of them: bench/reliability/keep-alive-pool.ts;
 * `--client node` uses Node's https client instead), whatever the answers do; after `--warm-up` seconds at the
 * same rate, `--seconds` are recorded. The requests are the realistic mix of
 * bench/reliability/review-mix.ts, every answer checked against its expected verdict.
 * Every second: requests, errors, p50/p99/p99.9 latency, the server's RSS, and its V8 heap (in use
 * and committed: the RSS growth V8's old generation accounts for, the rest is outside it) from its
 * own /metrics (`--scrape-seconds 10` reads it as rarely as Prometheus would: rendering the page
 * takes some milliseconds of the server's main thread, which the load's requests wait behind).
 * First, `--floor-seconds` of the same load against a bare Node https server
 * (bench/floor.ts) on the same core: the baseline that shows what the machine and the load
 * generator alone do to the tail. Goals: no error, p99 under 5 ms, RSS of the last ten seconds within 10 % of the
 * first ten; and the load must have held its rate (p99 lag behind its schedule within 10 ms), or
 * the run says nothing about the server.
 *
 * The npm script runs this load without V8's memory reducer (`node --no-memory-reducer`): idle
 * while the floor's phase ran in its own process, the generator had its heap shrunk to about what
 * it held, and then collected it fully every 1-3 s under load (21 full collections in a traced run,
 * 9 without the reducer). Two more V8 settings, made below at run time, keep its old generation
 * from being collected every 1-2 s, each collection stopping the load 10-25 ms (--trace-gc):
 * without allocation-site pretenuring (V8 had judged some of the load's allocation sites long-lived
 * and allocated their objects straight in the old generation: 10 full collections in 30 s, 1
 * without), and with the old generation let grow to four times what survived (V8's own factor
 * still collected it every 2 s from the 18th second on, freeing 1 MiB or less each time: 20 full
 * collections in a 60 s run, 2 with it). The table's "load GC ms" and "lag ms" columns show what
 * the generator's collections still cost.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { numberFlags } from './args.js';
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepAliveAgent, send, type Target } from './client.js';
import { KeepAlivePool, postBytes } from './keep-alive-pool.js';
import { Goals } from './goals.js';
import { openLoop, summarizeLatencies, type FireResult, type OpenLoopResult } from './open-loop.js';
import { cpuSeconds, pinSelf, ProcessSampler, type ProcessSample } from './process-stats.js';
import { judgeAnswer, judgeAnswerBytes, Mix, statusFailure, type MixRequest } from './review-mix.js';
import { repoRoot, startServerProcess, startWebhook } from './server-process.js';
import { certDir } from './certs.js';

const { numbers: o, strings } = numberFlags(
  { seconds: 60, rate: 2000, 'warm-up': 5, 'floor-seconds': 10, connections: 32, 'server-cpu': 0, 'load-cpu': 1, 'p99-ms': 5, 'lag-ms': 10, 'scrape-seconds': 1 },
  { 'log-level': 'string', 'trace-gc': 'boolean', 'cpu-prof-dir': 'string', 'server-warm-up': 'string', client: 'string', 'server-node-args': 'string', 'server-args': 'string', 'server-stdout': 'string', 'floor-only': 'boolean' },
);
/**
 * `--client pool` (the default): the lean keep-alive pool (bench/reliability/keep-alive-pool.ts);
 * `--client node`: Node's https client with a keep-alive agent, whose own garbage collection
 * stalls the load: kept to show, in one run, what the instrument adds to the floor's tail.
 */
const client = (strings.client as string | undefined) ?? 'pool';
if (client !== 'pool' && client !== 'node') throw new Error(`--client must be pool or node, got "${client}"`);
/** `--server-warm-up false` starts fleetgate with `--warm-up=false`: with `--warm-up 0`, the first seconds show what a cold pod does. */
const serverWarmUp = (strings['server-warm-up'] as string | undefined) ?? 'true';
if (serverWarmUp !== 'true' && serverWarmUp !== 'false') throw new Error(`--server-warm-up must be true or false, got "${serverWarmUp}"`);
const logLevel = (strings['log-level'] as 'debug' | 'info' | 'warn' | 'error' | undefined) ?? 'info';
if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new Error(`--log-level must be debug, info, warn or error, got "${logLevel}"`);
const traceGc = strings['trace-gc'] === true;
const cpuProfDir = strings['cpu-prof-dir'] as string | undefined;
/** `--server-node-args="--single-threaded-gc …"` (with `=`: a value starting with a dash is otherwise taken for a flag): Node's and V8's flags for the server, to measure one against the defaults. */
const extraNodeArgs = ((strings['server-node-args'] as string | undefined) ?? '').split(/\s+/).filter(Boolean);
/** `--server-args="--background-threads=normal …"`: more flags for `fleetgate serve`, to measure one against its default. */
const serverArgs = ((strings['server-args'] as string | undefined) ?? '').split(/\s+/).filter(Boolean);
const serverNodeArgs = [...(traceGc ? ['--trace-gc'] : []), ...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : []), ...extraNodeArgs];

/** A GC pause of the server's, from its `--trace-gc` lines, stamped when the line arrived. */
interface GcPause {
  at: number;
  type: string;
  ms: number;
}
const gcPauses: GcPause[] = [];
const GC_LINE = /ms: (Scavenge|Minor Mark-Compact|Mark-Compact(?: \(reduce\))?|Mark-Sweep)\b[^,]*MB, ([\d.]+) \/ ([\d.]+) ms/;
/** `--server-stdout FILE`: every line the server writes to stdout (`--trace-opt` and the like), stamped with the seconds since recording began. */
// One stream for the run, not a file opened and closed for each line in the load's own process.
const serverStdout = strings['server-stdout'] === undefined ? undefined : createWriteStream(strings['server-stdout'] as string, { flags: 'a' });
const onServerLine = (line: string) => {
  serverStdout?.write(`${((performance.now() - recordedFrom) / 1000).toFixed(3)} ${line}\n`);
  const match = GC_LINE.exec(line);
  if (match) gcPauses.push({ at: performance.now(), type: match[1]!.startsWith('Scavenge') ? 'scavenge' : 'mark-compact', ms: Number(match[2]) });
};
/** When the recorded seconds began (performance.now()). */
let recordedFrom = Number.NaN;

setFlagsFromString('--no-allocation-site-pretenuring');
setFlagsFromString('--heap-growing-percent=300');

/** The load generator's own GC pauses (this process): a stalled generator fires late and reads answers late. */
const loadGcPauses: { at: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) loadGcPauses.push({ at: entry.startTime, ms: entry.duration });
}).observe({ entryTypes: ['gc'] });

interface SoakRun {
  /** CPU seconds the server used over the recorded seconds. */
  cpu: number;
  result: OpenLoopResult;
  samples: ProcessSample[];
  sampler: ProcessSampler;
}

/** Request i's uid: of one width, so a request's bytes can be made once per review and only the uid written in. */
const uidOf = (i: number) => `soak-${String(i).padStart(10, '0')}`;
const UID_WIDTH = uidOf(0).length;

/** Sends request i of the mix and judges its answer: everything (`verdicts`) or only the status (the floor). */
interface Transport {
  fire(i: number): Promise<FireResult>;
  close(): void;
}

function poolTransport(target: Target, mix: Mix, verdicts: boolean): Transport {
  const pool = new KeepAlivePool({ host: target.host, port: target.port, ca: target.ca!, servername: target.servername }, o.connections, 10_000);
  // Each review's request bytes, made once with a placeholder uid; a request copies them and writes its uid in.
  const placeholder = 'x'.repeat(UID_WIDTH);
  const templates = new Map<MixRequest, { bytes: Buffer; uidAt: number }>();
  for (const request of mix.all) {
    const bytes = postBytes(`${target.host}:${target.port}`, request.path, Buffer.from(mix.bodyOf(request, placeholder)), { 'Content-Type': 'application/json' });
    templates.set(request, { bytes, uidAt: bytes.indexOf(placeholder) });
  }
  return {
    async fire(i) {
      const request = mix.at(i);
      const uid = uidOf(i);
      const template = templates.get(request)!;
      const bytes = Buffer.allocUnsafe(template.bytes.length);
      template.bytes.copy(bytes);
      bytes.write(uid, template.uidAt, 'latin1');
      const answer = await pool.send(bytes);
      return verdicts ? judgeAnswerBytes(request, uid, answer) : (statusFailure(answer) ?? { ok: true });
    },
    close: () => pool.close(),
  };
}

function nodeTransport(target: Target, mix: Mix, verdicts: boolean): Transport {
  const agent = keepAliveAgent(target, o.connections);
  return {
    async fire(i) {
      const request = mix.at(i);
      const uid = uidOf(i);
      const outcome = await send(target, { path: request.path, headers: { 'content-type': 'application/json' }, body: Buffer.from(mix.bodyOf(request, uid)), deadlineMs: 10_000, agent });
      return verdicts ? judgeAnswer(request, uid, outcome) : (statusFailure(outcome) ?? { ok: true });
    },
    close: () => agent.destroy(),
  };
}

/** `seconds` of the mix at the rate against `target`, answers judged (`verdicts`, or the status only), the process `pid` sampled every second. */
async function soak(target: Target, pid: number, metricsUrl: string | undefined, seconds: number, verdicts: boolean): Promise<SoakRun> {
  const mix = new Mix();
  const transport = (client === 'pool' ? poolTransport : nodeTransport)(target, mix, verdicts);
  // Made when the recorded seconds begin: its samples' times count from there, as the seconds do.
  let sampler = undefined as ProcessSampler | undefined;
  let cpuAtStart = 0;
  const result = await openLoop({
    rate: o.rate,
    seconds,
    warmUpSeconds: o['warm-up'],
    fire: (i) => {
      if (!sampler && i >= o['warm-up'] * o.rate) {
        // Memory is sampled from the first recorded second on, once a second.
        sampler = new ProcessSampler(pid, metricsUrl, Math.max(1, Math.round(o['scrape-seconds'])));
        recordedFrom = performance.now();
        cpuAtStart = cpuSeconds(pid);
        void sampler.sample();
        sampler.start(1000);
      }
      return transport.fire(i);
    },
  });
  // Read before the drain ends it: answers of the last second are still being served.
  const cpu = cpuSeconds(pid) - cpuAtStart;
  if (!sampler) throw new Error('the load never reached its recorded seconds');
  sampler.stop();
  transport.close();
  return { cpu, result, samples: sampler.samples, sampler };
}

const ms = (n: number) => n.toFixed(2);
const percent = (share: number | undefined) => (share === undefined ? '-' : (share * 100).toFixed(0));

/** Pearson's correlation of two equally long series (NaN when either is flat). */
function pearson(xs: number[], ys: number[]): number {
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

interface FloorFigures {
  line: string;
  p99: number;
  cpuMs: number;
}

/**
 * A bare Node https server reading and parsing the same bodies, at the same rate, on the same core:
 * what the machine and the load generator do to the tail shows in it too.
 */
async function floorPhase(certs: ReturnType<typeof certDir>): Promise<FloorFigures> {
  const answerFile = join(certs.dir, 'answer.json');
  writeFileSync(answerFile, JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'floor', allowed: true } }));
  const floor = await startServerProcess<{ port: number }>({
    args: [join(repoRoot, 'dist/bench/floor.js'), certs.dir, '0', answerFile, 'bare'],
    cpu: o['server-cpu'],
    readyWhen: (line) => (typeof line.port === 'number' ? { port: line.port } : undefined),
  });
  const run = await soak({ host: '127.0.0.1', port: floor.ready.port, ca: certs.ca }, floor.pid, undefined, o['floor-seconds'], false);
  await floor.stop();
  const f = summarizeLatencies(run.result.latencies);
  const cpuMs = (run.cpu * 1000) / run.result.answered;
  const line = `floor (bare Node https, ${o['floor-seconds']} s): fired ${run.result.fired}, errors ${run.result.errors}, p50 ${ms(f.p50)} ms, p99 ${ms(f.p99)} ms, p99.9 ${ms(f.p999)} ms, max ${f.max.toFixed(1)} ms; CPU ${ms(cpuMs)} ms a request`;
  return { line, p99: f.p99, cpuMs };
}

/** The floor's phase run by this script again with `--floor-only`, which prints its figures as one JSON line. */
function floorInFreshProcess(): FloorFigures {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2), '--floor-only'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  const last = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !last.startsWith('{')) throw new Error(`the floor's phase failed (exit ${child.status ?? child.signal}): ${child.stdout.slice(-2000)}`);
  return JSON.parse(last) as FloorFigures;
}

async function main(): Promise<number> {
  const pinned = pinSelf(o['load-cpu']);
  const certs = certDir();
  if (strings['floor-only'] === true) {
    process.stdout.write(`${JSON.stringify(await floorPhase(certs))}\n`);
    return 0;
  }
  const mix = new Mix();
  if (!process.execArgv.includes('--no-memory-reducer')) console.log("reliability:soak: note: this load runs with V8's memory reducer (npm run reliability:soak turns it off), whose shrunk heap makes the generator stop for full collections");
  console.log(
    `reliability:soak: ${o.rate} req/s open-loop, ${o.connections} keep-alive HTTPS connections (${client === 'pool' ? 'the lean pool' : "Node's https client"}), ${mix.all.length} distinct reviews (${mix.all.filter((m) => m.allowed).length} allowed), 70 % of requests valid; ${pinned ? `servers on core ${o['server-cpu']}, load on core ${o['load-cpu']}` : 'taskset missing: nothing pinned'}`,
  );

  // The floor first, its load in a process of its own: run in this one, the floor's phase left the
  // generator with full collections every 1-3 s (7-28 ms each) for the rest of the run, stops
  // that counted in fleetgate's tail.
  let floorLine = 'floor: skipped (--floor-seconds 0)';
  let floorP99 = Number.NaN;
  let floorCpuMs = Number.NaN;
  if (o['floor-seconds'] > 0) {
    const floor = floorInFreshProcess();
    ({ line: floorLine, p99: floorP99, cpuMs: floorCpuMs } = floor);
    console.log(floorLine);
  }

  // Its log goes to a file of its own (not the certificate folder, which the server watches).
  const serverLog = join(mkdtempSync(join(tmpdir(), 'fleetgate-soak-log-')), 'fleetgate.log');
  const server = await startWebhook({ certDir: certs.dir, ca: certs.ca, cpu: o['server-cpu'], logLevel, waitFor: 'ready', nodeArgs: serverNodeArgs, onText: onServerLine, keepLines: 20, stderrFile: serverLog, extraArgs: [`--warm-up=${serverWarmUp}`, ...serverArgs] });
  console.log(`fleetgate serve --log-level ${logLevel} --warm-up=${serverWarmUp}${serverArgs.map((a) => ` ${a}`).join('')}${serverNodeArgs.length ? ` (node ${serverNodeArgs.join(' ')})` : ''} (pid ${server.pid}, its log in ${serverLog}): ${o['warm-up']} s of warm-up, then ${o.seconds} s recorded`);
  const run = await soak({ host: '127.0.0.1', port: server.ready.port, ca: server.ready.ca }, server.pid, `http://127.0.0.1:${server.ready.probePort}/metrics`, o.seconds, true);
  const exit = await server.stop();
  const { result, sampler } = run;
  const cpuMs = (run.cpu * 1000) / result.answered;

  const inSecond = <T extends { at: number }>(pauses: readonly T[], second: number) => pauses.filter((g) => Math.floor((g.at - recordedFrom) / 1000) + 1 === second);
  const gcIn = (second: number) => inSecond(gcPauses, second);
  console.log(`   s | fired | errors | p50 ms | p99 ms | p99.9 ms | max ms | lag ms | server CPU % | its core's steal % | load CPU % | load GC ms | RSS MiB | heap MiB | committed${traceGc ? ' | GC ms (longest)' : ''}`);
  for (const s of result.seconds) {
    // The sample taken nearest the end of this second (timers run late on a busy machine).
    const memory = run.samples.reduce<ProcessSample | undefined>((best, x) => (best && Math.abs(best.t - s.second) <= Math.abs(x.t - s.second) ? best : x), undefined);
    const share = memory && sampler.cpuShareBefore(memory, o['server-cpu']);
    console.log(
      `${String(s.second).padStart(4)} | ${String(s.fired).padStart(5)} | ${String(s.errors).padStart(6)} | ${ms(s.p50).padStart(6)} | ${ms(s.p99).padStart(6)} | ${ms(s.p999).padStart(8)} | ${s.max.toFixed(1).padStart(6)} | ${s.maxLagMs.toFixed(1).padStart(6)} | ${percent(share?.server).padStart(12)} | ${percent(share?.steal).padStart(18)} | ${percent(share?.sampler).padStart(10)} | ${inSecond(loadGcPauses, s.second).reduce((a, g) => a + g.ms, 0).toFixed(1).padStart(10)} | ${(memory?.rssMiB ?? Number.NaN).toFixed(1).padStart(7)} | ${(memory?.heapUsedMiB === undefined ? '-' : memory.heapUsedMiB.toFixed(1)).padStart(8)} | ${(memory?.heapTotalMiB === undefined ? '-' : memory.heapTotalMiB.toFixed(1)).padStart(9)}${traceGc ? ` | ${gcIn(s.second).reduce((a, g) => a + g.ms, 0).toFixed(1).padStart(5)} (${Math.max(0, ...gcIn(s.second).map((g) => g.ms)).toFixed(1)})` : ''}`,
    );
  }
  const all = summarizeLatencies(result.latencies);
  const lag = summarizeLatencies(result.lags);
  const window = Math.min(10, Math.floor(o.seconds / 2));
  const rssFirst = sampler.mean('rssMiB', 0, window);
  const rssLast = sampler.mean('rssMiB', o.seconds - window, o.seconds + 1);
  const heapFirst = sampler.mean('heapUsedMiB', 0, window);
  const heapLast = sampler.mean('heapUsedMiB', o.seconds - window, o.seconds + 1);
  // V8 keeps the old generation's pages once it has grown to its collection limit: how much of the RSS growth is that, and how much the rest.
  const committedFirst = sampler.mean('heapTotalMiB', 0, window);
  const committedLast = sampler.mean('heapTotalMiB', o.seconds - window, o.seconds + 1);
  if (o['floor-seconds'] > 0) console.log(floorLine);
  if (traceGc) {
    const recorded = gcPauses.filter((g) => g.at >= recordedFrom);
    for (const type of ['scavenge', 'mark-compact']) {
      const pauses = recorded.filter((g) => g.type === type).map((g) => g.ms);
      const p = summarizeLatencies(pauses);
      console.log(`fleetgate GC, ${type}: ${pauses.length} pauses over the recorded ${o.seconds} s, ${pauses.reduce((a, b) => a + b, 0).toFixed(0)} ms in all, p50 ${ms(p.p50)} ms, p99 ${ms(p.p99)} ms, longest ${ms(p.max)} ms`);
    }
  }
  console.log(`fleetgate: fired ${result.fired} (${result.achievedRate.toFixed(0)} req/s), answered ${result.answered}, errors ${result.errors}${result.errors ? ` ${JSON.stringify(result.errorReasons)}` : ''}, unanswered at the end ${result.unanswered}`);
  // A generator stalled by the machine fires late and reads answers late: seconds whose p99 moves with its lag measure the generator.
  const lagCorrelation = pearson(result.seconds.map((x) => x.p99), result.seconds.map((x) => x.maxLagMs));
  console.log(`fleetgate: p50 ${ms(all.p50)} ms, p99 ${ms(all.p99)} ms, p99.9 ${ms(all.p999)} ms, max ${all.max.toFixed(1)} ms over the run (p99 ${(all.p99 / floorP99).toFixed(2)}x the floor's); the load's lag behind its schedule: p99 ${ms(lag.p99)} ms, max ${lag.max.toFixed(1)} ms`);
  // A server busy this share of its core queues requests behind each other: the tail grows with it (and with every pause).
  console.log(`fleetgate: each second's p99 against the load's worst lag behind its schedule in that second: correlation ${lagCorrelation.toFixed(2)} (near 1: the tail is the load generator's own stalls, not the server's)`);
  console.log(`fleetgate: CPU ${ms(cpuMs)} ms a request (${(cpuMs / floorCpuMs).toFixed(2)}x the floor's), ${((run.cpu / o.seconds) * 100).toFixed(0)} % of a core at ${o.rate} req/s: at that cost one core serves at most ${(1000 / cpuMs).toFixed(0)} req/s`);
  console.log(`fleetgate: RSS first ${window} s ${rssFirst.toFixed(1)} MiB, last ${window} s ${rssLast.toFixed(1)} MiB (${((rssLast / rssFirst - 1) * 100).toFixed(1)} %); heap ${heapFirst.toFixed(1)} -> ${heapLast.toFixed(1)} MiB in use, ${committedFirst.toFixed(1)} -> ${committedLast.toFixed(1)} MiB committed (RSS outside V8's heap ${(rssFirst - committedFirst).toFixed(1)} -> ${(rssLast - committedLast).toFixed(1)} MiB); exit on SIGTERM ${exit.code ?? exit.signal} after ${exit.ms.toFixed(0)} ms`);

  const goals = new Goals()
    .atMost('errors (transport, status, wrong verdict, unanswered)', result.errors + result.unanswered, 0)
    .atMost('p99 latency', all.p99, o['p99-ms'], 'ms')
    .atMost(`RSS growth, last ${window} s over first ${window} s`, (rssLast / rssFirst - 1) * 100, 10, '%')
    // The load fires late rather than never: how late says whether it held its rate.
    .atMost("the load's lag behind its schedule, p99", lag.p99, o['lag-ms'], 'ms')
    .atMost('exit code on SIGTERM', exit.code ?? 1, 0);
  console.log(goals.report('reliability:soak'));
  return goals.exitCode;
}

process.exitCode = await main();
serverStdout?.end();
