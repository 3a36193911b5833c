/**
 * The API server's metrics, in kube-apiserver's names (apiserver_request_total,
 * apiserver_request_duration_seconds, apiserver_longrunning_requests) so its dashboards read them.
 * Label values come from closed sets: a verb, a served resource or "unmatched", a status code.
 */
import type Koa from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ApiServerMetrics {
  registry: Registry;
  middleware: Koa.Middleware;
}

/** kube-apiserver's verbs, from the method, whether the request names one object, and the patch type (an apply patch is APPLY). */
function verbOf(method: string, path: string, watch: boolean, contentType: string): string {
  const item = /\/apis\/[^/]+\/[^/]+\/(namespaces\/[^/]+\/)?[^/]+\/[^/]+/.test(path);
  switch (method) {
    case 'GET':
      return watch ? 'WATCH' : item ? 'GET' : 'LIST';
    case 'POST':
      return 'POST';
    case 'PUT':
      return 'PUT';
    case 'PATCH':
      return contentType.split(';')[0]!.trim().toLowerCase() === 'application/apply-patch+yaml' ? 'APPLY' : 'PATCH';
    case 'DELETE':
      return item ? 'DELETE' : 'DELETECOLLECTION';
    default:
      return 'other';
  }
}

export function createApiServerMetrics(resources: readonly string[], options: { processMetrics?: boolean } = {}): ApiServerMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const known = new Set(resources);
  const requests = new Counter({ name: 'apiserver_request_total', help: 'Requests, by verb, resource and HTTP code.', labelNames: ['verb', 'resource', 'code'], registers: [registry] });
  const duration = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Request latency in seconds, by verb and resource (watches excluded).',
    labelNames: ['verb', 'resource'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const longRunning = new Gauge({ name: 'apiserver_longrunning_requests', help: 'Watches being served, by resource.', labelNames: ['resource'], registers: [registry] });
  const middleware: Koa.Middleware = async (ctx, next) => {
    const started = performance.now();
    const watch = ctx.method === 'GET' && (ctx.query.watch === 'true' || ctx.query.watch === '1');
    const verb = verbOf(ctx.method, ctx.path, watch, ctx.get('content-type'));
    const match = /^\/apis\/([^/]+)\/[^/]+\/(?:namespaces\/[^/]+\/)?([^/]+)/.exec(ctx.path);
    const resource = match && known.has(`${match[2]}.${match[1]}`) ? `${match[2]}.${match[1]}` : 'unmatched';
    if (watch) longRunning.inc({ resource });
    try {
      await next();
    } finally {
      if (watch) longRunning.dec({ resource });
      else duration.observe({ verb, resource }, (performance.now() - started) / 1000);
      requests.inc({ verb, resource, code: String(ctx.status) });
    }
  };
  return { registry, middleware };
}
