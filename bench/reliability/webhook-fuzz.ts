/**
 * The webhook fuzzer: generated requests against a running webhook over HTTPS. Bodies are
 * AdmissionReviews built from the library's recipes, random JSON, text and bytes, then damaged
 * (truncated, invalid UTF-8 spliced in, junk appended) and sent with right and wrong paths,
 * methods and content types, whole, chunked or trickled; some are over the body limit; some are
 * not HTTP at all. A few uploads stall on purpose: the server must give up on them by its
 * 30-second request limit while it keeps answering the rest.
 *
 * What must never happen: a 5xx answer, no answer within the deadline, an answer of 200 that is
 * not an AdmissionReview for the request's uid, a review answered with code 500.
 */
import fc from 'fast-check';
import { kindsFor } from '../../rules/index.js';
import { MAX_BODY_BYTES } from '../../src/server/app.js';
import { keepAliveAgent, send, sendRaw, type Outcome, type RawOutcome, type Target } from './client.js';
import { buildReview, buildValue, describeRecipe, estimateObjectBytes, InputStream, reviewRecipe, sweep, toJsonText, valueRecipe, type ReviewRecipe, type Value } from './recipes.js';
import type { Failure } from './library-fuzz.js';

type Body = { review: ReviewRecipe } | { json: Value } | { text: string } | { bytes: number[] };
type Damage = { truncate: number } | { splice: number[]; at: number } | { append: string };

export type WebhookRecipe =
  | {
      body: Body;
      path: string;
      query: string;
      method: string;
      /** null: no Content-Type header. */
      contentType: string | null;
      damage: Damage | null;
      chunked: boolean;
      pace: { chunks: number; gapMs: number } | null;
    }
  /** A body this many bytes over the limit. */
  | { oversize: number; chunked: boolean }
  /** Bytes that are not a well-formed HTTP request, on a TLS connection of their own. */
  | { raw: string };

const kinds = kindsFor();
const SERVED_PATHS = ['/validate', '/mutate', ...kinds.flatMap((k) => [k.webhookPaths.validate, k.webhookPaths.mutate])];
const OTHER_PATHS = ['/', '/convert', '/validate-propagationpolicy', '/Validate-Cluster', '/validate-cluster/', '/healthz', '/metrics', '//validate', '/validate/../mutate', '/%2e%2e/validate', '/validate%00'];
const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=utf-16',
  'application/json, text/plain',
  'text/plain',
  'application/yaml',
  'application/x-www-form-urlencoded',
  'application/vnd.kubernetes.protobuf',
  'application/merge-patch+json',
  'multipart/form-data; boundary=x',
  '',
  '*/*',
];
const QUERIES = ['', '?timeout=10s', '?timeout=1s', '?timeout=30s', '?timeout=0s', '?timeout=-1s', '?timeout=1e9h', '?timeout=abc', '?timeout=10s&timeout=1s', '?a[b]=1&a[c]=2', `?${'x'.repeat(4000)}`];

