/**
 * The webhook's HTTP layer: thin glue from Koa to review(). It owns only what HTTP
 * owns (body size, content type, JSON decoding, routing, deadlines, metrics, logs);
 * every verdict comes from the library.
 */
import Koa from 'koa';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import type { Logger } from 'pino';
import { isAdmissionReview, review, type AdmissionReview, type ReviewOptions } from '../admission/review.js';
import { kindsFor } from '../../rules/index.js';
import { groupDomainOf, OPERATIONS, pickRuleOptions, type Lookups, type RuleOptions } from '../engine/rule.js';
import { guardLookups, reviewBudgetMs, type ContextFailurePolicy } from './deadline.js';
import { DELETION_PROTECTION_PATH } from '../engine/deletion-protection.js';
import type { WebhookMetrics } from './metrics.js';

/**
 * The API server sends objects of up to about 3 MiB, and an UPDATE carries two of
 * them; controller-runtime caps admission bodies at 7 MiB for that reason.
 */
export const MAX_BODY_BYTES = 7 * 1024 * 1024;

export interface AppOptions extends RuleOptions {
  groupDomain?: string;
  lookups?: Lookups;
  /** What a review gets when a lookup fails or runs out of time: `fail` denies (default), `ignore` allows with a warning. */
  contextFailurePolicy?: ContextFailurePolicy;
  maxBodyBytes?: number;
  metrics?: WebhookMetrics;
  logger?: Logger;
  /** True once the server is shutting down: answers then carry `Connection: close`, so no client reuses a closing connection. */
  draining?: () => boolean;
}

/** A Kubernetes Status body for answers that cannot be an AdmissionReview. */
function failure(ctx: Koa.Context, code: number, message: string): void {
  ctx.status = code;
  ctx.body = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message };
}

async function readJson(ctx: Koa.Context, limit: number): Promise<unknown | undefined> {
  // Koa's `type` is the header up to any ';', as sent; media types are case-insensitive (RFC 9110 §8.3.1).
  if (ctx.request.type.trim().toLowerCase() !== 'application/json') {
    failure(ctx, 400, `contentType=${ctx.get('content-type') || '<none>'}, expected application/json`);
    return undefined;
  }
  let raw: string;
  try {
    // A Buffer, decoded natively: raw-body's own decoding goes through iconv-lite, measurably slower.
    raw = (await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined })).toString('utf8');
  } catch (err) {
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large') failure(ctx, 413, `request entity is too large; limit is ${limit} bytes`);
    else failure(ctx, e.status && e.status < 500 ? e.status : 400, 'could not read the request body');
    return undefined;
  }
  if (raw.length === 0) {
    failure(ctx, 400, 'request body is empty');
    return undefined;
  }
  try {
    return JSON.parse(raw);
  } catch (err) {
    // RangeError from absurd nesting lands here too.
    failure(ctx, 400, `request body is not valid JSON: ${(err as Error).message}`);
    return undefined;
  }
}

/** The `?timeout=` the API server appends to every call. */
const timeoutParam = (ctx: Koa.Context): string | undefined => (typeof ctx.query.timeout === 'string' ? ctx.query.timeout : undefined);

type Review = { apiVersion?: unknown; kind?: unknown; request?: Record<string, any> };

/** A request field as logs and metrics may show it: only a string is an identity; anything else could be object contents. */
const text = (...candidates: unknown[]): string | undefined => candidates.find((c): c is string => typeof c === 'string');

/** What the logs and metrics say about a request: identity only, never object contents. */
function describe(body: Review) {
  const r = body.request ?? {};
  const object = r.object ?? r.oldObject ?? {};
  return {
    uid: text(r.uid),
    kind: text(r.kind?.kind, object.kind) ?? 'unknown',
    namespace: text(r.namespace, object.metadata?.namespace),
    name: text(r.name, object.metadata?.name),
    operation: text(r.operation) ?? 'unknown',
    subResource: text(r.subResource) || undefined,
  };
}

