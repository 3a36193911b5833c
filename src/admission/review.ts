/**
 * review(): an AdmissionReview in, the response AdmissionReview out.
 * decode → identify the kind → validate or default → response. It never throws:
 * input it cannot use gets `allowed: false` with code 400, a bug gets 500.
 */
import { judgeDelete as judgeDeletion } from '../engine/validate.js';
import { mutationOf } from '../engine/defaults.js';
import { validateKind } from '../decode/object.js';
import { apiGroup, rulesFor, supportedKinds } from '../../rules/index.js';
import { ContextUnavailableError, OPERATIONS, pickRuleOptions, type KindRules, type Lookups, type MaybePromise, type Operation, type RuleOptions } from '../engine/rule.js';
import type { ValidationResult } from '../engine/validate.js';
import { allowed, errored, forbidden, invalid, patched } from './response.js';
import { DELETION_PROTECTED_MESSAGE } from '../engine/deletion-protection.js';
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from './types.js';
import { isRecord } from '../util/is.js';

export type { AdmissionRequest, AdmissionResponse, AdmissionReview } from './types.js';

export interface ReviewOptions extends RuleOptions {
  /**
   * `validate` judges every rule (a DELETE by deletion protection, see validate()); `mutate`
   * answers the defaults as a JSON Patch. `deletion-protection` is Karmada's
   * /validate-resourcedeletionprotection: a DELETE of any kind is judged by deletion protection
   * alone, and any other operation is allowed unread.
   */
  mode: 'validate' | 'mutate' | 'deletion-protection';
  groupDomain?: string;
  lookups?: Lookups;
  /** Only this kind is accepted (per-kind webhook paths); another kind gets code 400. */
  kind?: string;
  /** The time written into defaulted timestamps; default now. */
  now?: Date;
  /** The UUIDs written into missing permanent-id labels; default crypto.randomUUID. */
  uuid?: () => string;
}

const REVIEW_VERSIONS = new Set(['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']);

const SHOWN_LENGTH = 64;

/**
 * A request value as an error message may quote it: a short string or a scalar. An object
 * in a field that takes a name is described, not printed, so the message (which the
 * service also logs) carries no object contents and stays short.
 */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > SHOWN_LENGTH ? `${value.slice(0, SHOWN_LENGTH)}…` : value);
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** An `admission.k8s.io/v1` or `v1beta1` AdmissionReview envelope (its request is checked by review()). */
export const isAdmissionReview = (body: unknown): body is { apiVersion?: string; kind: 'AdmissionReview'; request?: unknown } =>
  isRecord(body) && body.kind === 'AdmissionReview' && (body.apiVersion === undefined || (typeof body.apiVersion === 'string' && REVIEW_VERSIONS.has(body.apiVersion)));

export function review(input: unknown, options: ReviewOptions): MaybePromise<AdmissionReview> {
  let apiVersion = 'admission.k8s.io/v1';
  let uid = '';
  const wrap = (response: Omit<AdmissionResponse, 'uid'>): AdmissionReview => ({ apiVersion, kind: 'AdmissionReview', response: { uid, ...response } });
  try {
    // Read inside a guard: an object handed in by a caller may throw from a getter or a Proxy.
    if (isRecord(input) && typeof input.apiVersion === 'string' && REVIEW_VERSIONS.has(input.apiVersion)) apiVersion = input.apiVersion;
    if (isRecord(input) && isRecord(input.request) && typeof input.request.uid === 'string') uid = input.request.uid;
  } catch (err) {
    return wrap(errored(400, `the AdmissionReview cannot be read: ${err instanceof Error ? err.message : String(err)}`));
  }
  try {
    const decoded = decode(input, options);
    if ('error' in decoded) return wrap(errored(400, decoded.error));
    const outcome = decide(decoded, options);
    return outcome instanceof Promise ? outcome.then(wrap, (err: unknown) => wrap(internalError(err))) : wrap(outcome);
  } catch (err) {
    return wrap(internalError(err));
  }
}

