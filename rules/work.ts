/** Work (work.<domain>/v1alpha1, namespaced): manifests to deploy on one member cluster, with per-manifest status. */
import { Arr, Bool, Conditions, Int32, Obj, Opt, RawObject, RawValue, ReqStr, ResourceHealth, Str, envelope, type Static } from './_shared/schema.js';
import { add, checkConditions, child, fingerprint, fingerprints, index, type Fingerprints, isInt32, isRecord, isString, judgedSpec, list, record, tupleKey } from './_shared/checks.js';
import { type Cause } from '../src/engine/field.js';
import { duplicate, invalid, required, tooMany } from '../src/engine/field-error.js';
import { storedObject, type DefaultContext, type KindRules, type RuleContext } from '../src/engine/rule.js';
import { defaultPermanentId } from './_shared/permanent-id.js';
import { KIND_MISSING, WORK_PERMANENT_ID_LABEL, checkMutable, checkPrunedFields, mutateManifest } from './_shared/work-manifests.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const STATUS_CONDITIONS = FieldPath.of('status', 'conditions');
const STATUS_MANIFEST_STATUSES = FieldPath.of('status', 'manifestStatuses');


const WorkSpec = Obj({
  // Manifests are arbitrary Kubernetes objects; only what makes them applicable is checked below.
  workload: Opt(Obj({ manifests: Opt(Arr(RawObject())) })),
  preserveResourcesOnDeletion: Opt(Bool()),
  suspendDispatching: Opt(Bool()),
});

const ResourceIdentifier = Obj({
  ordinal: Int32({ minimum: 0 }),
  group: Opt(Str()),
  version: ReqStr(),
  kind: ReqStr(),
  // Required as a key, as in Karmada's CRD: its work-status controller writes every identifier
  // with `resource: ""` (it never looks the resource up), so an empty one must pass.
  resource: Str(),
  namespace: Opt(Str()),
  name: ReqStr(),
});

const ManifestStatus = Obj({
  identifier: ResourceIdentifier,
  status: Opt(RawValue()),
  health: Opt(ResourceHealth()),
});

const WorkStatus = Obj({
  conditions: Opt(Conditions()),
  manifestStatuses: Opt(Arr(ManifestStatus)),
});

export const schema = Obj({ ...envelope, spec: WorkSpec, status: Opt(WorkStatus) });
export type Work = Static<typeof schema>;

const MANIFESTS = FieldPath.of('spec', 'workload', 'manifests');

/**
 * The most manifests a Work is mutated with: the patch for a 6 MiB request of half a million tiny
 * manifests would be a quarter of a gigabyte, and take many seconds to make (Karmada makes it).
 */
export const MAX_MUTATED_MANIFESTS = 10_000;

const tooManyManifests = (count: number): Cause =>
  tooMany(
    MANIFESTS,
    count,
    MAX_MUTATED_MANIFESTS,
    "each manifest gains Karmada's id label and records (some 300 bytes), so a Work of more cannot be stored (etcd keeps objects up to 1.5 MiB by default)",
  );

/** Missing, null or empty: not given, as Go decodes a manifest's string fields. */
const unset = (value: unknown): boolean => value === undefined || value === null || value === '';

/** A string field every manifest needs: missing or empty is Required, another type Invalid. */
function requireString(ctx: RuleContext, value: unknown, path: FieldPath, detail: string): boolean {
  if (isString(value) && value !== '') return true;
  if (unset(value)) add(ctx, required(path, detail));
  else add(ctx, invalid(path, value, 'must be a string'));
  return false;
}

/** The manifest's identity on the member cluster, or undefined when it has none yet (generateName) or is malformed. */
function manifestKey(ctx: RuleContext, manifest: unknown, k: number): string | undefined {
  if (!isRecord(manifest)) return undefined; // the schema reports non-objects
  const { apiVersion, kind, metadata } = manifest;
  // The common case, a complete manifest, needs no field paths.
  if (isString(kind) && kind !== '' && isString(apiVersion) && apiVersion !== '' && isRecord(metadata) && isString(metadata.name) && metadata.name !== '') {
    return tupleKey(groupOf(apiVersion), kind, isString(metadata.namespace) ? metadata.namespace : '', metadata.name);
  }
  return incompleteManifestKey(ctx, manifest, index(MANIFESTS, k));
}

/** Two versions of one group are the same object: manifests compare by group, not apiVersion. */
const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
};

function incompleteManifestKey(ctx: RuleContext, manifest: Record<string, unknown>, path: FieldPath): string | undefined {
  const hasKind = requireString(ctx, manifest.kind, child(path, 'kind'), KIND_MISSING);
  const hasApiVersion = requireString(ctx, manifest.apiVersion, child(path, 'apiVersion'), 'the member cluster cannot apply a manifest without apiVersion');
  const metadataPath = child(path, 'metadata');
  if (manifest.metadata !== undefined && !isRecord(manifest.metadata)) {
    add(ctx, invalid(metadataPath, manifest.metadata, 'must be an object'));
    return undefined;
  }
  const metadata = record(manifest.metadata);
  const generated = isString(metadata.generateName) && metadata.generateName !== '';
  if (generated && unset(metadata.name)) return undefined;
  const hasName = requireString(ctx, metadata.name, child(metadataPath, 'name'), 'name or generateName is required');
  if (!hasKind || !hasApiVersion || !hasName) return undefined;
  return tupleKey(groupOf(manifest.apiVersion as string), manifest.kind as string, isString(metadata.namespace) ? metadata.namespace : '', metadata.name as string);
}

