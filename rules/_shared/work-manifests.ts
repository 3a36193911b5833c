/**
 * What Karmada's webhook does to every manifest of a Work: it prunes what a member cluster's API
 * server sets (pkg/resourceinterpreter/default/native/prune), labels the manifest with the Work's
 * permanent id, and records which annotations and labels Karmada manages. Its controllers do the
 * same to the manifests they write and compare the result with the stored Work, so this follows
 * Karmada to the letter, quirks included: a Work that differs from what they compute is written
 * again and again.
 */
import { child, index, key, type Cause } from '../../src/engine/field.js';
import { invalid, required } from '../../src/engine/field-error.js';
import { isRecord } from '../../src/util/is.js';
import type { DefaultContext } from '../../src/engine/rule.js';
import { FieldPath } from '../../src/engine/path.js';

export const WORK_PERMANENT_ID_LABEL = 'work.karmada.io/permanent-id';
export const MANAGED_ANNOTATIONS = 'resourcetemplate.karmada.io/managed-annotations';
export const MANAGED_LABELS = 'resourcetemplate.karmada.io/managed-labels';

/** Fields of a manifest's metadata that only its own API server sets, and that a member cluster refuses or overwrites. */
const SERVER_SET_METADATA = [
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'resourceVersion',
  'selfLink',
  'uid',
  'ownerReferences',
  'finalizers',
];
const DEPLOYMENT_REVISION_ANNOTATIONS = ['deployment.kubernetes.io/revision', 'deployment.kubernetes.io/revision-history'];
const JOB_SELECTOR_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];
const JOB_TEMPLATE_LABELS = ['controller-uid', 'job-name', 'batch.kubernetes.io/controller-uid', 'batch.kubernetes.io/job-name'];
const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';
const SERVICE_ACCOUNT_UID_ANNOTATION = 'kubernetes.io/service-account.uid';
const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';

type Path = readonly (string | number)[];
type Report = (cause: Cause) => void;

/** A field as JSON has it: present with a value (null included); a key holding undefined is absent. */
const present = (o: Record<string, unknown>, field: string): boolean => Object.hasOwn(o, field) && o[field] !== undefined;

export const KIND_MISSING = "Object 'Kind' is missing: the member cluster cannot apply the manifest";

/**
 * Whether the manifest can be mutated as Karmada mutates it; otherwise each reason is reported.
 * Karmada answers such a Work with an internal error (500) naming neither the manifest nor the
 * field; these causes name both.
 */
export function checkMutable(manifest: unknown, k: number, report: Report): boolean {
  const path = manifestPath(k);
  if (!isRecord(manifest)) {
    report(invalid(path, manifest ?? null, 'must be of type object: a manifest is a Kubernetes object, with apiVersion, kind and metadata'));
    return false;
  }
  let mutable = true;
  const fail: Report = (cause) => {
    mutable = false;
    report(cause);
  };
  const kind = manifest.kind;
  if (kind === undefined || kind === null || kind === '') fail(required(child(path, 'kind'), KIND_MISSING));
  else if (typeof kind !== 'string') fail(invalid(child(path, 'kind'), kind, 'must be a string'));
  if (manifest.metadata !== undefined && !isRecord(manifest.metadata)) fail(invalid(child(path, 'metadata'), manifest.metadata, 'must be an object'));
  checkPrunedFields(manifest, k, fail);
  return mutable;
}

/**
 * The fields Karmada's pruning reads, in a shape it cannot read: a label or annotation that is no
 * string, a Job's selector labels or manualSelector of the wrong type, a ServiceAccount secret that
 * is no object. No member cluster accepts such a manifest either. Karmada fails on some of these
 * and silently drops the labels or annotations of others; fleetgate refuses them all (validate()
 * reports them too). A missing or null value is read as absent, where Karmada fails on some of
 * those (a ServiceAccount secret without a name, `matchLabels: null`) that a member cluster accepts.
 */
export function checkPrunedFields(manifest: Record<string, unknown>, k: number, report: Report): void {
  // validate() runs this on every manifest of every Work: paths are made only for a mistake.
  const metadata = manifest.metadata;
  if (isRecord(metadata)) {
    if (!isStringMap(metadata.labels)) checkStringMap(metadata.labels, child(child(manifestPath(k), 'metadata'), 'labels'), report);
    if (!isStringMap(metadata.annotations)) checkStringMap(metadata.annotations, child(child(manifestPath(k), 'metadata'), 'annotations'), report);
  }
  if (manifest.kind === 'Job') checkJob(manifest.spec, child(manifestPath(k), 'spec'), report);
  else if (manifest.kind === 'ServiceAccount' && Array.isArray(manifest.secrets)) {
    manifest.secrets.forEach((secret, i) => {
      const secretPath = () => index(child(manifestPath(k), 'secrets'), i);
      if (!isRecord(secret)) report(invalid(secretPath(), secret ?? null, 'must be an object'));
      else if (secret.name != null && typeof secret.name !== 'string') report(invalid(child(secretPath(), 'name'), secret.name, 'must be a string'));
    });
  }
}

