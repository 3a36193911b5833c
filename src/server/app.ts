/**
 * The webhook's HTTP layer: thin glue from Koa to review(). It owns only what HTTP
 * owns (body size, content type, JSON decoding, routing); every verdict comes from
 * the library.
 */
import Koa from 'koa';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { review, type ReviewOptions } from '../admission/review.js';
import { kindsFor, DEFAULT_GROUP_DOMAIN } from '../../rules/index.js';
import type { Lookups, RuleOptions } from '../rule.js';

/**
 * The API server sends objects of up to about 3 MiB, and an UPDATE carries two of
 * them; controller-runtime caps admission bodies at 7 MiB for that reason.
 */
export const MAX_BODY_BYTES = 7 * 1024 * 1024;

export interface AppOptions extends RuleOptions {
  groupDomain?: string;
  lookups?: Lookups;
  maxBodyBytes?: number;
}

const REVIEW_VERSIONS = new Set(['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']);

/** A Kubernetes Status body for answers that cannot be an AdmissionReview. */
function failure(ctx: Koa.Context, code: number, message: string): void {
  ctx.status = code;
  ctx.body = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message };
}

async function readJson(ctx: Koa.Context, limit: number): Promise<unknown | undefined> {
  if (ctx.request.type !== 'application/json') {
    failure(ctx, 400, `contentType=${ctx.get('content-type') || '<none>'}, expected application/json`);
    return undefined;
  }
  let raw: string;
  try {
    raw = await getRawBody(ctx.req, { limit, encoding: 'utf8', length: ctx.get('content-length') || undefined });
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
    failure(ctx, 400, `request body is not valid JSON: ${(err as Error).message}`);
    return undefined;
  }
}

const isAdmissionReview = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && !Array.isArray(body) &&
  (body as { kind?: unknown }).kind === 'AdmissionReview' &&
  REVIEW_VERSIONS.has((body as { apiVersion?: unknown }).apiVersion as string);

export function createApp(options: AppOptions = {}): Koa {
  const groupDomain = options.groupDomain ?? DEFAULT_GROUP_DOMAIN;
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const app = new Koa();
  const router = new Router();

  const handler = (mode: ReviewOptions['mode'], kind?: string) => async (ctx: Koa.Context) => {
    const body = await readJson(ctx, limit);
    if (body === undefined) return;
    if (!isAdmissionReview(body)) {
      failure(ctx, 400, 'the body is not an AdmissionReview (admission.k8s.io/v1 or v1beta1)');
      return;
    }
    ctx.status = 200;
    ctx.body = await review(body, {
      mode,
      kind,
      groupDomain,
      lookups: options.lookups,
      allowNoExecuteTaintPolicy: options.allowNoExecuteTaintPolicy,
    });
  };

  router.post('/validate', handler('validate'));
  router.post('/mutate', handler('mutate'));
  for (const info of kindsFor(groupDomain)) {
    router.post(info.webhookPaths.validate, handler('validate', info.kind));
    router.post(info.webhookPaths.mutate, handler('mutate', info.kind));
  }

  // Koa's default error handler answers text/plain; keep every answer JSON and keep the process up.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch {
      failure(ctx, 500, 'internal error');
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.silent = true;
  return app;
}
