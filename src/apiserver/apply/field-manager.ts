/**
 * kube-apiserver's field manager, layer by layer (apimachinery's NewDefaultFieldManager), on
 * objects whose managedFields are already decoded:
 *
 *   LastAppliedUpdater → LastAppliedManager → SkipNonApplied → CapManagers → BuildManagerInfo
 *   → ManagedFieldsUpdater → StripMeta → the Updater (updater.ts)
 *
 * Pure: the time comes in, nothing is read or written elsewhere.
 */
import { FieldSet } from './field-set.js';
import { LAST_APPLIED_MANAGER, fieldsStillAsLastApplied, hasLastApplied, lastAppliedValue, withLastApplied } from './last-applied.js';
import { copyManaged, managerIdentifier, type Managed } from './managed-fields.js';
import { fieldElement } from './path-element.js';
import { ApplyConflicts, applyConfiguration, recordUpdate, type Schema } from './updater.js';

export interface Endpoint extends Schema {
  readonly kind: string;
  /** `status`, or '' for the main resource: managers are told apart by it. */
  readonly subresource: string;
}

/** At most this many update managers are kept; the oldest are merged into `ancient-changes`. */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';

/** Never owned by anyone: the identity and bookkeeping fields. */
const STRIPPED = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [fieldElement('metadata'), fieldElement(f)]),
);

function strip(managed: Managed, id: string): void {
  const vs = managed.sets.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.empty()) managed.sets.delete(id);
  else managed.sets.set(id, { ...vs, set });
}

const identifier = (name: string, operation: 'Apply' | 'Update', ep: Endpoint): string =>
  managerIdentifier({ manager: name || 'unknown', operation, apiVersion: ep.apiVersion, subresource: ep.subresource });

export interface Applied {
  /** The object as the apply leaves it (managedFields not set): `live` itself when the apply changes nothing in it. */
  readonly object: Record<string, unknown>;
  readonly managed: Managed;
}

/** One apply request, as the layers pass it down. */
export interface ApplyCall {
  /** The stored object without its managedFields, or for a create the empty object (apiVersion and kind). */
  readonly live: Record<string, unknown>;
  readonly applied: Record<string, unknown>;
  /** The field manager's name. */
  readonly name: string;
  readonly force: boolean;
  readonly ep: Endpoint;
  /** RFC 3339, whole seconds. */
  readonly now: string;
}

/** An apply, given the live object's decoded managed fields (left as they are). */
export function applyWithManagers(call: ApplyCall, managed: Managed): Applied | ApplyConflicts {
  const result = applyAllowingLastApplied(call, managed);
  if (result instanceof ApplyConflicts) return result;
  if (call.name === LAST_APPLIED_MANAGER && hasLastApplied(result.object)) {
    return { object: withLastApplied(result.object, lastAppliedValue(call.applied)), managed: result.managed };
  }
  return result;
}

/** LastAppliedManager: for `kubectl`, conflicts on values kubectl itself applied client-side force the apply. */
function applyAllowingLastApplied(call: ApplyCall, managed: Managed): Applied | ApplyConflicts {
  const result = applyTrackingExisting(call, copyManaged(managed));
  if (call.name !== LAST_APPLIED_MANAGER || !(result instanceof ApplyConflicts)) return result;
  const allowed = fieldsStillAsLastApplied(call.live, call.ep.apiVersion, call.ep.topology);
  if (!allowed) return result;
  let conflicting = new FieldSet();
  for (const set of result.byManager.values()) conflicting = conflicting.union(set);
  if (!conflicting.difference(allowed).empty()) {
    const rest = new Map<string, FieldSet>();
    for (const [id, set] of result.byManager) {
      const left = FieldSet.of(...set.paths().filter((p) => !allowed.has(p)));
      if (!left.empty()) rest.set(id, left);
    }
    return new ApplyConflicts(rest);
  }
  return applyTrackingExisting({ ...call, force: true }, copyManaged(managed));
}

/** SkipNonApplied: an object nobody manages yet is first given, field by field, to `before-first-apply`. */
function applyTrackingExisting(call: ApplyCall, managed: Managed): Applied | ApplyConflicts {
  const { live, ep, now } = call;
  if (managed.sets.size === 0) updateCapped({ apiVersion: ep.apiVersion, kind: ep.kind }, live, managed, BEFORE_FIRST_APPLY, ep, now);
  const id = identifier(call.name, 'Apply', ep);
  const outcome = applyConfiguration(live, call.applied, managed.sets, id, call.force, ep);
  if (outcome instanceof ApplyConflicts) return outcome;
  const result: Managed = { sets: outcome.managers, times: managed.times };
  strip(result, id);
  if (outcome.object === undefined) return { object: live, managed: result };
  result.times.set(id, now);
  return { object: outcome.object as Record<string, unknown>, managed: result };
}

/**
 * A write other than apply: `managed` (changed in place) gives the writer what it changed.
 * An object nobody manages is left so unless this write creates it.
 */
export function updateWithManagers(live: unknown, next: unknown, managed: Managed, name: string, creating: boolean, ep: Endpoint, now: string): void {
  if (managed.sets.size === 0 && !creating) return;
  updateCapped(live, next, managed, name, ep, now);
}

/** CapManagers around BuildManagerInfo, ManagedFieldsUpdater and StripMeta for an update. */
function updateCapped(live: unknown, next: unknown, managed: Managed, name: string, ep: Endpoint, now: string): void {
  const id = identifier(name, 'Update', ep);
  const sets = recordUpdate(live, next, managed.sets, CURRENT_OPERATION, ep);
  managed.sets.clear();
  for (const [k, v] of sets) managed.sets.set(k, v);
  strip(managed, CURRENT_OPERATION);
  const current = managed.sets.get(CURRENT_OPERATION);
  if (current) {
    managed.sets.delete(CURRENT_OPERATION);
    const previous = managed.sets.get(id);
    managed.sets.set(id, { ...current, set: previous ? current.set.union(previous.set) : current.set });
    managed.times.set(id, now);
  }
  capUpdateManagers(managed);
}

const seconds = (time: string | undefined): number => (time === undefined ? 0 : Math.floor(Date.parse(time) / 1000));

/**
 * Past MAX_UPDATE_MANAGERS update managers, the oldest are merged, per apiVersion, into one
 * `ancient-changes` entry, as kube's CapManagers does. One difference: where kube would merge an
 * existing `ancient-changes` entry into itself and then delete it (losing what it held), its
 * version's oldest manager is merged into it instead.
 */
function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.sets].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort((a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let count = updaters.length;
  for (let i = 0; i < updaters.length && count > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i]!;
    const vs = managed.sets.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.sets.has(bucket)) {
      managed.sets.set(bucket, managed.sets.get(first)!);
      managed.sets.delete(first);
    }
    const merged = id === bucket ? first : id;
    const into = managed.sets.get(bucket)!;
    const from = managed.sets.get(merged);
    if (from) managed.sets.set(bucket, { ...from, set: from.set.union(into.set) });
    managed.sets.delete(merged);
    count--;
    managed.times.set(bucket, time);
  }
}
