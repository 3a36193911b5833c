/**
 * fleetgate: validation, defaulting and admission review for the control plane's
 * 13 custom resource kinds. Pure: no I/O beyond loading modules on first use (the precompiled
 * schemas, and the parsers and IANA zone list a check needs), no global state beyond compiled schemas and bounded caches of verdicts.
 */
export { validate, applyDefaults, type ValidateOptions, type ValidationResult, type DefaultOptions, type DefaultResult, type PatchOperation } from './decode/object.js';
export { review, type ReviewOptions, type AdmissionReview, type AdmissionRequest, type AdmissionResponse } from './admission/review.js';
export { formatCause, aggregate, type Cause, type CauseType, type Warning } from './engine/field.js';
export type { Lookups, Service, Operation, RuleOptions, KindRules } from './engine/rule.js';
export { ContextUnavailableError, MAX_CAUSES, MAX_WARNINGS } from './engine/rule.js';
export { DELETION_PROTECTION_LABEL, DELETION_PROTECTED_MESSAGE } from './engine/deletion-protection.js';
export {
  kinds,
  kindsFor,
  ruleModules,
  supportedKinds,
  apiGroup,
  apiVersion,
  DEFAULT_GROUP_DOMAIN,
  type KindInfo,
} from '../rules/index.js';
export type * from '../rules/types.js';
