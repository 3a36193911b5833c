/**
 * ObjectMeta rules the API server applies to every kind (apimachinery's
 * ValidateObjectMeta / ValidateObjectMetaUpdate), with the kind's own name syntax.
 */
import { index, key, type Field } from './field.js';
import { forbidden, invalid, required, tooLong } from './field-error.js';
import { FieldPath } from './path.js';
import { renderValue } from './render-value.js';
import { dns1123Label, dns1123Subdomain, qualifiedName, labelValue } from '../checks/names.js';
import { addCause, addWarning, type KindRules, type RuleContext } from './rule.js';
import { isRecord } from '../util/is.js';

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;


/**
 * A generateName as apimachinery judges it (maskTrailingDash): a prefix may end in '-', as the
 * generated suffix follows, so its last two characters stand for one 'a'. A lone '-' is no prefix
 * (only longer ones are masked), and every name made from it starts with a dash.
 */
export const maskTrailingDash = (prefix: string): string => (prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -2)}a` : prefix);

/** The path of every object's metadata. */
const METADATA = FieldPath.root.child('metadata');
// Its fields' paths, made once: a path renders its text once, and metadata.name is the field
// most causes name.
const NAME = METADATA.child('name');
const GENERATE_NAME = METADATA.child('generateName');
const NAMESPACE = METADATA.child('namespace');
const LABELS = METADATA.child('labels');
const ANNOTATIONS = METADATA.child('annotations');
const FINALIZERS = METADATA.child('finalizers');
const OWNER_REFERENCES = METADATA.child('ownerReferences');

export function checkMetadata(rules: KindRules, metadata: unknown, ctx: RuleContext): void {
  if (!isRecord(metadata)) {
    // None at all (or null, which Go decodes as none): the name is what it lacks.
    if (metadata === undefined || metadata === null) addCause(ctx, required(NAME, 'name or generateName is required'));
    return;
  }
  const nameError = rules.nameError ?? dns1123Subdomain;
  const { name, generateName, namespace, labels, annotations, finalizers, ownerReferences } = metadata;

  if (typeof name === 'string' && name !== '') {
    const problem = nameError(name);
    if (problem) addCause(ctx, invalid(NAME, name, problem));
  } else if ((name === undefined || name === '') && (typeof generateName !== 'string' || generateName === '')) {
    // A name of the wrong type is the schema's to report; a second cause would blame it twice.
    addCause(ctx, required(NAME, 'name or generateName is required'));
  }
  if (typeof generateName === 'string' && generateName !== '') {
    const problem = nameError(maskTrailingDash(generateName));
    if (problem) addCause(ctx, invalid(GENERATE_NAME, generateName, problem));
  }

  if (rules.scope === 'Cluster') {
    // The API server clears it before validation and admission (EnsureObjectNamespaceMatchesRequestNamespace):
    // kubectl apply of such a manifest succeeds, so it is no reason to deny one.
    if (typeof namespace === 'string' && namespace !== '') {
      addWarning(ctx, NAMESPACE, `${NAMESPACE}: ignored: ${rules.kind} is cluster-scoped; the API server clears the namespace before it validates or stores the object`);
    }
  } else if (typeof namespace === 'string' && namespace !== '') {
    const problem = dns1123Label(namespace);
    if (problem) addCause(ctx, invalid(NAMESPACE, namespace, problem));
  }

  if (isRecord(labels)) checkLabels(ctx, labels, LABELS);

  if (isRecord(annotations)) {
    let units = 0;
    for (const k of Object.keys(annotations)) {
      const v = annotations[k];
      const keyProblem = qualifiedName(k.toLowerCase());
      if (keyProblem) addCause(ctx, invalid(ANNOTATIONS, k, keyProblem));
      units += k.length + (typeof v === 'string' ? v.length : 0);
    }
    // The limit is in bytes, as Go's len() counts them. A UTF-16 unit takes at most 3 bytes of
    // UTF-8, so only a total near the limit needs counting byte by byte.
    if (units * 3 > TOTAL_ANNOTATION_SIZE_LIMIT && annotationBytes(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT) {
      addCause(ctx, tooLong(ANNOTATIONS, TOTAL_ANNOTATION_SIZE_LIMIT));
    }
  }

  if (Array.isArray(finalizers)) {
    // Loops, not forEach: a closure over ctx would allocate a context on every call, finalizers or not.
    for (let i = 0; i < finalizers.length; i++) {
      const f: unknown = finalizers[i];
      if (typeof f !== 'string') continue;
      const problem = qualifiedName(f);
      if (problem) addCause(ctx, invalid(index(FINALIZERS, i), f, problem));
    }
    if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
      addCause(ctx, invalid(FINALIZERS, 'foregroundDeletion', 'finalizer orphan and foregroundDeletion cannot be both set'));
    }
  }

  if (Array.isArray(ownerReferences)) {
    const controllers = ownerReferences.filter((r) => isRecord(r) && r.controller === true);
    if (controllers.length > 1) {
      addCause(ctx, invalid(OWNER_REFERENCES, ownerReferences, 'Only one reference can have Controller set to true'));
    }
    for (let i = 0; i < ownerReferences.length; i++) {
      const reference: unknown = ownerReferences[i];
      // Kubernetes' banned owners: an Event is garbage-collected on its own schedule.
      if (isRecord(reference) && reference.apiVersion === 'v1' && reference.kind === 'Event') {
        addCause(ctx, invalid(index(OWNER_REFERENCES, i), reference, 'v1 Event is disallowed from being an owner'));
      }
    }
  }
}

/**
 * Labels, or a selector's matchLabels, at `path`: each key a qualified name (the cause names the
 * map, as Kubernetes does), each string value a label value (the cause names the key).
 */
export function checkLabels(ctx: RuleContext, labels: Record<string, unknown>, path: Field): void {
  for (const k of Object.keys(labels)) {
    const v = labels[k];
    const keyProblem = qualifiedName(k);
    if (keyProblem) addCause(ctx, invalid(path, k, keyProblem));
    if (typeof v === 'string') {
      const valueProblem = labelValue(v);
      if (valueProblem) addCause(ctx, invalid(key(path, k), v, valueProblem));
    }
  }
}

/**
 * Kubernetes' ObjectMeta update rules. Fields the API server restores from the stored object
 * before it validates (creationTimestamp, generation, a uid, deletionTimestamp or grace period
 * left out) are not judged: a change there never reaches storage, so it is no mistake to deny.
 * resourceVersion is not required either: the API server fills it in for unconditional updates,
 * and the manifests a policy test updates with rarely carry one.
 */
export function checkMetadataUpdate(rules: KindRules, metadata: unknown, oldMetadata: unknown, ctx: RuleContext): void {
  if (!isRecord(metadata) || !isRecord(oldMetadata)) return;
  for (const field of rules.scope === 'Cluster' ? (['name'] as const) : (['name', 'namespace'] as const)) {
    const now = metadata[field] ?? '';
    const before = oldMetadata[field] ?? '';
    if (now !== before) addCause(ctx, invalid(field === 'name' ? NAME : NAMESPACE, now, 'field is immutable'));
  }
  if (isNonEmptyString(metadata.uid) && metadata.uid !== (oldMetadata.uid ?? '')) {
    addCause(ctx, invalid(METADATA.child('uid'), metadata.uid, 'field is immutable'));
  }
  // Set by a delete, never by an update; once set, the API server keeps the stored value.
  if (metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null && (oldMetadata.deletionTimestamp ?? null) === null) {
    addCause(ctx, invalid(METADATA.child('deletionTimestamp'), metadata.deletionTimestamp, 'field is immutable; it is set by deleting the object'));
  }
  const grace = metadata.deletionGracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace !== (oldMetadata.deletionGracePeriodSeconds ?? null)) {
    addCause(ctx, invalid(METADATA.child('deletionGracePeriodSeconds'), grace, 'field is immutable'));
  }
  if ((oldMetadata.deletionTimestamp ?? null) !== null && Array.isArray(metadata.finalizers)) {
    const before = new Set(Array.isArray(oldMetadata.finalizers) ? oldMetadata.finalizers : []);
    const added = metadata.finalizers.filter((f) => !before.has(f));
    if (added.length) {
      // Rendered as a bad value is, cut at its first 256 characters: a write adding a million finalizers
      // would otherwise answer with all of them, twice (in the message and in its cause).
      addCause(ctx, forbidden(FINALIZERS, `no new finalizers can be added if the object is being deleted, found new finalizers ${renderValue(added)}`));
    }
  }
}

function annotationBytes(annotations: Record<string, unknown>): number {
  let bytes = 0;
  for (const k of Object.keys(annotations)) {
    const v = annotations[k];
    bytes += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  return bytes;
}

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v !== '';
