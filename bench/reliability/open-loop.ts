/**
 * An open-loop load generator: requests leave at a fixed rate whatever the server does, as
 * API servers send admission reviews (a slow answer does not slow the next request down; a
 * closed-loop tool like autocannon or wrk would wait, and hide the queueing it causes). Each
 * request has an intended start time, i / rate; a timer every millisecond fires those that are
 * due. Latency runs from the moment a request is fired to its answer, and the lag from its
 * intended time to its firing is recorded as well, so a run shows whether the generator held
 * its rate (no lag) or fell behind (then its figures say so, instead of hiding it).
 *
 * The transport is the caller's: `fire` sends request i and says whether its answer was right,
 * so the API-server harnesses can reuse this with their own requests.
 */
export interface FireResult {
  ok: boolean;
  /** Why it is not ok: an error code, a status, a wrong verdict. */
  error?: string;
}

export interface SecondFigures {
  /** Seconds since recording began (the second the requests were intended for). */
  second: number;
  fired: number;
  answered: number;
  errors: number;
  /** Milliseconds, of the requests fired in this second that completed. */
  p50: number;
  p99: number;
  p999: number;
  max: number;
  /** The worst lag behind the intended start in this second, ms. */
  maxLagMs: number;
}

export interface OpenLoopResult {
  seconds: SecondFigures[];
  fired: number;
  answered: number;
  errors: number;
  /** Error reasons with their counts. */
  errorReasons: Record<string, number>;
  latencies: number[];
  lags: number[];
  /** Requests still unanswered when the run ended (after its drain time). */
  unanswered: number;
  /** Requests fired per second of the recorded run. */
  achievedRate: number;
}

export interface OpenLoopOptions {
  rate: number;
  /** Recorded seconds. */
  seconds: number;
  /** Seconds at the same rate before recording starts (connections opened, code warm). */
  warmUpSeconds?: number;
  /** How long to wait for the last answers after the last request is fired. */
  drainMs?: number;
  fire: (index: number) => Promise<FireResult>;
}

interface Bucket {
  fired: number;
  answered: number;
  errors: number;
  latencies: number[];
  maxLag: number;
}

export function summarizeLatencies(latencies: readonly number[]): { p50: number; p99: number; p999: number; max: number } {
  if (!latencies.length) return { p50: Number.NaN, p99: Number.NaN, p999: Number.NaN, max: Number.NaN };
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999), max: sorted.at(-1)! };
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const warm = (options.warmUpSeconds ?? 0) * options.rate;
  const total = warm + options.seconds * options.rate;
  const interval = 1000 / options.rate;
  const buckets: Bucket[] = Array.from({ length: options.seconds }, () => ({ fired: 0, answered: 0, errors: 0, latencies: [], maxLag: 0 }));
  const reasons: Record<string, number> = {};
  const lags: number[] = [];
  let outstanding = 0;
  let fired = 0;
  const start = performance.now();

  const fireOne = (index: number) => {
    const intended = start + index * interval;
    const firedAt = performance.now();
    const recorded = index - warm;
    const bucket = recorded >= 0 ? buckets[Math.floor(recorded / options.rate)] : undefined;
    if (bucket) {
      bucket.fired++;
      bucket.maxLag = Math.max(bucket.maxLag, firedAt - intended);
      lags.push(firedAt - intended);
    }
    outstanding++;
    options.fire(index).then(
      (result) => done(bucket, firedAt, result),
      (err: unknown) => done(bucket, firedAt, { ok: false, error: (err as Error).message }),
    );
  };
  const done = (bucket: Bucket | undefined, firedAt: number, result: FireResult) => {
    outstanding--;
    if (!bucket) return;
    bucket.answered++;
    bucket.latencies.push(performance.now() - firedAt);
    if (!result.ok) {
      bucket.errors++;
      const reason = result.error ?? 'error';
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
  };

  await new Promise<void>((finished) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (fired < due) fireOne(fired++);
      if (fired >= total) finished();
      else setTimeout(tick, 1);
    };
    tick();
  });
  const drainUntil = performance.now() + (options.drainMs ?? 10_000);
  while (outstanding > 0 && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 10));
  // Each second's figures are those of the requests intended for it, whenever they were answered.
  const seconds = buckets.map((b, i): SecondFigures => ({ second: i + 1, fired: b.fired, answered: b.answered, errors: b.errors, ...summarizeLatencies(b.latencies), maxLagMs: b.maxLag }));
  const latencies = buckets.flatMap((b) => b.latencies);
  const recordedFired = buckets.reduce((a, b) => a + b.fired, 0);
  return {
    seconds,
    fired: recordedFired,
    answered: buckets.reduce((a, b) => a + b.answered, 0),
    errors: buckets.reduce((a, b) => a + b.errors, 0),
    errorReasons: reasons,
    latencies,
    lags,
    unanswered: outstanding,
    achievedRate: recordedFired / options.seconds,
  };
}

