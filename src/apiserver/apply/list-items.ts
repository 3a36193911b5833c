/**
 * How an item of an associative list is named: by its key fields (`k:{"name":"a"}`) in a `map`
 * list, by its value (`v:"a"`) in a `set`. Items that cannot be named are errors, worded as
 * structured-merge-diff words them.
 */
import { isRecord } from '../../util/is.js';
import { goQuote } from './go-text.js';
import { keyElement, valueElement, type PathElement } from './path-element.js';
import type { ListTopology } from './topology.js';

export class ListItemError extends Error {
  override readonly name = 'ListItemError';
}

/** The step naming `item` in the associative `list`; throws ListItemError when it has none. */
export function listItemElement(list: ListTopology, item: unknown): PathElement {
  if (list.keys.length > 0) {
    if (item === null || item === undefined) throw new ListItemError('associative list with keys may not have a null element');
    if (!isRecord(item)) throw new ListItemError('associative list with keys may not have non-map elements');
    const fields: [string, unknown][] = [];
    for (const name of list.keys) {
      if (Object.hasOwn(item, name)) fields.push([name, item[name]]);
      else if (list.keyDefaults.has(name)) fields.push([name, list.keyDefaults.get(name)]);
    }
    if (fields.length === 0) {
      throw new ListItemError(
        `associative list with keys has an element that omits all key fields [${list.keys.map(goQuote).join(' ')}] (and doesn't have default values for any key fields)`,
      );
    }
    return keyElement(fields);
  }
  if (isRecord(item)) throw new ListItemError("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new ListItemError('not supported: associative list with lists as elements');
  if (item === null || item === undefined) throw new ListItemError("associative list without keys has an element that's an explicit null");
  return valueElement(item);
}
