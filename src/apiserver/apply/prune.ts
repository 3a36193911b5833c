/**
 * Pruning, as structured-merge-diff's Updater prunes after a merge: a field, map key or list item
 * goes when the applier applied it last time, does not apply it now, and no manager (the applier
 * with its new configuration included) owns it. Struct fields count as owned by whoever owns a
 * field inside them, so a struct is removed only when nothing in it is owned any more.
 */
import { FieldSet } from './field-set.js';
import { removeItems } from './remove-items.js';
import { toFieldSet } from './to-field-set.js';
import { fieldTopology, type Topology } from './topology.js';

/** `set` with every struct field that has owned fields below it counted as a member too. */
export function withNamedFields(set: FieldSet, topology: Topology): FieldSet {
  const out = new FieldSet([...set.members]);
  const children = set.children.map((c) => {
    let below: Topology = NO_FIELDS;
    if (c.pe.kind === 'field' && topology.kind === 'map') {
      below = fieldTopology(topology, c.pe.name);
      if (topology.fields.has(c.pe.name)) out.insert([c.pe]);
    } else if (c.pe.kind === 'key' && topology.kind === 'list') {
      below = topology.elements;
    }
    return { pe: c.pe, set: withNamedFields(c.set, below) };
  });
  return new FieldSet(out.members, children);
}

/** Topology that names no field (a step the schema says nothing about). */
const NO_FIELDS: Topology = { kind: 'scalar' };

/**
 * The merged object with what the applier stopped applying removed.
 * @param merged live object with the configuration merged in
 * @param lastApplied what the applier owned before this apply (undefined: nothing to prune)
 * @param managed every manager's set after this apply, the applier's new one included
 */
export function prune(merged: unknown, lastApplied: FieldSet | undefined, managed: readonly FieldSet[], topology: Topology): unknown {
  if (!lastApplied || lastApplied.empty()) return merged;
  const last = withNamedFields(lastApplied, topology);
  const named = (value: unknown): FieldSet => withNamedFields(toFieldSet(value, topology), topology);
  const mergedSet = named(merged);

  const removedOnce = removeItems(merged, last, topology);
  let owned = new FieldSet();
  for (const s of managed) owned = owned.union(s);
  // Put back what someone owns: take from the merged object only what neither survived nor is owned.
  const ownedBack = removeItems(merged, mergedSet.difference(named(removedOnce).union(withNamedFields(owned, topology))), topology);
  // Remove only what the applier owned last time; what nobody ever owned stays.
  return removeItems(merged, mergedSet.difference(named(ownedBack)).intersection(last), topology);
}
