/** The admission.k8s.io AdmissionReview shapes (v1 and v1beta1 are field-identical). */
import type { Operation } from '../engine/rule.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionRequest {
  uid: string;
  kind?: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: unknown;
  oldObject?: unknown;
  options?: unknown;
  dryRun?: boolean;
}

/** metav1.StatusCause: the cause type is `reason` on the wire. */
export interface StatusCause {
  reason: string;
  field: string;
  message: string;
}

export interface Status {
  code: number;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Status;
  patchType?: 'JSONPatch';
  /** Base64 of the JSON Patch array. */
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}
