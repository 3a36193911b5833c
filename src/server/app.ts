/**
 * The webhook's HTTP layer: thin glue from Koa to review(). It owns only what HTTP
 * owns (body size, content type, JSON decoding, routing, deadlines, metrics, logs);
 * every verdict comes from the library.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { isAdmissionReview, review, type AdmissionReview, type ReviewOptions } from '../admission/review.js';
import { kindsFor } from '../../rules/index.js';
import { groupDomainOf, OPERATIONS, pickRuleOptions, type Lookups, type RuleOptions } from '../engine/rule.js';
import { arrivalOf } from './arrival.js';
import { readBody, type BodyRead } from './body.js';
import { guardLookups, reviewBudgetMs, type ContextFailurePolicy } from './deadline.js';
import { DELETION_PROTECTION_PATH } from '../engine/deletion-protection.js';
import type { RequestMetrics, WebhookMetrics } from './metrics.js';
import { isWarmUp } from './warm-up-mark.js';

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

/** The Content-Type of every answer, as Koa would set it for a JSON body (set here once, not looked up per answer). */
const JSON_TYPE = 'application/json; charset=utf-8';

/** Answers `value` as JSON, serialized once here: Koa would otherwise re-type and re-measure an object body on every answer. */
function answerJson(ctx: Koa.Context, code: number, value: unknown): void {
  ctx.status = code;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = JSON.stringify(value);
}

/** A Kubernetes Status body for answers that cannot be an AdmissionReview. */
function failure(ctx: Koa.Context, code: number, message: string): void {
  answerJson(ctx, code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message });
}

/** Media types are case-insensitive and may carry parameters (RFC 9110 §8.3.1); the API server sends exactly `application/json`. */
const isJsonType = (header: string | undefined): boolean =>
  header === 'application/json' || (header !== undefined && (header.split(';', 1)[0] ?? '').trim().toLowerCase() === 'application/json');

/**
 * The request's JSON, from a body read whole; undefined once a failure is answered. Synchronous,
 * with the read awaited by its caller: an async function of its own here cost every review one
 * more promise and microtask turn.
 */