function internalError(err: unknown): Omit<AdmissionResponse, 'uid'> {
  if (err instanceof ContextUnavailableError) {
    return { allowed: false, status: { code: 503, reason: 'ServiceUnavailable', message: err.message } };
  }
  // The message names the failure, never the object's contents.
  return errored(500, `internal error while reviewing the request: ${err instanceof Error ? err.message : String(err)}`);
}

interface Decoded {
  request: AdmissionRequest;
  operation: Operation;
  rules?: KindRules;
  object?: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
}

function decode(input: unknown, options: ReviewOptions): Decoded | { error: string } {
  if (!isRecord(input)) return { error: 'the body is not an AdmissionReview: expected a JSON object' };
  if (!isAdmissionReview(input)) {
    return {
      error: `the body is not an AdmissionReview: expected apiVersion admission.k8s.io/v1 or admission.k8s.io/v1beta1 and kind AdmissionReview, got ${shown(input.apiVersion)} and ${shown(input.kind)}`,
    };
  }
  const request = input.request;
  if (!isRecord(request)) return { error: 'the AdmissionReview has no request' };
  if (typeof request.uid !== 'string' || request.uid === '') return { error: 'request.uid is required' };
  const operation = request.operation as Operation;
  if (!OPERATIONS.has(operation)) {
    return { error: `request.operation ${shown(request.operation)} is not one of CREATE, UPDATE, DELETE, CONNECT` };
  }
  const req = request as unknown as AdmissionRequest;
  if (options.mode === 'deletion-protection') {
    if (operation !== 'DELETE') return { request: req, operation };
    // As Karmada's handler, which cannot decode an absent or malformed stored object: 400.
    if (request.oldObject === undefined || request.oldObject === null) return { error: 'there is no content to decode: request.oldObject is empty (a DELETE carries the stored object)' };
    if (!isRecord(request.oldObject)) return { error: 'request.oldObject is not a JSON object' };
    return { request: req, operation, oldObject: request.oldObject };
  }
  const requestKind = isRecord(request.kind) && typeof request.kind.kind === 'string' ? request.kind.kind : undefined;
  if (operation === 'DELETE' || operation === 'CONNECT') {
    // Nothing to validate, but a per-kind endpoint still answers only for its kind.
    const kindName = requestKind ?? (isRecord(request.oldObject) ? request.oldObject.kind : undefined);
    if (options.kind !== undefined && typeof kindName === 'string' && kindName !== options.kind) {
      return { error: `this endpoint serves ${options.kind}, but the request is for ${kindName}` };
    }
    return { request: req, operation, oldObject: operation === 'DELETE' && isRecord(request.oldObject) ? request.oldObject : undefined };
  }

  const object = request.object;
  if (object === undefined || object === null) return { error: 'there is no content to decode: request.object is empty' };
  if (!isRecord(object)) return { error: 'request.object is not a JSON object' };
  if (operation === 'UPDATE') {
    // The API server always sends the stored object with an UPDATE; without it the update rules cannot run.
    if (request.oldObject === undefined || request.oldObject === null) return { error: 'there is no content to decode: request.oldObject is empty (an UPDATE carries the stored object)' };
    if (!isRecord(request.oldObject)) return { error: 'request.oldObject is not a JSON object' };
  }

  const kindName = requestKind ?? object.kind;
  const rules = rulesFor(kindName);
  if (!rules) {
    return { error: `kind ${shown(kindName)} is not served by fleetgate; served kinds: ${supportedKinds.join(', ')}` };
  }
  if (options.kind !== undefined && options.kind !== rules.kind) {
    return { error: `this endpoint serves ${options.kind}, but the request is for ${rules.kind}` };
  }
  const group = isRecord(request.kind) ? request.kind.group : undefined;
  if (typeof group === 'string' && group !== apiGroup(rules, options.groupDomain)) {
    return { error: `group ${shown(group)} is not served: ${rules.kind} is served in group ${apiGroup(rules, options.groupDomain)}` };
  }
  // The kind's rules would judge an object of another kind, and blame it for what it is not.
  if (requestKind !== undefined && object.kind !== requestKind) {
    return { error: `request.object has kind ${shown(object.kind)}, but request.kind names ${requestKind}` };
  }
  // Both sides alike, or the immutability check would see the namespace change.
  const oldObject = isRecord(request.oldObject) ? withRequestNamespace(request.oldObject, rules, req) : undefined;
  return { request: req, operation, rules, object: withRequestNamespace(object, rules, req), oldObject };
}

