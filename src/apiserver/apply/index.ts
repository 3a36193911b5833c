/**
 * Server-side apply and field ownership for `fleetgate apiserver`, as kube-apiserver does them for
 * custom resources. Two entry points for the HTTP handlers, both pure (the time comes in, nothing
 * is read or stored):
 *
 * - `apply` for `PATCH` with `application/apply-patch+yaml`: merges the applied configuration into
 *   the live object (or creates it), records the applier's fields in `metadata.managedFields`,
 *   prunes what it stopped applying, and answers kube's 409 when other managers own fields it
 *   would change (unless forced).
 * - `trackUpdate` for every other write (create, update, merge and JSON patch): gives the writer
 *   the fields it changed, as kube records them.
 *
 * What stays with the handler: reading the body and query (`checkPatchOptions` for the query),
 * admission on the result, the status subresource's reset of everything but status (and the main
 * resource's of status), dry run, storing (with the live resourceVersion as precondition), and
 * answering 201 when `created`.
 */
import { apiVersion, type KindRules } from '../../engine/rule.js';
import { isRecord } from '../../util/is.js';
import { sameJson } from '../../util/json-equal.js';
import { checkLists, errorsText } from './check-lists.js';
import { conflictStatus, listConflicts, type KubeStatus } from './conflict.js';
import { applyWithManagers, updateWithManagers, type Endpoint } from './field-manager.js';
import { FieldSet } from './field-set.js';
import { ListItemError } from './list-items.js';
import {
  ManagedFieldsError,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  formatTime,
  isResetRequest,
  managedFieldsShapeError,
  readEntries,
  type Managed,
  type ManagedFieldsEntry,
} from './managed-fields.js';
import { fieldElement } from './path-element.js';
import { badRequest, checkAppliedConfiguration, checkIdentity, gvkText, internalError } from './requests.js';
import { ApplyConflicts } from './updater.js';
import { topologyOf, type Topology } from './topology.js';

export { checkPatchOptions, fieldManagerCauses, managerOrUserAgent, patchOptionsCauses, APPLY_PATCH } from './requests.js';
export { managedFieldsShapeError } from './managed-fields.js';
export { keepTimesOfUnchangedObject } from './timestamps.js';
export type { KubeStatus } from './conflict.js';
export type { ManagedFieldsEntry } from './managed-fields.js';

/** What apply needs to know of a kind. */
export interface KindInfo {
  /** `<group>/<version>`, the only version served. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly topology: Topology;
  readonly statusSubresource: boolean;
}

const kinds = new WeakMap<KindRules, Map<string, KindInfo>>();

/** The kind's info for a group domain (`karmada.io`), built once. */
export function kindInfo(rules: KindRules, groupDomain: string): KindInfo {
  let byDomain = kinds.get(rules);
  if (!byDomain) kinds.set(rules, (byDomain = new Map()));
  let info = byDomain.get(groupDomain);
  if (!info) {
    info = { apiVersion: apiVersion(rules, groupDomain), kind: rules.kind, topology: topologyOf(rules.schema), statusSubresource: rules.statusSubresource };
    byDomain.set(groupDomain, info);
  }
  return info;
}

export interface ApplyRequest {
  /** The stored object, or undefined when there is none (the apply creates it). */
  readonly live: Record<string, unknown> | undefined;
  /** The request body, parsed (YAML or JSON). */
  readonly applied: unknown;
  /** The `fieldManager` query parameter (checkPatchOptions has made sure there is one). */
  readonly manager: string;
  readonly force: boolean;
  readonly kind: KindInfo;
  /** The name in the URL. */
  readonly name: string;
  /** The namespace in the URL; undefined for a cluster-scoped kind. */
  readonly namespace?: string;
  /** `status` for the status subresource. */
  readonly subresource?: 'status';
  readonly now: Date;
}

export type ApplyResult =
  | {
      readonly ok: true;
      /** The object to admit and store, managedFields set. `live` itself when `changed` is false. */
      readonly object: Record<string, unknown>;
      /** False when the apply changes nothing at all: store nothing, keep the resourceVersion. */
      readonly changed: boolean;
      /** True when there was no live object: answer 201. */
      readonly created: boolean;
    }
  | { readonly ok: false; readonly status: KubeStatus };

export function apply(req: ApplyRequest): ApplyResult {
  try {
    return applyChecked(req);
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, status: badRequest('the object is nested too deeply to apply') };
    throw err;
  }
}

