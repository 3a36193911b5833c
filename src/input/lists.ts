/**
 * `List` objects unpacked into their items, as kubectl unpacks them: a `List` of any objects, and
 * the API server's typed lists (`ServiceList` from `kubectl get --raw`), whose items leave kind
 * and apiVersion out.
 */
import { isRecord } from '../util/is.js';

/** One item of a list: the object (or the value that is not one), and its path in the list. */
export interface ListItem {
  /** The item as kubectl reads it: a typed list's kind and apiVersion filled in; undefined when it is no object. */
  object: Record<string, unknown> | undefined;
  /** `items[i]`, for messages. */
  name: string;
  prefix: ['items', number];
}

/** Whether a document is a list to unpack: a kind ending in `List`, with `items`. */
export const isList = (value: Record<string, unknown>): value is Record<string, unknown> & { kind: string; items: unknown[] } =>
  typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items);

/** The items of a list, in order. */
export function* listItems(list: Record<string, unknown> & { kind: string; items: unknown[] }): Generator<ListItem> {
  const itemKind = list.kind === 'List' ? undefined : list.kind.slice(0, -'List'.length);
  for (const [i, rawItem] of list.items.entries()) {
    const prefix: ['items', number] = ['items', i];
    if (!isRecord(rawItem)) {
      yield { object: undefined, name: `items[${i}]`, prefix };
      continue;
    }
    const object = itemKind && rawItem.kind === undefined ? { apiVersion: list.apiVersion, kind: itemKind, ...rawItem } : rawItem;
    yield { object, name: `items[${i}]`, prefix };
  }
}
