/**
 * The current objects in key order: a balanced tree with positions (js-sdsl's OrderedMap with
 * its index enabled), so a page starts at any key in O(log n) and "how many keys remain under
 * this prefix" (a list's remainingItemCount) is a difference of two positions, not a count.
 *
 * Keys compare by UTF-16 code unit. That is LevelDB's and etcd's byte order for every key the
 * API server makes (names are DNS labels and subdomains: ASCII).
 */
import { OrderedMap } from '@js-sdsl/ordered-map';
import type { Key } from './storage.js';

/** A stored object: its text (see stored-value.ts) and the revision of its last write. */
export interface Entry {
  value: string;
  revision: number;
}

const compareKeys = (a: Key, b: Key): number => (a < b ? -1 : a > b ? 1 : 0);

export class KeyIndex {
  private readonly tree = new OrderedMap<Key, Entry>([], compareKeys, true);

  get size(): number {
    return this.tree.size();
  }

  get(key: Key): Entry | undefined {
    return this.tree.getElementByKey(key);
  }

  set(key: Key, entry: Entry): void {
    this.tree.setElement(key, entry);
  }

  delete(key: Key): void {
    this.tree.eraseElementByKey(key);
  }

  /** The keys and entries from `from` (inclusive) while they are below `end` (exclusive; undefined: no end), in order. */
  *range(from: Key, end: Key | undefined): Generator<[Key, Entry]> {
    const it = this.tree.lowerBound(from);
    while (it.isAccessible()) {
      const pointer = it.pointer;
      const key = pointer[0];
      if (end !== undefined && key >= end) return;
      yield [key, pointer[1]];
      it.next();
    }
  }

  /** How many keys are at or after `from` and below `end`. */
  count(from: Key, end: Key | undefined): number {
    if (end === undefined) return this.tree.size() - this.position(from);
    return from >= end ? 0 : this.position(end) - this.position(from);
  }

  /** How many keys sort before `key`. */
  private position(key: Key): number {
    const it = this.tree.lowerBound(key);
    // The end iterator's index is size - 1 in js-sdsl 4.4: not a position.
    return it.isAccessible() ? it.index : this.tree.size();
  }
}

/**
 * The first key after every key that starts with `prefix`, so a list's range is
 * [prefix, prefixEnd(prefix)); undefined when there is none (the empty prefix).
 */
export function prefixEnd(prefix: Key): Key | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const code = prefix.charCodeAt(i);
    if (code < 0xffff) return prefix.slice(0, i) + String.fromCharCode(code + 1);
  }
  return undefined;
}
