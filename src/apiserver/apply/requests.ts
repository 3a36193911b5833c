/**
 * The checks kube-apiserver makes on apply requests and on the names of field managers, with
 * its answers: the PatchOptions rules (apimachinery's ValidatePatchOptions), what an applied
 * configuration must be, and which name a write without `fieldManager` is recorded under.
 */
import { aggregate, forbidden, invalid, required, tooLong, type Cause, type Field } from '../../engine/field.js';
import { FieldPath } from '../../engine/path.js';
import { isRecord } from '../../util/is.js';
import type { KubeStatus } from './conflict.js';

/** apimachinery's FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;
export const APPLY_PATCH = 'application/apply-patch+yaml';

const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;

/** The code point as Go's %#U writes it: `U+0007`, or `U+00E9 'é'` for a printable one. */
const goRune = (ch: string): string => {
  const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return ch !== ' ' && NOT_PRINTABLE.test(ch) ? `U+${hex}` : `U+${hex} '${ch}'`;
};

/** The request options' fields, as ValidatePatchOptions names them. */
const FIELD_MANAGER = FieldPath.root.child('fieldManager');
const FORCE = FieldPath.root.child('force');

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function fieldManagerCauses(fieldManager: string, path: Field = FIELD_MANAGER): Cause[] {
  const causes: Cause[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) causes.push(tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of fieldManager) {
    // Go ranges over bytes: the position is a byte offset.
    if (ch === ' ' ? false : NOT_PRINTABLE.test(ch)) causes.push(invalid(path, fieldManager, `invalid character ${goRune(ch)} (at position ${position})`));
    position += Buffer.byteLength(ch);
  }
  return causes;
}

export interface PatchOptions {
  /** The request's Content-Type, without parameters. */
  readonly patchType: string;
  /** The `fieldManager` query parameter ('' or absent when not given). */
  readonly fieldManager?: string;
  /** Whether a `force` query parameter was given at all (kube forbids any value on other patches). */
  readonly forceGiven: boolean;
}

/** The 422 for PatchOptions kube answers before reading the body, or undefined when they are fine. */
export function checkPatchOptions(options: PatchOptions): KubeStatus | undefined {
  const causes = patchOptionsCauses(options);
  return causes.length === 0 ? undefined : invalidStatus('meta.k8s.io', 'PatchOptions', '', causes);
}

/**
 * What ValidatePatchOptions refuses in `force` and `fieldManager`, in its order (the API server
 * adds the dryRun and fieldValidation causes after these).
 */
export function patchOptionsCauses(options: PatchOptions): Cause[] {
  const causes: Cause[] = [];
  const manager = options.fieldManager ?? '';
  if (options.patchType === APPLY_PATCH) {
    if (manager === '') causes.push(required(FIELD_MANAGER, 'is required for apply patch'));
  } else if (options.forceGiven) {
    causes.push(forbidden(FORCE, 'may not be specified for non-apply patch'));
  }
  causes.push(...fieldManagerCauses(manager));
  return causes;
}

/** A 422 Invalid, as apimachinery's NewInvalid builds it. */
export function invalidStatus(group: string, kind: string, name: string, causes: readonly Cause[]): KubeStatus {
  const qualified = group ? `${kind}.${group}` : kind;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${qualified} ${JSON.stringify(name)} is invalid: ${aggregate(causes)}`,
    reason: 'Invalid',
    details: {
      ...(name ? { name } : {}),
      ...(group ? { group } : {}),
      kind,
      causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
    },
    code: 422,
  };
}

export const badRequest = (message: string): KubeStatus => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });

/** A failure kube reports as a plain error: 500 without a reason. */
export const internalError = (message: string): KubeStatus => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });

/** The group/version/kind as Go prints a schema.GroupVersionKind. */
export function gvkText(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const k = typeof kind === 'string' ? kind : '';
  const parts = av.split('/');
  if (parts.length > 2) return `/, Kind=${k}`; // unparsable: Go reads an empty group and version
  const [group, version] = parts.length === 2 ? parts : ['', av];
  return `${group}/${version}, Kind=${k}`;
}

/** The JSON kind of a value as Go's decoder names it in an error. */
const jsonKind = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v);

/**
 * What kube refuses in an applied configuration before merging it: a body that is not a map, an
 * apiVersion or kind other than the endpoint's, managedFields set (all 400 BadRequest).
 */
export function checkAppliedConfiguration(applied: unknown, apiVersion: string, kind: string): KubeStatus | undefined {
  if (applied !== null && !isRecord(applied)) {
    return badRequest(`error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(applied)} into Go value of type map[string]interface {}`);
  }
  if (!isRecord(applied)) return badRequest(`invalid object type: ${gvkText(undefined, undefined)}`);
  if (applied.apiVersion !== apiVersion || applied.kind !== kind) return badRequest(`invalid object type: ${gvkText(applied.apiVersion, applied.kind)}`);
  const metadata = applied.metadata;
  if (isRecord(metadata) && metadata.managedFields !== undefined && metadata.managedFields !== null) return badRequest('metadata.managedFields must be nil');
  return undefined;
}

/**
 * The name and namespace the stored object ends with, checked against the request's as kube's
 * patch handler checks them: a name must match the URL's; an object without a namespace takes the
 * request's, a cluster-scoped one loses its; a different namespace is refused.
 */
export function checkIdentity(
  object: Record<string, unknown>,
  name: string,
  namespace: string | undefined,
): { readonly ok: true; readonly object: Record<string, unknown> } | { readonly ok: false; readonly status: KubeStatus } {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const objectNamespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
  const requestNamespace = namespace ?? '';
  let out = object;
  if (objectNamespace !== requestNamespace) {
    if (objectNamespace !== '' && requestNamespace !== '') return { ok: false, status: badRequest('the namespace of the provided object does not match the namespace sent on the request') };
    const m: Record<string, unknown> = { ...metadata };
    if (requestNamespace === '') delete m.namespace;
    else m.namespace = requestNamespace;
    out = { ...object, metadata: m };
  }
  const objectName = typeof metadata.name === 'string' ? metadata.name : '';
  if (objectName !== name) return { ok: false, status: badRequest(`the name of the object (${objectName}) does not match the name on the URL (${name})`) };
  return { ok: true, object: out };
}

/**
 * The manager a write is recorded under: its `fieldManager`, else the User-Agent up to the first
 * `/`, printable characters only, at most 128 bytes (apiserver's managerOrUserAgent). An empty
 * result is recorded as `unknown`.
 */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (ch !== ' ' && NOT_PRINTABLE.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}