function applyChecked(req: ApplyRequest): ApplyResult {
  const { kind } = req;
  const refused = checkAppliedConfiguration(req.applied, kind.apiVersion, kind.kind);
  if (refused) return { ok: false, status: refused };
  const applied = req.applied as Record<string, unknown>;
  const appliedErrors = checkLists(applied, kind.topology, false);
  if (appliedErrors.length > 0) {
    // kube answers this with a 500; the mistake is in the request, so it is a 400 here.
    return { ok: false, status: badRequest(`failed to create typed patch object (${describe(applied)}): ${errorsText(appliedErrors)}`) };
  }
  const live = req.live === undefined ? { apiVersion: kind.apiVersion, kind: kind.kind } : withoutManagedFields(req.live);
  const liveErrors = checkLists(live, kind.topology, true);
  if (liveErrors.length > 0) return { ok: false, status: internalError(`failed to create typed live object (${describe(live)}): ${errorsText(liveErrors)}`) };
  let managed: Managed;
  try {
    managed = storedManaged(req.live);
  } catch (err) {
    if (err instanceof ManagedFieldsError) return { ok: false, status: internalError(`failed to decode managed fields: ${err.message}`) };
    throw err;
  }

  const result = applyWithManagers({ live, applied, name: req.manager, force: req.force, ep: endpoint(kind, req.subresource), now: formatTime(req.now) }, managed);
  if (result instanceof ApplyConflicts) return { ok: false, status: conflictStatus(listConflicts(result.byManager)) };
  const identified = checkIdentity(result.object, req.name, req.namespace);
  if (!identified.ok) return identified;
  const object = placeManagedFields(identified.object, encodeManagedFields(result.managed), req.live);
  if (req.live !== undefined && sameJson(object, req.live)) return { ok: true, object: req.live, changed: false, created: false };
  return { ok: true, object, changed: true, created: req.live === undefined };
}

export interface UpdateRequest {
  /** The stored object; undefined when the write creates the object. */
  readonly live: Record<string, unknown> | undefined;
  /** The object the write stores (after the patch), with the managedFields the client wrote, if any. */
  readonly updated: Record<string, unknown>;
  /** From managerOrUserAgent(fieldManager, userAgent). */
  readonly manager: string;
  readonly kind: KindInfo;
  readonly subresource?: 'status';
  readonly now: Date;
}

/**
 * `updated` with the managedFields kube would store: the writer owns what it changed. Managed
 * fields the client wrote are taken when kube would take them (a main-resource write whose
 * entries decode), cleared when they are `[]` or `[{}]`, and otherwise the stored ones are kept.
 * Never fails: where ownership cannot be worked out, the stored managedFields are kept, as kube's
 * UpdateNoErrors keeps them. Call managedFieldsShapeError first: kube refuses (422) a write whose
 * managedFields are not even of the right JSON types.
 */
export function trackUpdate(req: UpdateRequest): Record<string, unknown> {
  const { kind } = req;
  const live = req.live === undefined ? { apiVersion: kind.apiVersion, kind: kind.kind } : withoutManagedFields(req.live);
  try {
    const managed = writtenOrStoredManaged(req);
    updateWithManagers(live, withoutManagedFields(req.updated), managed, req.manager, req.live === undefined, endpoint(kind, req.subresource), formatTime(req.now));
    return placeManagedFields(req.updated, encodeManagedFields(managed), req.live);
  } catch (err) {
    if (!(err instanceof ListItemError) && !(err instanceof RangeError)) throw err;
    return placeManagedFields(req.updated, storedEntries(req.live), req.live);
  }
}

