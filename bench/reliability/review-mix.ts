/**
 * A realistic mix of admission reviews, as an API server sends them: every kind (the
 * project's examples), most of them valid and some with a typical mistake (bench/corpus.ts),
 * creations and updates, to the kinds' validating and mutating paths with `?timeout=10s`.
 * Each request has its own uid, and its right answer is known beforehand (computed with the
 * library), so a harness checks every answer: status 200, an AdmissionReview for that uid,
 * the expected verdict.
 */
import { review } from '../../src/admission/review.js';
import { kindsFor } from '../../rules/index.js';
import { examples } from '../../test/fixtures/index.js';
import { corpus } from '../corpus.js';
import type { FireResult } from './open-loop.js';
import type { Outcome } from './client.js';
import type { RawAnswer } from './keep-alive-pool.js';

export interface MixRequest {
  path: string;
  /** The body is `before + uid + after`. */
  before: string;
  after: string;
  allowed: boolean;
  kind: string;
  mode: 'validate' | 'mutate';
}

const UID = '\u0000uid\u0000';

/** Every combination of object (valid or broken), operation and mode, with its expected verdict. */
export function reviewMix(): MixRequest[] {
  const kinds = kindsFor();
  const objects = corpus() as Record<string, unknown>[];
  const out: MixRequest[] = [];
  for (const object of objects) {
    const kind = object.kind as string;
    const info = kinds.find((k) => k.kind === kind)!;
    // The stored object of an update: the valid example of the same kind (CronFederatedHPA has two; the first).
    const stored = examples.find((e) => e.kind === kind)!;
    for (const operation of ['CREATE', 'UPDATE'] as const) {
      for (const mode of ['validate', 'mutate'] as const) {
        const request = {
          uid: UID,
          kind: { group: info.group, version: info.version, kind },
          resource: { group: info.group, version: info.version, resource: info.plural },
          name: (object.metadata as { name?: string }).name,
          operation,
          userInfo: { username: 'system:serviceaccount:karmada-system:karmada-controller-manager' },
          object,
          ...(operation === 'UPDATE' ? { oldObject: stored } : {}),
          dryRun: false,
        };
        const body = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
        const answer = review(structuredClone(body), { mode }) as { response: { allowed: boolean } };
        const [before, after] = JSON.stringify(body).split(JSON.stringify(UID)) as [string, string];
        out.push({ path: `${mode === 'validate' ? info.webhookPaths.validate : info.webhookPaths.mutate}?timeout=10s`, before: `${before}"`, after: `"${after}`, allowed: answer.response.allowed, kind, mode });
      }
    }
  }
  return out;
}

/** The mix, and request i of it: 70 % of the requests carry a valid object, 30 % a broken one. */
export class Mix {
  readonly all = reviewMix();
  private readonly valid = this.all.filter((m) => m.allowed);
  private readonly invalid = this.all.filter((m) => !m.allowed);

  /** Request i, deterministic in i (the kinds, operations and modes spread evenly). */
  at(i: number): MixRequest {
    // A multiplicative hash spreads consecutive indexes over the mix without a random generator.
    const h = Math.imul(i + 1, 0x9e3779b1) >>> 0;
    const pool = h % 10 < 7 || this.invalid.length === 0 ? this.valid : this.invalid;
    return pool[(h >>> 8) % pool.length]!;
  }

  bodyOf(request: MixRequest, uid: string): string {
    return request.before + uid + request.after;
  }
}

/** What an answer's status already says against it (none came, or not 200); undefined for a 200. */
export function statusFailure(answer: { status?: number; error?: string }): FireResult | undefined {
  if (answer.status === undefined) return { ok: false, error: answer.error ?? 'no answer' };
  if (answer.status !== 200) return { ok: false, error: `status ${answer.status}` };
  return undefined;
}

/** Whether `outcome` is the right answer to `request` sent with `uid`. */
export function judgeAnswer(request: MixRequest, uid: string, outcome: Outcome): FireResult {
  const failed = statusFailure(outcome);
  if (failed) return failed;
  let answer: { kind?: unknown; response?: { uid?: unknown; allowed?: unknown } };
  try {
    answer = JSON.parse(outcome.body ?? '');
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (answer.kind !== 'AdmissionReview' || answer.response?.uid !== uid) return { ok: false, error: 'not the AdmissionReview for this uid' };
  if (answer.response.allowed !== request.allowed) return { ok: false, error: `wrong verdict for ${request.kind} (${request.mode})` };
  return { ok: true };
}

/**
 * The same judgement on an answer's bytes, for the soak's lean transport: the fields are found as
 * the server writes them (JSON without spaces; a quote inside a message is escaped, so these
 * texts occur only as the fields themselves), without parsing a body each request.
 */
export function judgeAnswerBytes(request: MixRequest, uid: string, answer: RawAnswer): FireResult {
  const failed = statusFailure(answer);
  if (failed) return failed;
  const body = answer.body!;
  if (!body.includes('"kind":"AdmissionReview"') || !body.includes(`"uid":"${uid}"`)) return { ok: false, error: 'not the AdmissionReview for this uid' };
  const verdict = body.includes('"allowed":true') ? true : body.includes('"allowed":false') ? false : undefined;
  if (verdict !== request.allowed) return { ok: false, error: `wrong verdict for ${request.kind} (${request.mode})` };
  return { ok: true };
}
