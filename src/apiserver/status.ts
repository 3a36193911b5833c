/**
 * Errors as kube-apiserver words them (apimachinery `api/errors`): every failed request is answered
 * with a `Status` object whose reason, code, message and details kubectl turns into the text users
 * know (`Error from server (NotFound): …`, `The Cluster "m1" is invalid: …`).
 */
import { aggregate, type Cause } from '../index.js';
import type { ApiResource as Resource } from './resources.js';
import { qualifiedResource } from './keys.js';

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  /** Absent on success, as kube-apiserver leaves it (`omitempty`). */
  code?: number;
}

/** A request that fails with a Status; the HTTP layer answers it with `status.code`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(readonly status: Status) {
    super(status.message);
  }
  get code(): number {
    return this.status.code ?? 500;
  }
}

function failure(code: number, reason: string | undefined, message: string, details?: StatusDetails): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    ...(reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  });
}

/** Where an error names one object: group and plural, as `errors.NewNotFound(qualifiedResource, name)` does. */
const resourceDetails = (resource: Resource, name: string): StatusDetails => ({ name, group: resource.group, kind: resource.plural });

export const notFound = (resource: Resource, name: string): ApiError =>
  failure(404, 'NotFound', `${qualifiedResource(resource)} "${name}" not found`, resourceDetails(resource, name));

export const alreadyExists = (resource: Resource, name: string): ApiError =>
  failure(409, 'AlreadyExists', `${qualifiedResource(resource)} "${name}" already exists`, resourceDetails(resource, name));

/** A stale resourceVersion (or a failed precondition, with `detail` saying which). */
export const conflict = (resource: Resource, name: string, detail = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError =>
  failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": ${detail}`, resourceDetails(resource, name));

/**
 * 422 with every cause, as `errors.NewInvalid(qualifiedKind, name, errs)`: kubectl prints
 * `The <Kind> "<name>" is invalid:` and the causes' `field: message`.
 */
export function invalid(qualifiedKind: { group: string; kind: string }, name: string, causes: readonly Cause[], more?: string): ApiError {
  const qualified = qualifiedKind.group ? `${qualifiedKind.kind}.${qualifiedKind.group}` : qualifiedKind.kind;
  return failure(422, 'Invalid', `${qualified} "${name}" is invalid: ${aggregate(causes, more)}`, {
    name,
    group: qualifiedKind.group,
    kind: qualifiedKind.kind,
    causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
  });
}

export const badRequest = (message: string): ApiError => failure(400, 'BadRequest', message);

/** The patch formats the server takes, named in every 415, as kube-apiserver names them for custom resources. */
export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'] as const;

export const unsupportedMediaType = (message = `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`): ApiError =>
  failure(415, 'UnsupportedMediaType', message);

export const notAcceptable = (): ApiError => failure(406, 'NotAcceptable', 'only the following media types are accepted: application/json');

/** A compacted resourceVersion or continue token: the client relists. */
export const expired = (message: string): ApiError => failure(410, 'Expired', message);

export const methodNotAllowed = (): ApiError => failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');

/** What kube-apiserver answers for a path it does not serve. */
export const pathNotFound = (): ApiError => failure(404, 'NotFound', 'the server could not find the requested resource', {});

export const unauthorized = (): ApiError => failure(401, 'Unauthorized', 'Unauthorized');

export const requestEntityTooLarge = (limit: number): ApiError => failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);

export const serviceUnavailable = (message: string): ApiError => failure(503, 'ServiceUnavailable', message);

export const timeout = (message: string): ApiError => failure(504, 'Timeout', message);

/** What kube-apiserver's storage answers a create that names a resourceVersion: a 500 without a reason. */
export const resourceVersionOnCreate = (): ApiError => failure(500, undefined, 'resourceVersion should not be set on objects to be created');

/** Never carries the error's own text: it may hold object contents. */
export const internalError = (): ApiError => failure(500, 'InternalError', 'Internal error occurred: see the server log', { causes: [{ message: 'see the server log' }] });

/** The body of a successful delete, as the generic registry's finalizeDelete answers it. */
export function deleteSuccess(resource: Resource, name: string, uid: unknown): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { ...resourceDetails(resource, name), ...(typeof uid === 'string' ? { uid } : {}) },
  };
}

/** The body of a successful deletecollection (the spec's table: 200 Status). */
export function deleteCollectionSuccess(resource: Resource): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { group: resource.group, kind: resource.plural } };
}