/**
 * A DELETE, judged on the stored object by deletion protection; without it (an API server
 * sends it with every DELETE), there is nothing to read, and nothing to refuse.
 */
function judgeDelete(request: AdmissionRequest, stored: Record<string, unknown> | undefined): Omit<AdmissionResponse, 'uid'> {
  if (!stored) return allowed();
  const result = judgeDeletion(stored);
  if (result.allowed) return allowed();
  const metadata = isRecord(stored.metadata) ? stored.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : typeof request.name === 'string' ? request.name : '';
  const kind = isRecord(request.kind) && typeof request.kind.kind === 'string' ? request.kind.kind : typeof stored.kind === 'string' ? stored.kind : '';
  const group = isRecord(request.kind) && typeof request.kind.group === 'string' ? request.kind.group : groupOf(stored.apiVersion);
  // Deletion protection is the only rule a DELETE has: Karmada's message, as its webhook words it.
  return forbidden(DELETION_PROTECTED_MESSAGE, kind, group, name, result.causes);
}

/** The group of an apiVersion (`cluster.karmada.io/v1alpha1`); '' for the core group's `v1`. */
const groupOf = (apiVersion: unknown): string => (typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/** The API server fills the namespace in from the request; a reviewed object may not carry it yet. */
function withRequestNamespace(object: Record<string, unknown>, rules: KindRules, request: AdmissionRequest): Record<string, unknown> {
  if (rules.scope !== 'Namespaced' || !request.namespace) return object;
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  if (metadata.namespace) return object;
  return { ...object, metadata: { ...metadata, namespace: request.namespace } };
}

function decide(decoded: Decoded, options: ReviewOptions): MaybePromise<Omit<AdmissionResponse, 'uid'>> {
  const { request, operation, rules, object, oldObject } = decoded;
  if (operation === 'DELETE') return options.mode === 'mutate' ? allowed() : judgeDelete(request, oldObject);
  if (!rules || !object) return allowed();
  const subResource = request.subResource ?? '';
  if (subResource !== '' && subResource !== 'status') return allowed();

  const name = () => (isRecord(object.metadata) && typeof object.metadata.name === 'string' ? object.metadata.name : typeof request.name === 'string' ? request.name : '');
  if (options.mode === 'mutate') {
    // The patch applies to the object the API server holds, not to the one with the request's namespace filled in.
    const { patch, causes, truncated } = mutationOf(rules, request.object, { operation, subResource, now: options.now, uuid: options.uuid });
    if (causes) return invalid(rules.kind, apiGroup(rules, options.groupDomain), name(), causes, truncated);
    return patch.length ? patched(patch) : allowed();
  }

  const result = validateKind(rules, object, {
    operation,
    oldObject,
    subResource,
    groupDomain: options.groupDomain,
    lookups: options.lookups,
    ...pickRuleOptions(options),
  });
  const respond = (r: ValidationResult) => {
    const response = r.allowed ? allowed() : invalid(rules.kind, apiGroup(rules, options.groupDomain), name(), r.causes, r.truncated);
    return r.warnings.length ? { ...response, warnings: r.warnings } : response;
  };
  return result instanceof Promise ? result.then(respond) : respond(result);
}