function validate(work: Work, ctx: RuleContext): void {
  const seen = new Set<string>();
  const report = (cause: Cause) => add(ctx, cause);
  const manifests = list(record(record(work.spec).workload).manifests);
  if (manifests.length > MAX_MUTATED_MANIFESTS) add(ctx, tooManyManifests(manifests.length));
  manifests.forEach((manifest, k) => {
    // What the mutating webhook refuses to prune is no manifest a member cluster applies either.
    if (isRecord(manifest)) checkPrunedFields(manifest, k, report);
    const id = manifestKey(ctx, manifest, k);
    if (id === undefined) return;
    if (!seen.has(id)) {
      seen.add(id);
      return;
    }
    const m = manifest as Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: unknown } };
    const namespace = isString(m.metadata.namespace) ? m.metadata.namespace : '';
    add(ctx, duplicate(index(MANIFESTS, k), { group: groupOf(m.apiVersion), kind: m.kind, namespace, name: m.metadata.name }, 'a manifest may appear once per group, kind, namespace and name'));
  });
}

/**
 * On an update of the Work itself the API server keeps the stored status, written for the
 * manifests as they were: removing a manifest must not turn the stored entry for it into an
 * error, then or on a later status write that leaves the entry as it is. The identifiers of
 * the stored entries, so the ordinal check judges only what a write changes.
 */
function storedIdentifiers(ctx: RuleContext): Fingerprints {
  const entries = list(record(storedObject(ctx)?.status).manifestStatuses);
  return fingerprints(entries.map((e) => record(record(e).identifier)));
}

const ordinalRange = (count: number): string =>
  count === 0 ? 'must index spec.workload.manifests, which is empty' : `must index spec.workload.manifests (0 to ${count - 1})`;

function validateStatus(work: Work, ctx: RuleContext): void {
  const status = record(work.status);
  checkConditions(ctx, status.conditions, STATUS_CONDITIONS);
  // The ordinals index the manifests of the spec the write is judged against. Without a list
  // (none given, or not a list, which the schema reports) there is nothing to judge them by.
  const manifests = record(judgedSpec(work, ctx).workload).manifests;
  const count = Array.isArray(manifests) ? manifests.length : undefined;
  // Read from the stored object only when an ordinal is out of range: the usual status has none.
  let stored: Fingerprints | undefined;
  const seen = new Set<number>();
  list(status.manifestStatuses).forEach((manifestStatus, i) => {
    const identifier = record(record(manifestStatus).identifier);
    const ordinal = identifier.ordinal;
    if (!isInt32(ordinal) || ordinal < 0) return; // the schema reports it
    const path = child(child(index(STATUS_MANIFEST_STATUSES, i), 'identifier'), 'ordinal');
    if (count !== undefined && ordinal >= count && !(stored ??= storedIdentifiers(ctx)).has(fingerprint(identifier))) {
      add(ctx, invalid(path, ordinal, `${ordinalRange(count)}: the ordinal is the manifest's position in that list`));
      return;
    }
    if (seen.has(ordinal)) add(ctx, duplicate(path, ordinal, 'each manifest has one status'));
    else seen.add(ordinal);
  });
}

/**
 * Karmada's mutation of every Work write: the permanent-id label, then each manifest pruned and
 * labelled (see work-manifests.ts). A Work with a manifest that cannot be is refused whole, as
 * Karmada's webhook fails on it.
 */
function defaults(work: Work, ctx: DefaultContext): void {
  const id = defaultPermanentId(work, WORK_PERMANENT_ID_LABEL, ctx);
  if (id === undefined) return;
  const manifests = record(record(work.spec).workload).manifests;
  // No list (or none at all) is validation's to report; there is nothing to prune.
  if (!Array.isArray(manifests)) return;
  if (manifests.length > MAX_MUTATED_MANIFESTS) {
    ctx.refuse(tooManyManifests(manifests.length));
    return;
  }
  let mutable = true;
  manifests.forEach((manifest, k) => {
    if (!checkMutable(manifest, k, ctx.refuse)) mutable = false;
  });
  if (!mutable) return;
  manifests.forEach((manifest, k) => mutateManifest(manifest as Record<string, unknown>, ['spec', 'workload', 'manifests', k], id, ctx));
}

export const rules: KindRules<Work> = {
  kind: 'Work',
  group: 'work',
  version: 'v1alpha1',
  plural: 'works',
  scope: 'Namespaced',
  statusSubresource: true,
  schema,
  validate,
  validateStatus,
  defaults,
  permanentIdLabel: WORK_PERMANENT_ID_LABEL,
};
