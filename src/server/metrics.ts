/**
 * Webhook metrics in controller-runtime's names, so dashboards built for Karmada's
 * webhook keep working, plus fleetgate's own verdict counts. Each server gets its
 * own registry: no process-global state.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** The metrics a webhook request touches, already bound to their labels. */
export interface RequestMetrics {
  inFlight: { inc(): void; dec(): void };
  /** Records the answer's HTTP code and the seconds the request took. */
  done(code: number, seconds: number): void;
}

export interface WebhookMetrics {
  registry: Registry;
  forWebhook(webhook: string): RequestMetrics;
  verdict(kind: string, operation: string, verdict: Verdict): void;
}

export type Verdict = 'allowed' | 'denied' | 'errored';

/** controller-runtime's buckets for controller_runtime_webhook_latency_seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

const LATENCY = {
  name: 'controller_runtime_webhook_latency_seconds',
  help: 'Histogram of the latency of processing admission requests.',
};

/**
 * One webhook path's counts, kept in plain numbers. prom-client hashes the label set and
 * validates the labels on every inc() and observe(), even through a child from labels();
 * on an admission review that was about 4 % of the server's CPU. Requests therefore only add
 * to numbers, and prom-client reads them when /metrics is scraped.
 */
class WebhookCounts implements RequestMetrics {
  inFlightNow = 0;
  readonly codes = new Map<number, number>();
  /** Per bucket, the observations at or below its bound and above the one before; the last slot is above every bound. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;
  readonly inFlight = { inc: () => void this.inFlightNow++, dec: () => void this.inFlightNow-- };

  done(code: number, seconds: number): void {
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

interface ExportedValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * The latency histogram as prom-client's registry reads a metric, with the values its own
 * Histogram exports, built from the counts when scraped (a prom-client Histogram cannot be
 * handed counts kept elsewhere).
 */
function latencyHistogram(webhooks: Map<string, WebhookCounts>) {
  const values = (): ExportedValue[] => {
    const out: ExportedValue[] = [];
    for (const [webhook, counts] of webhooks) {
      if (counts.count === 0) continue;
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += counts.buckets[i]!;
        out.push({ metricName: `${LATENCY.name}_bucket`, labels: { le, webhook }, value: cumulative });
      });
      out.push(
        { metricName: `${LATENCY.name}_bucket`, labels: { le: '+Inf', webhook }, value: counts.count },
        { metricName: `${LATENCY.name}_sum`, labels: { webhook }, value: counts.sum },
        { metricName: `${LATENCY.name}_count`, labels: { webhook }, value: counts.count },
      );
    }
    return out;
  };
  const described = { ...LATENCY, type: 'histogram', aggregator: 'sum' } as const;
  return { ...described, get: async () => ({ ...described, values: values() }) };
}

export function createMetrics(options: { processMetrics?: boolean } = {}): WebhookMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const webhooks = new Map<string, WebhookCounts>();
  /** kind → operation → verdict → count; label values come from a closed set, so the maps stay small. */
  const verdicts = new Map<string, Map<string, Record<Verdict, number>>>();

  new Counter({
    name: 'controller_runtime_webhook_requests_total',
    help: 'Total number of admission requests by HTTP status code.',
    labelNames: ['webhook', 'code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [webhook, counts] of webhooks) for (const [code, n] of counts.codes) this.inc({ webhook, code: String(code) }, n);
    },
  });
  new Gauge({
    name: 'controller_runtime_webhook_requests_in_flight',
    help: 'Current number of admission requests being served.',
    labelNames: ['webhook'],
    registers: [registry],
    collect() {
      // A series appears once its webhook has seen a request, as prom-client's own would.
      for (const [webhook, counts] of webhooks) if (counts.count > 0 || counts.inFlightNow > 0) this.set({ webhook }, counts.inFlightNow);
    },
  });
  registry.registerMetric(latencyHistogram(webhooks) as never);
  new Counter({
    name: 'fleetgate_admission_verdicts_total',
    help: 'Admission verdicts by kind, operation and verdict (allowed, denied, errored).',
    labelNames: ['kind', 'operation', 'verdict'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, byOperation] of verdicts) {
        for (const [operation, counts] of byOperation) {
          for (const verdict of ['allowed', 'denied', 'errored'] as const) if (counts[verdict]) this.inc({ kind, operation, verdict }, counts[verdict]);
        }
      }
    },
  });

  return {
    registry,
    forWebhook: (webhook) => {
      let counts = webhooks.get(webhook);
      if (!counts) webhooks.set(webhook, (counts = new WebhookCounts()));
      return counts;
    },
    verdict: (kind, operation, verdict) => {
      let byOperation = verdicts.get(kind);
      if (!byOperation) verdicts.set(kind, (byOperation = new Map()));
      let counts = byOperation.get(operation);
      if (!counts) byOperation.set(operation, (counts = { allowed: 0, denied: 0, errored: 0 }));
      counts[verdict]++;
    },
  };
}