function decodeJson(ctx: Koa.Context, read: BodyRead, limit: number): unknown | undefined {
  if ('problem' in read) {
    if (read.problem === 'too-large') failure(ctx, 413, `request entity is too large; limit is ${limit} bytes`);
    else failure(ctx, 400, 'could not read the request body');
    return undefined;
  }
  // A Buffer, decoded natively.
  const raw = read.body.toString('utf8');
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
const text = (first: unknown, second?: unknown): string | undefined => (typeof first === 'string' ? first : typeof second === 'string' ? second : undefined);

/** The object a review is about, for its identity. */
const objectOf = (r: Record<string, any>) => r.object ?? r.oldObject ?? {};

/** What the logs say about a request: identity only, never object contents. */
function describe(body: Review) {
  const r = body.request ?? {};
  const object = objectOf(r);
  return {
    uid: text(r.uid),
    kind: text(r.kind?.kind, object.kind) ?? 'unknown',
    namespace: text(r.namespace, object.metadata?.namespace),
    name: text(r.name, object.metadata?.name),
    operation: text(r.operation) ?? 'unknown',
    subResource: text(r.subResource) || undefined,
  };
}

/** A webhook path and what it serves, with its metrics bound once. */
interface Route {
  path: string;
  mode: ReviewOptions['mode'];
  /** review()'s options for this path, built once. */
  reviewOptions: ReviewOptions;
  track?: RequestMetrics;
}

export function createApp(options: AppOptions = {}): Koa {
  const groupDomain = groupDomainOf(options.groupDomain);
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const policy = options.contextFailurePolicy ?? 'fail';
  const { metrics, logger, lookups } = options;
  const ruleOptions = pickRuleOptions(options);
  const app = new Koa();
  // Exact paths, as the API server calls them: `/Validate-Cluster` and `/validate-cluster/` are not webhook paths.
  const router = new Router({ sensitive: true, strict: true });

  const servedKinds = new Set(kindsFor(groupDomain).map((info) => info.kind));

  async function answerReview(ctx: Koa.Context, route: Route, quiet: boolean): Promise<void> {
    // The API server's timeout runs from the moment it sends, so the budget counts from arrival (on a
    // new connection, from its accept: the handshake is part of it), not from when the body is in.
    const arrived = lookups ? arrivalOf(ctx.req) : 0;
    if (!isJsonType(ctx.req.headers['content-type'])) {
      failure(ctx, 400, `contentType=${ctx.get('content-type') || '<none>'}, expected application/json`);
      return;
    }
    const body = decodeJson(ctx, await readBody(ctx.req, limit), limit);
    if (body === undefined) return;
    if (!isAdmissionReview(body)) {
      failure(ctx, 400, 'the body is not an AdmissionReview (admission.k8s.io/v1 or v1beta1)');
      return;
    }
    // Only lookups can outlast the API server's timeout; without them there is no deadline to keep.
    const notes: string[] | undefined = lookups ? [] : undefined;
    const reviewed =
      lookups && notes
        ? review(body, { ...route.reviewOptions, lookups: guardLookups(lookups, arrived + reviewBudgetMs(timeoutParam(ctx)), policy, notes) })
        : review(body, route.reviewOptions);
    // Awaited only when a lookup made it a Promise: most reviews answer synchronously.
    const out: AdmissionReview = reviewed instanceof Promise ? await reviewed : reviewed;
    if (notes?.length && out.response) out.response.warnings = [...(out.response.warnings ?? []), ...notes];
    answerJson(ctx, 200, out);
    if (!quiet) record(body as Review, out, route);
  }

  function record(body: Review, out: AdmissionReview, route: Route): void {
    const response = out.response;
    const code = response?.status?.code;
    // 422 Invalid, or 403 Forbidden for a protected DELETE: the request's own fault, not the review's.
    const verdict = response?.allowed ? 'allowed' : code === 422 || code === 403 ? 'denied' : 'errored';
    const r = body.request ?? {};
    // The request's kind and operation are read once, for the metrics and the log line alike.
    const kind = text(r.kind?.kind, objectOf(r).kind);
    const operation = text(r.operation);
    if (metrics) {
      // Label values from a closed set: a caller cannot grow the series count with made-up kinds.
      metrics.verdict(kind !== undefined && servedKinds.has(kind) ? kind : 'unknown', operation !== undefined && OPERATIONS.has(operation) ? operation : 'unknown', verdict);
    }
    if (!logger) return;
    const { mode, path } = route;
    if (verdict === 'allowed') {
      // Built only when debug is on: allowed is the common case, and at info nothing reads it.
      if (logger.isLevelEnabled('debug')) logger.debug({ ...describe(body), mode, path, patched: Boolean(response?.patch), warnings: response?.warnings?.length ?? 0 }, 'allowed');
      return;
    }
    // Every denial is logged, so its fields are one object literal (describe()'s, in its order),
    // not spreads of intermediate objects; pino leaves out the fields that are undefined.
    const object = objectOf(r);
    const causes = response?.status?.details?.causes?.map((c) => c.field);
    logger.info(
      {
        uid: text(r.uid),
        kind: kind ?? 'unknown',
        namespace: text(r.namespace, object.metadata?.namespace),
        name: text(r.name, object.metadata?.name),
        operation: operation ?? 'unknown',
        subResource: text(r.subResource) || undefined,
        mode,
        path,
        code,
        causes,
        message: causes ? undefined : response?.status?.message,
      },
      verdict,
    );
  }

  // Webhook POSTs are answered from one exact-path lookup; the router answers everything
  // else (405 with Allow: POST for another method on a webhook path, 404 elsewhere). It knows the
  // webhook paths only for that 405: a POST to one is answered by the lookup and never reaches it.
  const routes = new Map<string, Route>();
  const unreachable = (ctx: Koa.Context) => {
    throw new Error(`POST ${ctx.path} reached the router: the exact-path lookup has no route for a webhook path`);
  };
  const serveReviews = (path: string, mode: ReviewOptions['mode'], kind?: string) => {
    const route: Route = { path, mode, reviewOptions: { mode, kind, groupDomain, ...ruleOptions }, track: metrics?.forWebhook(path) };
    routes.set(path, route);
    router.post(path, unreachable);
  };
  serveReviews('/validate', 'validate');
  serveReviews('/mutate', 'mutate');
  for (const info of kindsFor(groupDomain)) {
    serveReviews(info.webhookPaths.validate, 'validate', info.kind);
    serveReviews(info.webhookPaths.mutate, 'mutate', info.kind);
  }
  // Karmada's registration sends every resource's DELETE here, not only the 13 kinds'.
  serveReviews(DELETION_PROTECTION_PATH, 'deletion-protection');
  // Unknown paths share one label value, so probing clients cannot grow the series count.
  const unmatched = metrics?.forWebhook('unmatched');

  // Metrics and the last-resort guard wrap everything: Koa's own error handler answers
  // text/plain, and no request may take the process down.
  app.use(async (ctx, next) => {
    const post = ctx.method === 'POST';
    const route = post ? routes.get(ctx.path) : undefined;
    // The warm-up's requests run this very code but are never counted nor logged (warm-up-mark.ts).
    const quiet = isWarmUp(ctx.req);
    const track = quiet ? undefined : route ? route.track : post ? unmatched : undefined;
    const started = track ? performance.now() : 0;
    track?.inFlight.inc();
    try {
      await (route ? answerReview(ctx, route, quiet) : next());
    } catch (err) {
      if (!quiet) logger?.error({ err: (err as Error).message, path: ctx.path }, 'internal error');
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
    ctx.status = routes.has(ctx.path) ? 405 : 404;
    if (ctx.status === 405) ctx.set('Allow', 'POST');
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.silent = true;
  return app;
}
