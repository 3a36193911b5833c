/** The one place that shapes admission responses (without the uid, which review() adds). */
import { aggregate, renderValue, type Cause } from '../engine/field.js';
import type { PatchOperation } from '../engine/defaults.js';
import type { AdmissionResponse } from './types.js';
import { MORE_CAUSES } from '../engine/rule.js';

type Response = Omit<AdmissionResponse, 'uid'>;

export const allowed = (): Response => ({ allowed: true });

/** A request that could not be used: 400 for bad input, 500 for a bug. */
export const errored = (code: number, message: string): Response => ({ allowed: false, status: { code, message } });

/** Causes as metav1.StatusCause: the cause type travels as `reason`, the one name the API server reads. */
const statusCauses = (causes: readonly Cause[]) => causes.map((c) => ({ reason: c.type, field: c.field, message: c.message }));

/** 422 Invalid with causes, worded as the API server words `apierrors.NewInvalid`. */
export function invalid(kind: string, group: string, name: string, causes: Cause[], truncated = false): Response {
  return {
    allowed: false,
    status: {
      code: 422,
      reason: 'Invalid',
      message: `${kind}.${group} ${renderValue(name)} is invalid: ${aggregate(causes, truncated ? MORE_CAUSES : undefined)}`,
      details: {
        name,
        group,
        kind,
        causes: statusCauses(causes),
      },
    },
  };
}

/** 403 Forbidden, as Karmada's webhooks deny (`admission.Denied`): the message alone is what kubectl shows. */
export function forbidden(message: string, kind: string, group: string, name: string, causes: Cause[]): Response {
  return {
    allowed: false,
    status: {
      code: 403,
      reason: 'Forbidden',
      message,
      details: { name, group, kind, causes: statusCauses(causes) },
    },
  };
}

export const patched = (patch: PatchOperation[]): Response => ({
  allowed: true,
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
});
