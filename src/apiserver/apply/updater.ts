/**
 * Ownership bookkeeping over the managers of one object, as structured-merge-diff's Updater keeps
 * it. An apply merges the configuration, makes the applier own exactly what it applied, prunes
 * what it stopped applying, and takes changed fields from the other managers, which is a
 * conflict unless forced. An update (any other write) makes the writer own what it changed and
 * takes it from the others, never a conflict.
 */
import { sameJson } from '../../util/json-equal.js';
import { compareObjects, type Comparison } from './compare.js';
import { FieldSet } from './field-set.js';
import { mergeValues } from './merge.js';
import { prune } from './prune.js';
import { reconcileWithSchema } from './reconcile.js';
import { toFieldSet } from './to-field-set.js';
import type { Topology } from './topology.js';

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** Whether the set came from an apply (operation Apply) or an update. */
  readonly applied: boolean;
}

/** Managers by identifier (see managed-fields.ts), in no particular order. */
export type ManagerSets = Map<string, VersionedSet>;

export interface Schema {
  readonly topology: Topology;
  /** The version objects are served in; sets recorded in another one are dropped, as kube drops sets of unserved versions. */
  readonly apiVersion: string;
  /** Fields this endpoint does not write (status through the main resource, spec through status): left out of ownership. */
  readonly reset?: FieldSet;
}

export interface ApplyOutcome {
  /** The new object, or undefined when the apply changes nothing in it. */
  readonly object: unknown;
  readonly managers: ManagerSets;
}

/** Fields other managers own that the apply would change: by manager identifier. */
export class ApplyConflicts {
  constructor(readonly byManager: ReadonlyMap<string, FieldSet>) {}
}

const filter = (set: FieldSet, reset: FieldSet | undefined): FieldSet => (reset ? set.recursiveDifference(reset) : set);

function reconcile(managers: ManagerSets, schema: Schema): ManagerSets {
  const out: ManagerSets = new Map();
  for (const [id, vs] of managers) {
    if (vs.apiVersion !== schema.apiVersion) continue; // kube cannot convert it, and skips it here
    const reconciled = reconcileWithSchema(vs.set, schema.topology);
    out.set(id, reconciled ? { ...vs, set: reconciled } : vs);
  }
  return out;
}

/** Takes what changed between `live` and `next` from every manager but `workflow`; conflicts unless `force`. */
function takeChanged(live: unknown, next: unknown, managers: ManagerSets, workflow: string, force: boolean, schema: Schema): Comparison | ApplyConflicts {
  const raw = compareObjects(live, next, schema.topology);
  const compare: Comparison = { added: filter(raw.added, schema.reset), removed: filter(raw.removed, schema.reset), modified: filter(raw.modified, schema.reset) };
  const changed = compare.modified.union(compare.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, vs] of managers) {
    if (id === workflow) continue;
    if (vs.apiVersion !== schema.apiVersion) {
      managers.delete(id);
      continue;
    }
    const taken = vs.set.intersection(changed);
    if (!taken.empty()) conflicts.set(id, taken);
  }
  if (!force && conflicts.size > 0) return new ApplyConflicts(conflicts);
  for (const [id, vs] of managers) {
    if (id === workflow) continue;
    const rest = vs.set.difference(conflicts.get(id) ?? EMPTY).difference(compare.removed);
    if (rest.empty()) managers.delete(id);
    else if (!rest.equals(vs.set)) managers.set(id, { ...vs, set: rest });
  }
  const own = managers.get(workflow);
  if (own && own.set.empty()) managers.delete(workflow);
  return compare;
}

const EMPTY = new FieldSet();

export function applyConfiguration(
  live: unknown,
  config: unknown,
  given: ManagerSets,
  manager: string,
  force: boolean,
  schema: Schema,
): ApplyOutcome | ApplyConflicts {
  const managers = reconcile(given, schema);
  const last = managers.get(manager);
  const applied = filter(toFieldSet(config, schema.topology), schema.reset);
  managers.set(manager, { set: applied, apiVersion: schema.apiVersion, applied: true });
  let merged = mergeValues(live, config, schema.topology);
  // Pruning removes only fields the applier owned before and does not apply now: when it still
  // applies all of them there is nothing to remove, and the walks can be skipped.
  if (last && !last.set.difference(applied).empty()) {
    merged = prune(merged, last.set, [...managers.values()].map((vs) => vs.set), schema.topology);
  }
  const taken = takeChanged(live, merged, managers, manager, force, schema);
  if (taken instanceof ApplyConflicts) return taken;
  return { object: sameJson(live, merged) ? undefined : merged, managers };
}

export function recordUpdate(live: unknown, next: unknown, given: ManagerSets, manager: string, schema: Schema): ManagerSets {
  const managers = reconcile(given, schema);
  const compare = takeChanged(live, next, managers, manager, true, schema) as Comparison;
  const before = managers.get(manager)?.set ?? EMPTY;
  const set = filter(before.difference(compare.removed).union(compare.modified).union(compare.added), schema.reset);
  if (set.empty()) managers.delete(manager);
  else managers.set(manager, { set, apiVersion: schema.apiVersion, applied: false });
  return managers;
}
