/**
 * The check structured-merge-diff makes before it merges an object: every item of an associative
 * list can be named, and (in an applied configuration) no two items share a name. Stored objects
 * may hold duplicates (written by updates, which allow them); an applied configuration may not.
 */
import { isRecord } from '../../util/is.js';
import { ListItemError, listItemElement } from './list-items.js';
import { elementText, serializeElement } from './path-element.js';
import { fieldTopology, resolve, type Topology } from './topology.js';

/** The problems, each `<path>: <message>` as structured-merge-diff words it; empty when there are none. */
export function checkLists(value: unknown, topology: Topology, allowDuplicates: boolean): string[] {
  const errors: string[] = [];
  walk(value, topology, '', allowDuplicates, errors);
  return errors;
}

function walk(value: unknown, topology: Topology, path: string, allowDuplicates: boolean, errors: string[]): void {
  const t = resolve(topology, value);
  if (t.kind === 'map' && isRecord(value)) {
    for (const key of Object.keys(value)) walk(value[key], fieldTopology(t, key), `${path}.${key}`, allowDuplicates, errors);
  } else if (t.kind === 'list' && Array.isArray(value)) {
    const seen = new Set<string>();
    for (let i = 0; i < value.length; i++) {
      let step = `[${i}]`;
      if (t.associative) {
        let pe;
        try {
          pe = listItemElement(t, value[i]);
        } catch (err) {
          if (!(err instanceof ListItemError)) throw err;
          errors.push(`${path}: element ${i}: ${err.message}`);
          return;
        }
        step = elementText(pe);
        const id = serializeElement(pe);
        if (seen.has(id) && !allowDuplicates) errors.push(`${path}: duplicate entries for key ${step}`);
        seen.add(id);
      }
      walk(value[i], t.elements, `${path}${step}`, allowDuplicates, errors);
    }
  }
}

/** Errors as one text, the way structured-merge-diff's ValidationErrors print. */
export const errorsText = (errors: readonly string[]): string =>
  errors.length === 1 ? errors[0]! : ['errors:', ...errors.map((e) => `  ${e}`)].join('\n');
