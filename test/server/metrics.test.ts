import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createMetrics, LATENCY_BUCKETS } from '../../src/server/metrics.js';

/** The same series kept by prom-client's own metric classes: what /metrics must show. */
function reference() {
  const registry = new Registry();
  const requests = new Counter({ name: 'controller_runtime_webhook_requests_total', help: 'Total number of admission requests by HTTP status code.', labelNames: ['webhook', 'code'], registers: [registry] });
  const inFlight = new Gauge({ name: 'controller_runtime_webhook_requests_in_flight', help: 'Current number of admission requests being served.', labelNames: ['webhook'], registers: [registry] });
  const latency = new Histogram({ name: 'controller_runtime_webhook_latency_seconds', help: 'Histogram of the latency of processing admission requests.', labelNames: ['webhook'], buckets: [...LATENCY_BUCKETS], registers: [registry] });
  const verdicts = new Counter({ name: 'fleetgate_admission_verdicts_total', help: 'Admission verdicts by kind, operation and verdict (allowed, denied, errored).', labelNames: ['kind', 'operation', 'verdict'], registers: [registry] });
  return {
    registry,
    inc: (webhook: string) => inFlight.labels(webhook).inc(),
    dec: (webhook: string) => inFlight.labels(webhook).dec(),
    done: (webhook: string, code: number, seconds: number) => {
      requests.labels(webhook, String(code)).inc();
      latency.labels(webhook).observe(seconds);
    },
    verdict: (kind: string, operation: string, verdict: string) => verdicts.labels(kind, operation, verdict).inc(),
  };
}

describe('webhook metrics', () => {
  it("expose exactly what prom-client's own counters, gauge and histogram would", async () => {
    const metrics = createMetrics();
    const ref = reference();
    // Bound for a path that never sees a request: no series, as with prom-client's children.
    metrics.forWebhook('/validate-work');
    const requests: [string, number, number][] = [
      ['/validate-cluster', 200, 0.0003],
      ['/validate-cluster', 200, 0.0005],
      ['/validate-cluster', 200, 0.004],
      ['/validate-cluster', 500, 0.7],
      ['/validate-cluster', 200, 12],
      ['unmatched', 404, 0.001],
      ['/mutate-work', 200, 0.03],
    ];
    for (const [webhook, code, seconds] of requests) {
      const track = metrics.forWebhook(webhook);
      track.inFlight.inc();
      ref.inc(webhook);
      track.inFlight.dec();
      ref.dec(webhook);
      track.done(code, seconds);
      ref.done(webhook, code, seconds);
    }
    // One still in flight.
    metrics.forWebhook('/mutate-work').inFlight.inc();
    ref.inc('/mutate-work');
    for (const [kind, operation, verdict] of [['Cluster', 'CREATE', 'allowed'], ['Cluster', 'CREATE', 'denied'], ['Cluster', 'CREATE', 'denied'], ['unknown', 'UPDATE', 'errored'], ['Work', 'DELETE', 'allowed']] as const) {
      metrics.verdict(kind, operation, verdict);
      ref.verdict(kind, operation, verdict);
    }
    const shown = await metrics.registry.metrics();
    expect(shown).toBe(await ref.registry.metrics());
    expect(shown).toContain('controller_runtime_webhook_latency_seconds_bucket{le="0.0005",webhook="/validate-cluster"} 2');
    expect(shown).toContain('controller_runtime_webhook_requests_in_flight{webhook="/mutate-work"} 1');
    expect(shown).not.toContain('/validate-work');

    // Scraped again after more requests: counts carry on, nothing is counted twice.
    metrics.forWebhook('/validate-cluster').done(200, 0.002);
    ref.done('/validate-cluster', 200, 0.002);
    metrics.forWebhook('/mutate-work').inFlight.dec();
    ref.dec('/mutate-work');
    expect(await metrics.registry.metrics()).toBe(await ref.registry.metrics());
    expect(await metrics.registry.metrics()).toContain('controller_runtime_webhook_requests_in_flight{webhook="/mutate-work"} 0');
  });
});