const MANIFESTS = FieldPath.of('spec', 'workload', 'manifests');
const manifestPath = (k: number): FieldPath => index(MANIFESTS, k);

/** Whether a value is absent, null, or an object whose values are strings (or null, which Go reads as ""). */
function isStringMap(value: unknown): boolean {
  if (value == null) return true;
  if (!isRecord(value)) return false;
  for (const name in value) {
    const v = value[name];
    if (typeof v !== 'string' && v != null) return false;
  }
  return true;
}

/** Each way a value is not a string map (see isStringMap). */
function checkStringMap(value: unknown, path: FieldPath, report: Report): void {
  if (value == null) return;
  if (!isRecord(value)) {
    report(invalid(path, value, 'must be an object'));
    return;
  }
  for (const name of Object.keys(value)) {
    const v = value[name];
    if (v != null && typeof v !== 'string') report(invalid(key(path, name), v, 'must be a string'));
  }
}

/** An object, or null or absent: a nested object the pruning walks through. */
function objectOrNothing(value: unknown, path: FieldPath, report: Report): value is Record<string, unknown> {
  if (value != null && !isRecord(value)) report(invalid(path, value, 'must be an object'));
  return isRecord(value);
}

function checkJob(spec: unknown, path: FieldPath, report: Report): void {
  if (!objectOrNothing(spec, path, report)) return;
  if (spec.manualSelector != null && typeof spec.manualSelector !== 'boolean') report(invalid(child(path, 'manualSelector'), spec.manualSelector, 'must be a boolean'));
  const selectorPath = child(path, 'selector');
  if (objectOrNothing(spec.selector, selectorPath, report)) checkStringMap(spec.selector.matchLabels, child(selectorPath, 'matchLabels'), report);
  const templatePath = child(path, 'template');
  if (!objectOrNothing(spec.template, templatePath, report)) return;
  const metadataPath = child(templatePath, 'metadata');
  if (objectOrNothing(spec.template.metadata, metadataPath, report)) checkStringMap(spec.template.metadata.labels, child(metadataPath, 'labels'), report);
}

/**
 * Karmada's changes to one manifest (one checkMutable accepted), stated through ctx at `at`: the
 * manifest's path from the Work's root. `id` is the Work's permanent id.
 */
export function mutateManifest(manifest: Record<string, unknown>, at: Path, id: string, ctx: DefaultContext): void {
  const metadata = isRecord(manifest.metadata) ? manifest.metadata : undefined;
  const remove = (...path: (string | number)[]) => ctx.remove([...at, ...path]);
  if (metadata) for (const field of SERVER_SET_METADATA) if (present(metadata, field)) remove('metadata', field);
  if (present(manifest, 'status')) remove('status');

  const annotations = metadata && isRecord(metadata.annotations) ? metadata.annotations : undefined;
  const removed = new Set<string>();
  const removeAnnotation = (name: string) => {
    if (!annotations || !present(annotations, name)) return;
    remove('metadata', 'annotations', name);
    removed.add(name);
  };
  const spec = isRecord(manifest.spec) ? manifest.spec : undefined;
  switch (manifest.kind) {
    case 'Deployment':
      DEPLOYMENT_REVISION_ANNOTATIONS.forEach(removeAnnotation);
      break;
    case 'Job':
      if (spec) pruneJob(spec, (...path) => remove('spec', ...path));
      break;
    case 'Secret':
      if (manifest.type === SERVICE_ACCOUNT_TOKEN) {
        removeAnnotation(SERVICE_ACCOUNT_UID_ANNOTATION);
        // The member cluster's token controller fills the data in.
        if (manifest.data !== null) ctx.set([...at, 'data'], null);
      }
      break;
    case 'ServiceAccount': {
      const secrets = withoutTokenSecrets(manifest.secrets, metadata && typeof metadata.name === 'string' ? metadata.name : '');
      if (secrets) ctx.set([...at, 'secrets'], secrets);
      break;
    }
    case 'Service':
      // A headless Service (clusterIP None) keeps it: that is a choice, not an address.
      if (spec && typeof spec.clusterIP === 'string' && spec.clusterIP !== 'None') {
        remove('spec', 'clusterIP');
        if (present(spec, 'clusterIPs')) remove('spec', 'clusterIPs');
      }
      break;
    case 'PersistentVolumeClaim': {
      const node = annotations?.[SELECTED_NODE_ANNOTATION];
      if (typeof node === 'string' && node !== '') removeAnnotation(SELECTED_NODE_ANNOTATION);
      break;
    }
  }
  recordManaged(metadata, annotations, removed, at, id, ctx);
}

