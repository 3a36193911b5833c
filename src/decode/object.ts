/**
 * The library's entry points, validate() and applyDefaults(): they decode what an object is (an
 * operation fleetgate judges? a kind it serves?), look the kind's rules up in the registry once,
 * and hand them to the engine (src/engine), which knows no registry.
 */
import { renderList, renderValue } from '../engine/field.js';
import { invalid, notSupported, required } from '../engine/field-error.js';
import { judgeDelete, judgeObject, judgedOnly, NO_OPTIONS, type StoredWithDefaults, type ValidateOptions, type ValidationResult } from '../engine/validate.js';
import { defaultObject, mutationOf, type DefaultOptions, type DefaultResult, type PatchOperation } from '../engine/defaults.js';
import type { KindRules, MaybePromise } from '../engine/rule.js';
import { rulesFor, supportedKinds } from '../../rules/index.js';
import { permanentIdOf } from '../../rules/_shared/permanent-id.js';
import { isRecord } from '../util/is.js';
import { FieldPath } from '../engine/path.js';

const KIND = FieldPath.of('kind');

/**
 * Validates one object of a served kind. Returns synchronously unless a lookup
 * answers with a Promise; `await` works either way.
 */
export function validate(object: unknown, options?: ValidateOptions & { lookups?: undefined }): ValidationResult;
export function validate(object: unknown, options?: ValidateOptions): MaybePromise<ValidationResult>;
export function validate(object: unknown, options: ValidateOptions = NO_OPTIONS): MaybePromise<ValidationResult> {
  return validateWithRules(rulesOf(object), object, options);
}

/**
 * validate(), with the rules of the object's kind looked up already (rulesOf): for a caller that
 * also defaults the object (the policy-test runner), so the kind is looked up once.
 */
export function validateWithRules(rules: KindRules | undefined, object: unknown, options: ValidateOptions = NO_OPTIONS): MaybePromise<ValidationResult> {
  const operation = options.operation;
  if (operation === 'DELETE') return judgeDelete(options.oldObject ?? object);
  if (operation === 'CONNECT') return judgedOnly({});
  const subResource = options.subResource ?? '';
  if (subResource !== '' && subResource !== 'status') {
    return judgedOnly({ warning: `subresource ${renderValue(subResource)} not judged: fleetgate judges the objects and their status subresource` });
  }
  if (!isRecord(object)) {
    return judgedOnly({ cause: invalid(FieldPath.root, object === undefined ? null : object, 'must be a Kubernetes object (a JSON object with apiVersion, kind and metadata)') });
  }
  if (!rules) {
    const kind = object.kind;
    if (kind === undefined || kind === null || kind === '') return judgedOnly({ cause: required(KIND, `supported values: ${renderList(supportedKinds)}`) });
    return judgedOnly({ cause: notSupported(KIND, kind, supportedKinds) });
  }
  return validateKind(rules, object, options);
}

/**
 * validate() of an object whose kind the caller has decoded already (an AdmissionReview's). Only an
 * UPDATE has a stored object to default; the options go through uncopied either way.
 */
export const validateKind = (rules: KindRules, object: Record<string, unknown>, options: ValidateOptions): MaybePromise<ValidationResult> =>
  judgeObject(rules, object, options, options.operation === 'UPDATE' ? storedDefaulter(rules) : undefined);

/**
 * How an UPDATE's stored object is defaulted. Apart from validateKind, whose every call would
 * otherwise allocate a context for the closure's `rules`, CREATE or not. Handed to the engine
 * beside the options, not in a copy of them made for every UPDATE, which measured dearer.
 */
const storedDefaulter = (rules: KindRules): StoredWithDefaults => (stored, written) => storedWithDefaults(rules, stored, written);

/**
 * The stored object with fleetgate's defaults filled in, as the mutating webhook filled them into
 * the write; as it is when it cannot be copied (a function in it: no JSON). A permanent id the
 * stored object lacks is the one the write carries, which that webhook gave it in this request: a
 * fresh UUID would make every section it reaches (a Work's manifests) look changed.
 */
function storedWithDefaults(rules: KindRules, stored: Record<string, unknown>, object: Record<string, unknown>): Record<string, unknown> {
  const label = rules.permanentIdLabel;
  const id = label === undefined ? undefined : permanentIdOf(object, label);
  try {
    return defaultObject(rules, stored, { operation: 'UPDATE', ...(id !== undefined ? { uuid: () => id } : {}) }).object;
  } catch {
    return stored;
  }
}

/** The kind's rules of an object, if it is one of a served kind: the one registry lookup of an entry point. */
export const rulesOf = (object: unknown): KindRules | undefined => (isRecord(object) ? rulesFor(object.kind) : undefined);

/** Never mutates `object`. Objects of kinds fleetgate does not serve come back unchanged. */
export const applyDefaults = <T>(object: T, options: DefaultOptions = {}): DefaultResult<T> => defaultObject(rulesOf(object), object, options);

/** applyDefaults(), with the rules of the object's kind looked up already (rulesOf). */
export const applyDefaultsWithRules = <T>(rules: KindRules | undefined, object: T, options: DefaultOptions = {}): DefaultResult<T> => defaultObject(rules, object, options);

/** The patch alone: what the mutating webhook answers (none for an object it refuses). */
export const defaultsPatch = (object: unknown, options: DefaultOptions = {}): PatchOperation[] => mutationOf(rulesOf(object), object, options).patch;

/** The patch, or the causes the object is refused for: what the mutating webhook answers. */
export const mutation = (object: unknown, options: DefaultOptions = {}): Omit<DefaultResult, 'object'> => mutationOf(rulesOf(object), object, options);

export type { ValidateOptions, ValidationResult, DefaultOptions, DefaultResult, PatchOperation };
