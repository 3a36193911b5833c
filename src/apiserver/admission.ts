/**
 * Admission, in kube-apiserver's order: the library's defaults (what fleetgate's mutating webhook
 * adds), then the library's validation (what its validating webhook and the CRD schema refuse),
 * then the request's fieldValidation for unknown and duplicate fields. Every verdict is the
 * library's; this module only turns it into HTTP's words.
 */
import type { Lookups, Operation, RuleOptions } from '../index.js';
import { validateKind } from '../decode/object.js';
import { defaultObject } from '../engine/defaults.js';
import { invalid as invalidValue } from '../engine/field.js';
import { FieldPath } from '../engine/path.js';
import { pruneUnknownFields } from './prune.js';
import { badRequest, invalid, type ApiError } from './status.js';
import type { ApiResource as Resource } from './resources.js';
import type { JsonObject } from './json.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface AdmissionContext extends RuleOptions {
  groupDomain: string;
  lookups?: Lookups;
}

export interface AdmissionRequest {
  operation: Extract<Operation, 'CREATE' | 'UPDATE'>;
  /** The object to write; defaults are applied to it in place, unknown fields pruned from it. */
  object: JsonObject;
  oldObject?: JsonObject;
  subResource?: 'status';
  fieldValidation: FieldValidation;
  /** `duplicate field "<key>"` messages the decoder found in the body. */
  duplicates: readonly string[];
  /**
   * How a strict-decoding failure is answered: create and update say the body "cannot be
   * handled" (400); a patch blames the field `patch` (422), as kube-apiserver does.
   */
  strictFailure: (problems: string) => ApiError;
}

export interface Admitted {
  object: JsonObject;
  /** For `Warning: 299` headers, in the library's order, then the unknown and duplicate fields. */
  warnings: string[];
}

/** The library's words for a field the schema does not know: kube-apiserver's too. */
const UNKNOWN_FIELD = /^unknown field "(.*)"$/s;

/**
 * Admits a write to `resource`: the engine judges it by the kind's rules the resource carries
 * (looked up once, when the resources were built), so nothing here asks the registry again.
 */
export async function admit(resource: Resource, request: AdmissionRequest, context: AdmissionContext): Promise<Admitted> {
  const { operation, subResource } = request;
  const { rules } = resource;
  // A patch may rewrite `kind`; the custom resource strategy refuses that before anything else
  // (apiextensions' customResourceValidator.ValidateTypeMeta), as must the rules of the URL's kind.
  if (request.object.kind !== resource.kind) {
    throw invalid({ group: resource.group, kind: resource.kind }, nameOf(request.object), [invalidValue(KIND, request.object.kind ?? '', `must be ${resource.kind}`)]);
  }
  const object = subResource ? request.object : defaultObject(rules, request.object, { operation }).object;
  const result = await validateKind(rules, object, {
    operation,
    oldObject: request.oldObject,
    subResource,
    groupDomain: context.groupDomain,
    lookups: context.lookups,
    allowNoExecuteTaintPolicy: context.allowNoExecuteTaintPolicy,
    // Unknown fields come back as warnings, to be answered as fieldValidation asks.
    strict: false,
  });
  const unknown: string[] = [];
  const warnings: string[] = [];
  for (const warning of result.warnings) (UNKNOWN_FIELD.test(warning) ? unknown : warnings).push(warning);
  const strictProblems = [...request.duplicates, ...unknown];
  // A strict-decoding error is found while decoding, before admission: it is the answer.
  if (request.fieldValidation === 'Strict' && strictProblems.length) throw request.strictFailure(`strict decoding error: ${strictProblems.join(', ')}`);
  if (!result.allowed) {
    throw invalid({ group: resource.group, kind: resource.kind }, nameOf(object), result.causes, result.truncated ? 'and more causes, not listed' : undefined);
  }
  if (unknown.length) pruneUnknownFields(object, resource.schema);
  if (request.fieldValidation === 'Warn') warnings.push(...strictProblems);
  return { object, warnings };
}

const KIND = FieldPath.root.child('kind');

const nameOf = (object: JsonObject): string => (typeof (object.metadata as JsonObject | undefined)?.name === 'string' ? ((object.metadata as JsonObject).name as string) : '');

/** The 400 a create or update gets for a strict-decoding error. */
export const cannotBeHandled = (resource: Resource) => (problems: string): ApiError =>
  badRequest(`${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: ${problems}`);

/** Reads the `fieldValidation` query parameter; kube-apiserver's default is Warn. */
export function fieldValidationOf(value: string | undefined): FieldValidation | undefined {
  if (value === undefined || value === '') return 'Warn';
  return value === 'Strict' || value === 'Warn' || value === 'Ignore' ? value : undefined;
}
