/**
 * What kube-apiserver does to a custom resource's object around admission (apiserver
 * `rest.BeforeCreate` / `BeforeUpdate`, apiextensions' customresource strategy and status strategy):
 * the system fields it fills, the fields a write may not change, which part of the object each
 * endpoint writes, and when generation moves.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { copyJson, jsonEqual, metadataOf, type JsonObject } from './json.js';
import { isRecord } from '../util/is.js';

/** RFC 3339 at whole seconds, as metav1.Time is serialized. */
export const timestamp = (now: Date): string => `${now.toISOString().slice(0, 19)}Z`;

/** apiserver `names.SimpleNameGenerator`: five characters from an alphabet without vowels or look-alikes. */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const RANDOM_LENGTH = 5;
const MAX_GENERATE_NAME_PREFIX = 63 - RANDOM_LENGTH;

export function generatedName(prefix: string): string {
  const base = prefix.length > MAX_GENERATE_NAME_PREFIX ? prefix.slice(0, MAX_GENERATE_NAME_PREFIX) : prefix;
  const bytes = randomBytes(RANDOM_LENGTH);
  let suffix = '';
  for (const b of bytes) suffix += NAME_ALPHABET[b % NAME_ALPHABET.length];
  return base + suffix;
}

/**
 * A create's object before admission: status dropped (a create cannot set it), the system fields
 * filled, the ones a client cannot set cleared. `name` is the name it gets (from generateName when
 * it has none).
 */
export function prepareForCreate(object: JsonObject, namespace: string | undefined, now: Date): void {
  delete object.status;
  const metadata = metadataOf(object);
  if (namespace === undefined) delete metadata.namespace;
  else metadata.namespace = namespace;
  if ((metadata.name === undefined || metadata.name === '') && typeof metadata.generateName === 'string' && metadata.generateName !== '') {
    metadata.name = generatedName(metadata.generateName);
  }
  metadata.uid = randomUUID();
  metadata.creationTimestamp = timestamp(now);
  metadata.generation = 1;
  delete metadata.resourceVersion;
  delete metadata.deletionTimestamp;
  delete metadata.deletionGracePeriodSeconds;
  delete metadata.selfLink;
}

/**
 * A main-resource update: status kept as stored, the fields an update can never change taken from
 * the stored object, generation bumped when anything but metadata changed.
 */
export function prepareForUpdate(object: JsonObject, stored: JsonObject): void {
  if (Object.hasOwn(stored, 'status')) object.status = copyJson(stored.status);
  else delete object.status;
  const metadata = metadataOf(object);
  const old = metadataOf(stored);
  keepSystemFields(metadata, old);
  settleGeneration(object, stored);
}

/**
 * Generation as the stored one, plus one when anything but metadata changed. The registry settles
 * it again after admission: kube-apiserver compares after its mutating admission, so a write
 * whose change the defaults undo (a Work manifest without Karmada's labels) moves nothing.
 */
export function settleGeneration(object: JsonObject, stored: JsonObject): void {
  const old = metadataOf(stored);
  const generation = typeof old.generation === 'number' ? old.generation : 1;
  metadataOf(object).generation = contentChanged(object, stored) ? generation + 1 : generation;
}

/**
 * A status update: the stored object with the write's status and managedFields (as the status
 * strategy keeps them: the field manager has worked them out, and none means none); nothing else
 * of the write counts.
 */
export function prepareForStatusUpdate(object: JsonObject, stored: JsonObject): JsonObject {
  const next = copyJson(stored);
  if (Object.hasOwn(object, 'status')) next.status = object.status;
  else delete next.status;
  const written = isRecord(object.metadata) ? object.metadata : {};
  const metadata = metadataOf(next);
  if (written.managedFields !== undefined) metadata.managedFields = written.managedFields;
  else delete metadata.managedFields;
  return next;
}

function keepSystemFields(metadata: JsonObject, old: JsonObject): void {
  // An empty uid takes the stored one; another uid is the library's "field is immutable".
  if (metadata.uid === undefined || metadata.uid === '') metadata.uid = old.uid;
  if (old.creationTimestamp !== undefined) metadata.creationTimestamp = old.creationTimestamp;
  if (old.deletionTimestamp !== undefined) metadata.deletionTimestamp = old.deletionTimestamp;
  else delete metadata.deletionTimestamp;
  if (old.deletionGracePeriodSeconds !== undefined && metadata.deletionGracePeriodSeconds === undefined) {
    metadata.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  }
  delete metadata.selfLink;
}

/** Whether anything but metadata differs: what moves generation for a custom resource. */
function contentChanged(a: JsonObject, b: JsonObject): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  keys.delete('metadata');
  for (const key of keys) if (!jsonEqual(a[key], b[key])) return true;
  return false;
}

export const finalizersOf = (object: JsonObject): unknown[] => {
  const finalizers = isRecord(object.metadata) ? object.metadata.finalizers : undefined;
  return Array.isArray(finalizers) ? finalizers : [];
};

export const isBeingDeleted = (object: JsonObject): boolean => isRecord(object.metadata) && object.metadata.deletionTimestamp !== undefined;

/** An object kept by finalizers, marked for deletion (`gracePeriodSeconds` 0: custom resources have no graceful deletion). */
export function markForDeletion(object: JsonObject, now: Date): JsonObject {
  const next = copyJson(object);
  const metadata = metadataOf(next);
  metadata.deletionTimestamp = timestamp(now);
  metadata.deletionGracePeriodSeconds = 0;
  return next;
}

/** The object without its resourceVersion, as a backend stores it. */
export function withoutResourceVersion(object: JsonObject): JsonObject {
  if (isRecord(object.metadata) && object.metadata.resourceVersion !== undefined) delete object.metadata.resourceVersion;
  return object;
}

export const nameOf = (object: JsonObject): string | undefined => (isRecord(object.metadata) && typeof object.metadata.name === 'string' ? object.metadata.name : undefined);
export const namespaceOf = (object: JsonObject): string | undefined =>
  isRecord(object.metadata) && typeof object.metadata.namespace === 'string' ? object.metadata.namespace : undefined;
export const resourceVersionOf = (object: JsonObject): string | undefined =>
  isRecord(object.metadata) && typeof object.metadata.resourceVersion === 'string' && object.metadata.resourceVersion !== '' ? object.metadata.resourceVersion : undefined;
