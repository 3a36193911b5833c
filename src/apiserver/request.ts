/**
 * Query parameters and request options of the write endpoints, read and checked as kube-apiserver
 * reads them (apimachinery `meta/v1/validation`: ValidateCreateOptions, ValidateUpdateOptions,
 * ValidatePatchOptions, ValidateDeleteOptions). A bad option is a 422 on the options kind, as there.
 */
import { notSupported, type Cause } from '../engine/field.js';
import { FieldPath } from '../engine/path.js';
import { fieldValidationOf, type FieldValidation } from './admission.js';
import { invalid, type ApiError } from './status.js';
import { fieldManagerCauses, managerOrUserAgent, patchOptionsCauses } from './apply/index.js';
import { type JsonObject } from './json.js';
import { isRecord } from '../util/is.js';

export type Query = Record<string, string | string[] | undefined>;

/** A parameter's value as kube's parameter codec reads it: the first one given. */
export const param = (query: Query, name: string): string | undefined => {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
};
const params = (query: Query, name: string): string[] => {
  const value = query[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
};

const optionsError = (kind: string, causes: Cause[]): ApiError => invalid({ group: 'meta.k8s.io', kind }, '', causes);

const DRY_RUN = FieldPath.root.child('dryRun');
const FIELD_VALIDATION = FieldPath.root.child('fieldValidation');
const DRY_RUN_VALUES: readonly string[] = ['All'];
const FIELD_VALIDATION_VALUES: readonly string[] = ['', 'Ignore', 'Strict', 'Warn'];

function dryRunCauses(values: readonly unknown[]): Cause[] {
  return values.filter((v) => v !== 'All').map((v) => notSupported(DRY_RUN, String(v), DRY_RUN_VALUES));
}

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** The manager the write is recorded under in managedFields: `fieldManager`, or the User-Agent's product (managerOrUserAgent). */
  manager: string;
  /** Apply patches only: take over the fields other managers own. */
  force: boolean;
}

/**
 * The options of a create, update or patch, checked in kube's order (the PatchOptions' force and
 * fieldManager rules, then fieldManager, dryRun, fieldValidation); `kind` names them in errors.
 * `patchMediaType` is a patch's Content-Type (an apply patch requires fieldManager and takes force).
 */
export function writeOptions(kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', query: Query, userAgent: string | undefined, patchMediaType?: string): WriteOptions {
  const dryRun = params(query, 'dryRun');
  const manager = param(query, 'fieldManager');
  const validation = param(query, 'fieldValidation');
  const fieldValidation = fieldValidationOf(validation);
  const force = param(query, 'force');
  const causes =
    kind === 'PatchOptions'
      ? patchOptionsCauses({ patchType: patchMediaType ?? '', ...(manager !== undefined ? { fieldManager: manager } : {}), forceGiven: force !== undefined })
      : fieldManagerCauses(manager ?? '');
  causes.push(...dryRunCauses(dryRun));
  if (!fieldValidation) causes.push(notSupported(FIELD_VALIDATION, validation!, FIELD_VALIDATION_VALUES));
  if (causes.length) throw optionsError(kind, causes);
  return {
    dryRun: dryRun.length > 0,
    fieldValidation: fieldValidation!,
    manager: managerOrUserAgent(manager, userAgent),
    force: force === 'true',
  };
}

export interface DeleteOptions {
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  ignoreStoreReadError: boolean;
}

const PROPAGATION_POLICIES: readonly string[] = ['Orphan', 'Background', 'Foreground'];
const PROPAGATION_POLICY = FieldPath.root.child('propagationPolicy');

/**
 * DeleteOptions from the body when there is one, else from the query (apiserver `handlers/delete.go`).
 * `ignoreStoreReadErrorParameter`: whether the resource takes the extra delete parameter.
 */
export function deleteOptions(body: unknown, query: Query, ignoreStoreReadErrorParameter: boolean): DeleteOptions {
  const source: JsonObject = body === undefined ? fromQuery(query) : isRecord(body) ? body : {};
  const causes: Cause[] = [];
  const dryRun = Array.isArray(source.dryRun) ? (source.dryRun as unknown[]) : source.dryRun === undefined ? [] : [source.dryRun];
  causes.push(...dryRunCauses(dryRun));
  const policy = source.propagationPolicy;
  if (policy !== undefined && policy !== null && !PROPAGATION_POLICIES.includes(String(policy))) causes.push(notSupported(PROPAGATION_POLICY, String(policy), PROPAGATION_POLICIES));
  if (policy != null && source.orphanDependents != null) {
    causes.push({ type: 'FieldValueInvalid', field: 'propagationPolicy', message: `Invalid value: ${JSON.stringify(String(policy))}: orphanDependents and deletionPropagation cannot be both set` });
  }
  const grace = source.gracePeriodSeconds;
  const ignoreStoreReadError = source.ignoreStoreReadErrorWithClusterBreakingPotential === true || source.ignoreStoreReadErrorWithClusterBreakingPotential === 'true';
  if (ignoreStoreReadError) {
    if (!ignoreStoreReadErrorParameter) throw optionsError('DeleteOptions', [{ type: 'FieldValueForbidden', field: 'ignoreStoreReadErrorWithClusterBreakingPotential', message: 'Forbidden: not a parameter of this resource' }]);
    // apimachinery ValidateDeleteOptions: the unsafe delete takes no other option.
    const alone = (field: string, value: unknown) =>
      causes.push({ type: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: cannot be set together with ignoreStoreReadErrorWithClusterBreakingPotential` });
    if (dryRun.length) alone('dryRun', dryRun.join(','));
    if (policy != null) alone('propagationPolicy', policy);
    if (grace != null && Number(grace) !== 0) alone('gracePeriodSeconds', Number(grace));
    if (source.preconditions != null) alone('preconditions', source.preconditions);
  }
  if (causes.length) throw optionsError('DeleteOptions', causes);
  const preconditions = isRecord(source.preconditions) ? source.preconditions : undefined;
  return {
    dryRun: dryRun.length > 0,
    ...(preconditions
      ? {
          preconditions: {
            ...(typeof preconditions.uid === 'string' ? { uid: preconditions.uid } : {}),
            ...(typeof preconditions.resourceVersion === 'string' ? { resourceVersion: preconditions.resourceVersion } : {}),
          },
        }
      : {}),
    ...(policy != null ? { propagationPolicy: String(policy) } : {}),
    ...(grace != null && Number.isFinite(Number(grace)) ? { gracePeriodSeconds: Number(grace) } : {}),
    ignoreStoreReadError,
  };
}

function fromQuery(query: Query): JsonObject {
  const out: JsonObject = {};
  const dryRun = params(query, 'dryRun');
  if (dryRun.length) out.dryRun = dryRun;
  for (const name of ['propagationPolicy', 'gracePeriodSeconds', 'orphanDependents', 'ignoreStoreReadErrorWithClusterBreakingPotential']) {
    const value = param(query, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