/** The selector labels the member cluster generates (unless the selector is the user's: manualSelector), and the time-to-live after which it deletes the Job Karmada would recreate. */
function pruneJob(spec: Record<string, unknown>, remove: (...path: string[]) => void): void {
  if (spec.manualSelector !== true) {
    const matchLabels = isRecord(spec.selector) ? spec.selector.matchLabels : undefined;
    if (isRecord(matchLabels)) for (const label of JOB_SELECTOR_LABELS) if (present(matchLabels, label)) remove('selector', 'matchLabels', label);
    const template = isRecord(spec.template) ? spec.template : undefined;
    const labels = template && isRecord(template.metadata) ? template.metadata.labels : undefined;
    if (isRecord(labels)) for (const label of JOB_TEMPLATE_LABELS) if (present(labels, label)) remove('template', 'metadata', 'labels', label);
  }
  if (present(spec, 'ttlSecondsAfterFinished')) remove('ttlSecondsAfterFinished');
}

/**
 * The secrets without the token secrets the member cluster made for the account (`<name>-token-…`),
 * or undefined when none is removed. Karmada removes an entry in place and still advances, so it
 * steps over the entry after each one it removes: of two token secrets in a row the second stays
 * (until the next write). Its controllers compute the same, so fleetgate does too.
 */
function withoutTokenSecrets(secrets: unknown, accountName: string): unknown[] | undefined {
  if (!Array.isArray(secrets) || secrets.length === 0) return undefined;
  const prefix = `${accountName}-token-`;
  const kept = [...secrets];
  for (let i = 0; i < kept.length; i++) {
    const name = (kept[i] as Record<string, unknown>).name;
    if (typeof name === 'string' && name.startsWith(prefix)) kept.splice(i, 1);
  }
  return kept.length === secrets.length ? undefined : kept;
}

/**
 * The Work's permanent-id label on the manifest, and the annotations recording the keys of its
 * annotations and labels (Karmada's RecordManagedAnnotations and RecordManagedLabels). Karmada reads
 * annotations and labels as Go maps of strings, so a null value becomes "".
 */
function recordManaged(
  metadata: Record<string, unknown> | undefined,
  annotations: Record<string, unknown> | undefined,
  removed: ReadonlySet<string>,
  at: Path,
  id: string,
  ctx: DefaultContext,
): void {
  const labels = metadata && isRecord(metadata.labels) ? metadata.labels : undefined;
  const annotationKeys = keysOf(annotations).filter((name) => !removed.has(name) && name !== MANAGED_ANNOTATIONS && name !== MANAGED_LABELS);
  const managedAnnotations = [MANAGED_ANNOTATIONS, MANAGED_LABELS, ...annotationKeys].sort(compareCodePoints).join(',');
  const labelKeys = keysOf(labels);
  if (!labelKeys.includes(WORK_PERMANENT_ID_LABEL)) labelKeys.push(WORK_PERMANENT_ID_LABEL);
  const managedLabels = labelKeys.sort(compareCodePoints).join(',');

  const set = (path: (string | number)[], value: unknown) => ctx.set([...at, 'metadata', ...path], value);
  if (!metadata) {
    ctx.set([...at, 'metadata'], { annotations: { [MANAGED_ANNOTATIONS]: managedAnnotations, [MANAGED_LABELS]: managedLabels }, labels: { [WORK_PERMANENT_ID_LABEL]: id } });
    return;
  }
  if (!annotations) set(['annotations'], { [MANAGED_ANNOTATIONS]: managedAnnotations, [MANAGED_LABELS]: managedLabels });
  else {
    for (const name of annotationKeys) if (annotations[name] === null) set(['annotations', name], '');
    if (annotations[MANAGED_ANNOTATIONS] !== managedAnnotations) set(['annotations', MANAGED_ANNOTATIONS], managedAnnotations);
    if (annotations[MANAGED_LABELS] !== managedLabels) set(['annotations', MANAGED_LABELS], managedLabels);
  }
  if (!labels) set(['labels'], { [WORK_PERMANENT_ID_LABEL]: id });
  else {
    for (const name of labelKeys) if (labels[name] === null && name !== WORK_PERMANENT_ID_LABEL) set(['labels', name], '');
    if (labels[WORK_PERMANENT_ID_LABEL] !== id) set(['labels', WORK_PERMANENT_ID_LABEL], id);
  }
}

/** The keys JSON would write (a key holding undefined, possible in an object built in code, is none). */
const keysOf = (map: Record<string, unknown> | undefined): string[] => (map ? Object.keys(map).filter((name) => map[name] !== undefined) : []);

/**
 * Go's sort.Strings: by UTF-8 bytes, which is by code point. JavaScript compares UTF-16 code units,
 * which puts a character past U+FFFF (a surrogate pair) before U+E000–U+FFFF; these are moved so
 * the order is the code points'.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);