export function createApp(options: AppOptions = {}): Koa {
  const groupDomain = groupDomainOf(options.groupDomain);
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const policy = options.contextFailurePolicy ?? 'fail';
  const { metrics, logger } = options;
  const ruleOptions = pickRuleOptions(options);
  const app = new Koa();
  // Exact paths, as the API server calls them: `/Validate-Cluster` and `/validate-cluster/` are not webhook paths.
  const router = new Router({ sensitive: true, strict: true });

  const servedKinds = new Set(kindsFor(groupDomain).map((info) => info.kind));
  const handler = (mode: ReviewOptions['mode'], kind?: string) => async (ctx: Koa.Context) => {
    // The API server's timeout runs from the moment it sends, so the budget counts from arrival, not from when the body is in.
    const arrived = Date.now();
    const body = await readJson(ctx, limit);
    if (body === undefined) return;
    if (!isAdmissionReview(body)) {
      failure(ctx, 400, 'the body is not an AdmissionReview (admission.k8s.io/v1 or v1beta1)');
      return;
    }
    // Only lookups can outlast the API server's timeout; without them there is no deadline to keep.
    const notes: string[] = [];
    const lookups = options.lookups && guardLookups(options.lookups, arrived + reviewBudgetMs(timeoutParam(ctx)), policy, notes);
    const reviewed = review(body, { mode, kind, groupDomain, lookups, ...ruleOptions });
    // Awaited only when a lookup made it a Promise: most reviews answer synchronously.
    const out: AdmissionReview = reviewed instanceof Promise ? await reviewed : reviewed;
    if (notes.length && out.response) out.response.warnings = [...(out.response.warnings ?? []), ...notes];
    ctx.status = 200;
    ctx.body = out;
    record(describe(body as Review), out, mode, ctx.path);
  };

  function record(request: ReturnType<typeof describe>, out: AdmissionReview, mode: string, path: string): void {
    const response = out.response;
    const code = response?.status?.code;
    // 422 Invalid, or 403 Forbidden for a protected DELETE: the request's own fault, not the review's.
    const verdict = response?.allowed ? 'allowed' : code === 422 || code === 403 ? 'denied' : 'errored';
    // Label values from a closed set: a caller cannot grow the series count with made-up kinds.
    metrics?.verdict(servedKinds.has(request.kind) ? request.kind : 'unknown', OPERATIONS.has(request.operation) ? request.operation : 'unknown', verdict);
    if (!logger) return;
    if (verdict === 'allowed') {
      // Built only when debug is on: allowed is the common case, and at info nothing reads it.
      if (logger.isLevelEnabled('debug')) logger.debug({ ...request, mode, path, patched: Boolean(response?.patch), warnings: response?.warnings?.length ?? 0 }, 'allowed');
    } else {
      const causes = response?.status?.details?.causes?.map((c) => c.field);
      logger.info({ ...request, mode, path, code, causes, ...(causes ? {} : { message: response?.status?.message }) }, verdict);
    }
  }

  const paths = new Set(['/validate', '/mutate']);
  router.post('/validate', handler('validate'));
  router.post('/mutate', handler('mutate'));
  for (const info of kindsFor(groupDomain)) {
    router.post(info.webhookPaths.validate, handler('validate', info.kind));
    router.post(info.webhookPaths.mutate, handler('mutate', info.kind));
    paths.add(info.webhookPaths.validate).add(info.webhookPaths.mutate);
  }
  // Karmada's registration sends every resource's DELETE here, not only the 13 kinds'.
  router.post(DELETION_PROTECTION_PATH, handler('deletion-protection'));
  paths.add(DELETION_PROTECTION_PATH);

  // Metrics and the last-resort guard wrap everything: Koa's own error handler answers
  // text/plain, and no request may take the process down.
  app.use(async (ctx, next) => {
    // Unknown paths share one label value, so probing clients cannot grow the series count.
    const track = metrics && ctx.method === 'POST' ? metrics.forWebhook(paths.has(ctx.path) ? ctx.path : 'unmatched') : undefined;
    const started = performance.now();
    track?.inFlight.inc();
    try {
      await next();
    } catch (err) {
      logger?.error({ err: (err as Error).message, path: ctx.path }, 'internal error');
      failure(ctx, 500, 'internal error');
    } finally {
      if (options.draining?.()) ctx.set('Connection', 'close');
      if (track) {
        track.inFlight.dec();
        track.done(ctx.status, (performance.now() - started) / 1000);
      }
    }
  });
  // The router answers a method it does not know (PROPFIND, say) 501, a server error, for what is
  // the client's mistake: such a method gets what GET gets, 405 on a webhook path and 404 elsewhere.
  const knownMethods = new Set(router.methods);
  app.use(async (ctx, next) => {
    if (knownMethods.has(ctx.method)) return next();
    ctx.status = paths.has(ctx.path) ? 405 : 404;
    if (ctx.status === 405) ctx.set('Allow', 'POST');
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.silent = true;
  return app;
}
