/**
 * How the embedded store and the watch cache hold an object: its JSON text without
 * `metadata.resourceVersion`. Text, not the decoded object, because every reader gets its own
 * freshly decoded copy (a caller mutating what it got never changes the store, nor another
 * watcher's event), because text is what the disk and etcd hold, and because a string is one
 * value the history can share with the current state. (Memory is no reason either way: for the
 * benchmark's objects the text and the decoded object took about the same heap, 3.2 and 3.5 KB.)
 */
import { isRecord } from '../../util/is.js';
import { sameJson } from '../../util/json-equal.js';
import type { StoredObject } from './storage.js';

/** An object's stored text: its JSON without `metadata.resourceVersion`, which the revision replaces. */
export function encodeObject(object: StoredObject): string {
  return JSON.stringify(withoutResourceVersion(object));
}

/** A fresh copy of a stored object, stamped with the revision of its last write. */
export function decodeObject(value: string, revision: number): StoredObject {
  const object = JSON.parse(value) as StoredObject;
  const metadata = object.metadata;
  if (isRecord(metadata)) metadata.resourceVersion = String(revision);
  else object.metadata = { resourceVersion: String(revision) };
  return object;
}

/** A fresh copy of a stored object without any resourceVersion: what a dry-run create answers. */
export function decodeUnversioned(value: string): StoredObject {
  return JSON.parse(value) as StoredObject;
}

/**
 * Whether the text `encoded` says what the stored `value` says. JSON equality, not text equality:
 * kube compares encoded bytes, and Go encodes an unstructured object's maps with sorted keys, so
 * a write that only reorders keys is a no-op there too. Both texts are decoded, so what JSON
 * drops (a field holding undefined) counts as absent.
 */
export function unchanged(encoded: string, value: string): boolean {
  return encoded === value || sameJson(JSON.parse(encoded), JSON.parse(value));
}

/** `object` with `metadata.resourceVersion` left out, sharing everything else (never mutating `object`). */
function withoutResourceVersion(object: StoredObject): StoredObject {
  if (!isRecord(object)) throw new TypeError('a stored object must be a JSON object');
  const metadata = object.metadata;
  if (!isRecord(metadata) || !Object.hasOwn(metadata, 'resourceVersion')) return object;
  const { resourceVersion: _, ...rest } = metadata;
  return { ...object, metadata: rest };
}
