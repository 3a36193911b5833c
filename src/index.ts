/**
 * fleetgate: validation, defaulting and admission review for the control plane's
 * 13 custom resource kinds. Pure: no I/O beyond loading modules on first use (the precompiled
 * schemas, and the parsers and IANA zone list a check needs), no global state beyond compiled schemas and bounded caches of verdicts.
 */
export { validate, type ValidateOptions, type ValidationResult } from './validate.js';
export { applyDefaults, type DefaultOptions, type DefaultResult, type PatchOperation } from './defaults.js';
export { review, type ReviewOptions, type AdmissionReview, type AdmissionRequest, type AdmissionResponse } from './admission/review.js';
export { formatCause, aggregate, type Cause, type CauseType, type Warning } from './field.js';
export type { Lookups, Service, Operation, RuleOptions, KindRules } from './rule.js';
export { ContextUnavailableError, MAX_CAUSES, MAX_WARNINGS } from './rule.js';
export { DELETION_PROTECTION_LABEL, DELETION_PROTECTED_MESSAGE } from './deletion-protection.js';
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
