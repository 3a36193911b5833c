/**
 * The fields an object sets, as structured-merge-diff counts them for ownership: every scalar,
 * every atomic list or map as one field, every item of an associative list (and what it sets),
 * every key of a map, and a struct field only when it holds null or `{}` (a struct owns nothing by
 * itself being there).
 */
import { isRecord } from '../../util/is.js';
import { FieldSet, type Path } from './field-set.js';
import { listItemElement } from './list-items.js';
import { fieldElement, serializeElement, type PathElement } from './path-element.js';
import { fieldTopology, resolve, type Topology } from './topology.js';

export function toFieldSet(value: unknown, topology: Topology): FieldSet {
  const set = new FieldSet();
  visit(value, topology, [], set);
  return set;
}

function visit(value: unknown, topology: Topology, path: Path, set: FieldSet): void {
  const t = resolve(topology, value);
  if (t.kind === 'scalar') {
    set.insert(path);
  } else if (t.kind === 'list') {
    if (!t.associative) set.insert(path);
    else if (Array.isArray(value)) visitItems(value, t, path, set);
  } else if (t.atomic) {
    set.insert(path);
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      const child = value[key];
      const childPath = [...path, fieldElement(key)];
      visit(child, fieldTopology(t, key), childPath, set);
      if (child === null || (isRecord(child) && Object.keys(child).length === 0) || !t.fields.has(key)) set.insert(childPath);
    }
  }
}

/** Items of an associative list; an item listed twice (a stored object may hold such) counts once, as a whole. */
function visitItems(items: readonly unknown[], t: Extract<Topology, { kind: 'list' }>, path: Path, set: FieldSet): void {
  const elements: PathElement[] = items.map((item) => listItemElement(t, item));
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const pe of elements) {
    const id = serializeElement(pe);
    if (seen.has(id)) {
      if (!repeated.has(id)) set.insert([...path, pe]);
      repeated.add(id);
    } else {
      seen.add(id);
    }
  }
  for (let i = 0; i < items.length; i++) {
    const pe = elements[i]!;
    if (repeated.has(serializeElement(pe))) continue;
    const itemPath = [...path, pe];
    visit(items[i], t.elements, itemPath, set);
    set.insert(itemPath);
  }
}