/** Requests no HTTP client sends: the server's parser must answer 4xx or close. */
const RAW_TEMPLATES = [
  'POST /validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
  'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n0\r\n\r\n',
  'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
  'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n',
  'POST /validate HTTP/1.1\r\nHost: x\r\nbad header line\r\n\r\n',
  'POST /validate HTTP/1.1\r\nHost: x\r\nX: a\r\n folded\r\n\r\n',
  'POST /validate HTTP/1.1\r\nHost: x\r\nX: \u0000\r\n\r\n',
  `POST /validate HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
  `POST /validate HTTP/1.1\r\nHost: x\r\n${'X-A: b\r\n'.repeat(3000)}\r\n`,
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  'GET /\r\n\r\n',
  'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n\r\n',
  'POST http://evil.example/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
  'POST /validate HTTP/9.9\r\nHost: x\r\n\r\n',
  'POST  /validate  HTTP/1.1\r\n\r\n',
  'POST /validate HTTP/1.1\nHost: x\nContent-Length: 2\n\n{}',
  'POST /validate HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}',
  'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\nContent-Type: application/json\r\n\r\n\u001f\u008b\u0008\u0000',
];

const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  { weight: 40, arbitrary: reviewRecipe(false).map((review) => ({ review })) },
  { weight: 3, arbitrary: valueRecipe(false).map((json) => ({ json })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ bytes: [...b] })) },
);

const damageArb: fc.Arbitrary<Damage | null> = fc.oneof(
  { weight: 30, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.record({ truncate: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      // Bytes no UTF-8 text holds: lone continuation bytes, overlong forms, surrogates encoded, 0xFF.
      splice: fc.constantFrom<number[]>([0xff], [0xc3, 0x28], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xfe, 0xff], [0x00]),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ append: fc.constantFrom(' ', '\n', '}', ']', ',', '{}', 'null', '\u0000', 'x'.repeat(100)) }) },
);

export const webhookRecipe: fc.Arbitrary<WebhookRecipe> = fc.oneof(
  {
    weight: 200,
    arbitrary: fc.record({
      body: bodyArb,
      path: fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...SERVED_PATHS) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_PATHS) }, { weight: 1, arbitrary: fc.webPath() }),
      query: fc.oneof({ weight: 10, arbitrary: fc.constant('') }, { weight: 2, arbitrary: fc.constantFrom(...QUERIES) }),
      method: fc.oneof({ weight: 40, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND') }),
      contentType: fc.oneof({ weight: 20, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: fc.constant(null) }),
      damage: damageArb,
      chunked: fc.oneof({ weight: 10, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      // A slow upload that still finishes well within the deadline.
      pace: fc.oneof({ weight: 60, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.record({ chunks: fc.integer({ min: 2, max: 5 }), gapMs: fc.integer({ min: 10, max: 250 }) }) }),
    }),
  },
  { weight: 6, arbitrary: fc.constantFrom(...RAW_TEMPLATES).map((raw) => ({ raw })) },
  { weight: 2, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => ({ raw: Buffer.from(b).toString('latin1') })) },
  { weight: 1, arbitrary: fc.record({ oversize: fc.integer({ min: 1, max: 1024 * 1024 }), chunked: fc.boolean() }) },
);

/** The sweep's cases as webhook requests: every wrong value at every path, to the kind's path, validating and mutating in turn. */
function sweepRequests(): WebhookRecipe[] {
  return sweep().map((review, i) => {
    const example = 'example' in review.object ? review.object.example : 0;
    const kind = kinds[example % kinds.length]!;
    return { body: { review }, path: i % 2 ? kind.webhookPaths.mutate : '/validate', query: '', method: 'POST', contentType: 'application/json', damage: null, chunked: false, pace: null };
  });
}

export const webhookInputs = (seed: number) => new InputStream<WebhookRecipe>(webhookRecipe, seed, sweepRequests());

/** Bodies estimated past this are not built: anything past the limit is refused unread, so a smaller one over the limit tests the same. */
const BUILD_AT_MOST = MAX_BODY_BYTES + 2 * 1024 * 1024;

interface Built {
  body: Buffer;
  /** The uid an answer must echo, when the body is an intact AdmissionReview with one. */
  uid?: string;
}

function bodyOf(body: Body, uid: string): Built {
  if ('text' in body) return { body: Buffer.from(body.text) };
  if ('bytes' in body) return { body: Buffer.from(body.bytes) };
  if ('json' in body) return { body: Buffer.from(toJsonText(buildValue(body.json, true))) };
  if (estimateObjectBytes(body.review.object) + (typeof body.review.old === 'object' ? estimateObjectBytes(body.review.old) : 0) > BUILD_AT_MOST) return oversized(1);
  const built = buildReview(body.review, uid, true);
  const text = Buffer.from(toJsonText(built.review));
  const request = built.review.request as { uid?: unknown } | undefined;
  const intact = built.review.kind === 'AdmissionReview' && built.review.apiVersion === 'admission.k8s.io/v1' && typeof request === 'object' && request !== null && request.uid === uid;
  return { body: text, uid: intact ? uid : undefined };
}

/** An AdmissionReview `over` bytes past the body limit (negative: that many bytes short of it). */
export function oversized(over: number): Built {
  const head = '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"big","operation":"CREATE","object":{"pad":"';
  const tail = '"}}}';
  return { body: Buffer.from(head + 'x'.repeat(MAX_BODY_BYTES + over - head.length - tail.length) + tail) };
}

function damaged(body: Buffer, damage: Damage | null): Buffer {
  if (!damage) return body;
  if ('truncate' in damage) return body.subarray(0, Math.floor(body.length * damage.truncate));
  if ('append' in damage) return Buffer.concat([body, Buffer.from(damage.append)]);
  const at = Math.floor(body.length * damage.at);
  return Buffer.concat([body.subarray(0, at), Buffer.from(damage.splice), body.subarray(at)]);
}

export interface WebhookFigures {
  requests: number;
  sweepCases: number;
  /** Answers by HTTP status ("closed" for raw requests the server closed without an answer). */
  byStatus: Record<string, number>;
  http5xx: number;
  /** Answers of 200 whose review says code 500. */
  reviewInternalErrors: number;
  /** Answers of 200 that are not an AdmissionReview response for the request's uid. */
  malformed: number;
  hangs: number;
  /** Failures before any answer on a request that should have had one. */
  transportErrors: number;
  stalls: { started: number; cut: number; maxMs: number; notCut: number };
  slowest: { index: number; ms: number; recipe: string }[];
  failures: Failure[];
}

export interface WebhookFuzzOptions {
  seed: number;
  from: number;
  to: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** An answer later than this is a hang. */
  deadlineMs: number;
  /** Uploads that stall on purpose (each takes the server's 30-second request limit). */
  stalls: number;
  /** A stalled upload the server has not given up on by then is a hang. */
  stallDeadlineMs?: number;
  keepFailures?: number;
  onProgress?: (done: number) => void;
}

/** How each stalled upload stops: the server must cut all of them by its request limit. */
const STALLS: { what: string; bytes: string; trickle?: string }[] = [
  { what: 'headers never finished', bytes: 'POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' },
  { what: 'body short of its Content-Length', bytes: 'POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":' },
  { what: 'chunked body never ended', bytes: 'POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n' },
  { what: 'body trickled a byte a second', bytes: 'POST /validate-cluster HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n', trickle: ' ' },
  { what: 'headers trickled a byte a second', bytes: 'POST /validate HTTP/1.1\r\nHost: localhost\r\n', trickle: 'X' },
];

/** A request the server can only answer once it has read all of it: a POST of JSON to a webhook path. */
function mustReadWhole(recipe: WebhookRecipe): boolean {
  return 'body' in recipe && recipe.method === 'POST' && recipe.contentType === 'application/json' && SERVED_PATHS.includes(recipe.path);
}

export async function fuzzWebhook(target: Target, options: WebhookFuzzOptions, inputs = webhookInputs(options.seed)): Promise<WebhookFigures> {
  const figures: WebhookFigures = {
    requests: 0,
    sweepCases: 0,
    byStatus: {},
    http5xx: 0,
    reviewInternalErrors: 0,
    malformed: 0,
    hangs: 0,
    transportErrors: 0,
    stalls: { started: 0, cut: 0, maxMs: 0, notCut: 0 },
    slowest: [],
    failures: [],
  };
  const keep = options.keepFailures ?? 20;
  const fail = (index: number, recipe: unknown, what: string, message: string) => {
    if (figures.failures.length < keep) figures.failures.push({ index, what, message: message.slice(0, 300), recipe: describeRecipe(recipe) });
  };
  const agent = keepAliveAgent(target, options.concurrency);
  const count = (status: string) => (figures.byStatus[status] = (figures.byStatus[status] ?? 0) + 1);

  const stallDeadline = options.stallDeadlineMs ?? 45_000;
  const stalls = Array.from({ length: options.stalls }, (_, i) => {
    const stall = STALLS[i % STALLS.length]!;
    figures.stalls.started++;
    return sendRaw(target, Buffer.from(stall.bytes, 'latin1'), stallDeadline, { stall: true, trickle: stall.trickle }).then((outcome) => {
      if (outcome.hung) {
        figures.stalls.notCut++;
        fail(-1 - i, stall.what, 'stalled upload not given up on', `still open after ${stallDeadline} ms`);
      } else {
        figures.stalls.cut++;
        figures.stalls.maxMs = Math.max(figures.stalls.maxMs, outcome.ms);
        if (outcome.status !== undefined) count(String(outcome.status));
        if ((outcome.status ?? 0) >= 500) figures.http5xx++;
      }
    });
  });

  const one = async (index: number) => {
    const recipe = inputs.at(index);
    if (inputs.sweepCase(index) !== undefined) figures.sweepCases++;
    const uid = `fuzz-${options.seed}-${index}`;
    let outcome: Outcome | RawOutcome;
    let expectedUid: string | undefined;
    if ('raw' in recipe) {
      // The bytes, then the end of the stream: a fragment that could still become a request ('U', say)
      // would otherwise be a stalled upload, which the server may hold for its 30-second limit.
      outcome = await sendRaw(target, Buffer.from(recipe.raw, 'latin1'), options.deadlineMs, { end: true });
      if (outcome.status === undefined && !outcome.hung) {
        // The server may close a connection it cannot parse without a word: that is an answer here.
        count('closed');
      }
    } else {
      const built = 'oversize' in recipe ? oversized(recipe.oversize) : bodyOf(recipe.body, uid);
      const body = 'oversize' in recipe ? built.body : damaged(built.body, recipe.damage);
      expectedUid = 'oversize' in recipe || recipe.damage ? undefined : built.uid;
      const chunked = recipe.chunked;
      const headers: Record<string, string | number> = {};
      const contentType = 'oversize' in recipe ? 'application/json' : recipe.contentType;
      if (contentType !== null) headers['content-type'] = contentType;
      if (!chunked) headers['content-length'] = body.length;
      outcome = await send(target, {
        method: 'oversize' in recipe ? 'POST' : recipe.method,
        path: 'oversize' in recipe ? '/validate' : recipe.path + recipe.query,
        headers,
        body,
        pace: 'oversize' in recipe ? undefined : (recipe.pace ?? undefined),
        deadlineMs: options.deadlineMs,
        // A body over the limit may be cut off mid-upload; it must not spoil a kept-alive connection for the next.
        agent: 'oversize' in recipe || recipe.method !== 'POST' ? false : agent,
      });
    }
    figures.requests++;
    options.onProgress?.(figures.requests);
    if (figures.slowest.length < 3 || outcome.ms > figures.slowest.at(-1)!.ms) {
      figures.slowest.push({ index, ms: outcome.ms, recipe: describeRecipe(recipe, 200) });
      figures.slowest.sort((a, b) => b.ms - a.ms).splice(3);
    }
    if (outcome.hung) {
      figures.hangs++;
      fail(index, recipe, 'no answer within the deadline', `${options.deadlineMs} ms`);
      return;
    }
    if (outcome.status === undefined) {
      if ('raw' in recipe) return;
      // The server may answer a request it refuses without reading its body (over the limit, a wrong
      // method, path or content type) and close the connection while the client still writes: the
      // client then sees the connection go, not the answer. Only a request it must read is owed one.
      if (!mustReadWhole(recipe) && outcome.error) {
        count('closed');
        return;
      }
      figures.transportErrors++;
      fail(index, recipe, 'failed before any answer', outcome.error ?? 'unknown');
      return;
    }
    count(String(outcome.status));
    if (outcome.status >= 500) {
      figures.http5xx++;
      fail(index, recipe, `answered ${outcome.status}`, 'body' in outcome ? (outcome.body ?? '') : '');
      return;
    }
    // Only a POST is a review; the router answers OPTIONS itself, with the allowed methods.
    if (outcome.status !== 200 || !('body' in outcome) || ('method' in recipe && recipe.method !== 'POST')) return;
    let answer: { kind?: unknown; response?: { uid?: unknown; allowed?: unknown; status?: { code?: number; message?: string } } };
    try {
      answer = JSON.parse(outcome.body ?? '');
    } catch {
      figures.malformed++;
      fail(index, recipe, 'answered 200 with a body that is not JSON', outcome.body ?? '');
      return;
    }
    const response = answer.response;
    if (answer.kind !== 'AdmissionReview' || typeof response?.allowed !== 'boolean' || (expectedUid !== undefined && response.uid !== expectedUid)) {
      figures.malformed++;
      fail(index, recipe, 'answered 200 with something other than the AdmissionReview for this uid', outcome.body ?? '');
    } else if ((response.status?.code ?? 0) >= 500) {
      figures.reviewInternalErrors++;
      fail(index, recipe, `review answered code ${response.status?.code}`, response.status?.message ?? '');
    }
  };

  let next = options.from;
  const lanes = Array.from({ length: options.concurrency }, async () => {
    while (next < options.to) await one(next++);
  });
  await Promise.all(lanes);
  await Promise.all(stalls);
  agent.destroy();
  return figures;
}
