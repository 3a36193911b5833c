/**
 * Webhook metrics in controller-runtime's names, so dashboards built for Karmada's
 * webhook keep working, plus fleetgate's own verdict counts. Each server gets its
 * own registry: no process-global state.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface WebhookMetrics {
  registry: Registry;
  requests: Counter<'webhook' | 'code'>;
  inFlight: Gauge<'webhook'>;
  latency: Histogram<'webhook'>;
  verdicts: Counter<'kind' | 'operation' | 'verdict'>;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): WebhookMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests.',
      labelNames: ['webhook'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    verdicts: new Counter({
      name: 'fleetgate_admission_verdicts_total',
      help: 'Admission verdicts by kind, operation and verdict (allowed, denied, errored).',
      labelNames: ['kind', 'operation', 'verdict'],
      registers: [registry],
    }),
  };
}
