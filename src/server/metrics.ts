/**
 * Webhook metrics in controller-runtime's names, so dashboards built for Karmada's
 * webhook keep working, plus fleetgate's own verdict counts. Each server gets its
 * own registry: no process-global state.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The metrics a webhook request touches, already bound to their labels. */
export interface RequestMetrics {
  inFlight: { inc(): void; dec(): void };
  /** Records the answer's HTTP code and the seconds the request took. */
  done(code: number, seconds: number): void;
}

export interface WebhookMetrics {
  registry: Registry;
  forWebhook(webhook: string): RequestMetrics;
  verdict(kind: string, operation: string, verdict: 'allowed' | 'denied' | 'errored'): void;
}

/**
 * prom-client hashes a label object on every call, which costs more than the rest of a
 * request's bookkeeping together; the labelled children are therefore made once per
 * label set and reused. Label values come from a closed set (registry paths, kinds,
 * operations), so the caches stay small.
 */
function memo<T>(make: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) cache.set(key, (value = make(key)));
    return value;
  };
}

export function createMetrics(options: { processMetrics?: boolean } = {}): WebhookMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'controller_runtime_webhook_requests_total',
    help: 'Total number of admission requests by HTTP status code.',
    labelNames: ['webhook', 'code'],
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'controller_runtime_webhook_requests_in_flight',
    help: 'Current number of admission requests being served.',
    labelNames: ['webhook'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'controller_runtime_webhook_latency_seconds',
    help: 'Histogram of the latency of processing admission requests.',
    labelNames: ['webhook'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const verdicts = new Counter({
    name: 'fleetgate_admission_verdicts_total',
    help: 'Admission verdicts by kind, operation and verdict (allowed, denied, errored).',
    labelNames: ['kind', 'operation', 'verdict'],
    registers: [registry],
  });

  const forWebhook = memo((webhook): RequestMetrics => {
    const requestsByCode = memo((code) => requests.labels(webhook, code));
    const observed = latency.labels(webhook);
    return {
      inFlight: inFlight.labels(webhook),
      done: (code, seconds) => {
        requestsByCode(String(code)).inc();
        observed.observe(seconds);
      },
    };
  });
  const verdictCounter = memo((key) => verdicts.labels(...(key.split('\u0000') as [string, string, string])));
  return {
    registry,
    forWebhook,
    verdict: (kind, operation, verdict) => verdictCounter(`${kind}\u0000${operation}\u0000${verdict}`).inc(),
  };
}
