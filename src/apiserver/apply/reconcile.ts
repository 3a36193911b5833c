/**
 * Managed-field sets written under an older schema, brought in line with the current one, as
 * structured-merge-diff's ReconcileFieldSetWithSchema does: fields inside a list or map that has
 * since become atomic collapse into ownership of the atomic value itself.
 */
import { FieldSet, type Path } from './field-set.js';
import type { PathElement } from './path-element.js';
import type { Topology } from './topology.js';

/** The reconciled set, or undefined when `set` already fits the topology. */
export function reconcileWithSchema(set: FieldSet, topology: Topology): FieldSet | undefined {
  const collapse: Path[] = [];
  visit(set, topology, [], false, collapse);
  if (collapse.length === 0) return undefined;
  const atomic = FieldSet.of(...collapse);
  return set.recursiveDifference(atomic).union(atomic);
}

function visit(node: FieldSet | undefined, topology: Topology, path: Path, isAtomic: boolean, collapse: Path[]): void {
  if (topology.kind === 'scalar' || topology.kind === 'deduced') return;
  if (topology.kind === 'list') {
    if (!isAtomic && !topology.associative) {
      collapse.push(path);
      return;
    }
    if (node) visitSteps(node, () => topology.elements, path, collapse);
    return;
  }
  if (topology.fields.size === 0 && topology.elements.kind === 'deduced') return;
  if (!isAtomic && topology.atomic) {
    if (node && !node.empty()) collapse.push(path);
    return;
  }
  if (node) visitSteps(node, (pe) => (pe.kind === 'field' ? (topology.fields.get(pe.name) ?? topology.elements) : topology.elements), path, collapse);
}

/** Steps that only lead further first, then members, as structured-merge-diff walks them. */
function visitSteps(node: FieldSet, below: (pe: PathElement) => Topology, path: Path, collapse: Path[]): void {
  const step = (pe: PathElement, isMember: boolean): void => {
    const t = below(pe);
    const child = node.child(pe);
    visit(child, t, [...path, pe], isMember && !child, collapse);
  };
  for (const c of node.children) if (!node.hasMember(c.pe)) step(c.pe, false);
  for (const pe of node.members) step(pe, true);
}