function endpoint(kind: KindInfo, subresource: string | undefined): Endpoint {
  let reset: FieldSet | undefined;
  // apiextensions' reset fields: status through the main resource (when status is a subresource), spec through status.
  if (subresource === 'status') reset = FieldSet.of([fieldElement('spec')]);
  else if (kind.statusSubresource) reset = FieldSet.of([fieldElement('status')]);
  return { topology: kind.topology, apiVersion: kind.apiVersion, kind: kind.kind, subresource: subresource ?? '', ...(reset ? { reset } : {}) };
}

const metadataOf = (object: unknown): Record<string, unknown> | undefined => {
  const m = isRecord(object) ? object.metadata : undefined;
  return isRecord(m) ? m : undefined;
};

/** `namespace/name; group/version, Kind=kind`, as kube names an object in these errors. */
function describe(object: Record<string, unknown>): string {
  const m = metadataOf(object);
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return `${text(m?.namespace)}/${text(m?.name)}; ${gvkText(object.apiVersion, object.kind)}`;
}

function withoutManagedFields(object: Record<string, unknown>): Record<string, unknown> {
  const m = metadataOf(object);
  if (!m || !Object.hasOwn(m, 'managedFields')) return object;
  const { managedFields: _, ...rest } = m;
  return { ...object, metadata: rest };
}

function storedEntries(live: Record<string, unknown> | undefined): ManagedFieldsEntry[] | undefined {
  const raw = metadataOf(live)?.managedFields;
  if (!Array.isArray(raw) || managedFieldsShapeError(raw) !== undefined) return undefined;
  return readEntries(raw);
}

/** The live object's managed fields; throws ManagedFieldsError when they do not decode. */
function storedManaged(live: Record<string, unknown> | undefined): Managed {
  const entries = storedEntries(live);
  return entries ? decodeManagedFields(entries) : emptyManaged();
}

/** kube's decodeLiveOrNew: the client's entries when usable, else the stored ones (or none). */
function writtenOrStoredManaged(req: UpdateRequest): Managed {
  const stored = (): Managed => {
    try {
      return storedManaged(req.live);
    } catch (err) {
      if (err instanceof ManagedFieldsError) return emptyManaged();
      throw err;
    }
  };
  if (req.subresource) return stored();
  const written = metadataOf(req.updated)?.managedFields;
  // kube reads no entries from a list holding anything but objects of the right shape.
  if (!Array.isArray(written) || managedFieldsShapeError(written) !== undefined || !written.every(isRecord)) return stored();
  if (isResetRequest(written)) return emptyManaged();
  try {
    const managed = decodeManagedFields(readEntries(written));
    return managed.sets.size > 0 ? managed : stored();
  } catch (err) {
    if (err instanceof ManagedFieldsError) return stored();
    throw err;
  }
}

/**
 * `object` with `metadata.managedFields` set to `entries` (or removed), placed where `reference`
 * (the stored object) has it, so a write that changes nothing keeps the object's text.
 */
function placeManagedFields(object: Record<string, unknown>, entries: ManagedFieldsEntry[] | undefined, reference: Record<string, unknown> | undefined): Record<string, unknown> {
  const metadata = metadataOf(object) ?? {};
  if (!entries && !Object.hasOwn(metadata, 'managedFields')) return object;
  const keys = Object.keys(metadata).filter((k) => k !== 'managedFields');
  const out: Record<string, unknown> = {};
  const refKeys = Object.keys(metadataOf(reference) ?? metadata);
  const at = refKeys.indexOf('managedFields');
  const after = at > 0 ? refKeys[at - 1] : undefined;
  const insertAt = at === 0 ? 0 : after !== undefined && keys.includes(after) ? keys.indexOf(after) + 1 : keys.length;
  keys.forEach((k, i) => {
    if (i === insertAt && entries) out.managedFields = entries;
    Object.defineProperty(out, k, { value: metadata[k], writable: true, enumerable: true, configurable: true });
  });
  if (insertAt >= keys.length && entries) out.managedFields = entries;
  return { ...object, metadata: out };
}
