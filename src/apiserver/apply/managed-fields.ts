/**
 * `metadata.managedFields` as kube-apiserver reads and writes it (apimachinery's
 * managedfields/internal): one entry per manager identity (name, operation, subresource, and the
 * apiVersion for updates), each with its field set in FieldsV1 and the time of its last change,
 * sorted Apply before Update, then oldest first.
 */
import { isRecord } from '../../util/is.js';
import { FieldSet } from './field-set.js';
import { FieldsV1Error, fromFieldsV1, toFieldsV1, type FieldsV1 } from './fields-v1.js';
import { ENCODING_JSON, compareStrings, goJsonString } from './go-text.js';
import type { ManagerSets, VersionedSet } from './updater.js';

export type Operation = 'Apply' | 'Update';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: Operation;
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: FieldsV1;
  subresource?: string;
}

/** Manager sets with the time of each one's last change (RFC 3339, seconds), by identifier. */
export interface Managed {
  readonly sets: ManagerSets;
  readonly times: Map<string, string | undefined>;
}

export const emptyManaged = (): Managed => ({ sets: new Map(), times: new Map() });
export const copyManaged = (m: Managed): Managed => ({ sets: new Map(m.sets), times: new Map(m.times) });

interface Identity {
  manager: string;
  operation: Operation;
  apiVersion?: string;
  subresource?: string;
}

/**
 * The identifier kube keys a manager by: the entry's JSON without time and fields, and without the
 * apiVersion for an applier (an applier is one manager whatever version it applies in).
 */
export function managerIdentifier(identity: Identity): string {
  const parts: string[] = [];
  if (identity.manager) parts.push(`"manager":${goJsonString(identity.manager, ENCODING_JSON)}`);
  parts.push(`"operation":${goJsonString(identity.operation, ENCODING_JSON)}`);
  if (identity.operation !== 'Apply' && identity.apiVersion) parts.push(`"apiVersion":${goJsonString(identity.apiVersion, ENCODING_JSON)}`);
  if (identity.subresource) parts.push(`"subresource":${goJsonString(identity.subresource, ENCODING_JSON)}`);
  return `{${parts.join(',')}}`;
}

export function identityOf(identifier: string): Identity {
  try {
    const parsed = JSON.parse(identifier) as unknown;
    if (isRecord(parsed)) {
      return {
        manager: typeof parsed.manager === 'string' ? parsed.manager : '',
        operation: parsed.operation === 'Apply' ? 'Apply' : 'Update',
        ...(typeof parsed.apiVersion === 'string' ? { apiVersion: parsed.apiVersion } : {}),
        ...(typeof parsed.subresource === 'string' ? { subresource: parsed.subresource } : {}),
      };
    }
  } catch {
    // An internal name such as "current-operation": not an identifier.
  }
  return { manager: identifier, operation: 'Update' };
}

/** Why stored or written entries cannot be read (kube's DecodeManagedFields refuses them). */
export class ManagedFieldsError extends Error {
  override readonly name = 'ManagedFieldsError';
}

/** Reads entries whose shape is right (see managedFieldsShapeError); throws ManagedFieldsError as kube's decoder fails. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[]): Managed {
  const managed = emptyManaged();
  entries.forEach((entry, i) => {
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (!entry.apiVersion) throw new ManagedFieldsError('apiVersion must not be empty');
    if (!entry.fieldsType) throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier({
      manager: entry.manager ?? '',
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      ...(entry.subresource ? { subresource: entry.subresource } : {}),
    });
    let set: FieldSet;
    try {
      set = entry.fieldsV1 === undefined ? new FieldSet() : fromFieldsV1(entry.fieldsV1);
    } catch (err) {
      if (err instanceof FieldsV1Error) throw new ManagedFieldsError(`error decoding versioned set: error decoding set: ${err.message}`);
      throw err;
    }
    managed.sets.set(id, { set, apiVersion: entry.apiVersion, applied: entry.operation === 'Apply' });
    managed.times.set(id, entry.time === undefined ? undefined : normalizeTime(entry.time));
  });
  return managed;
}

/** The entries to store, sorted as kube sorts them; undefined when no manager is left. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.sets.size === 0) return undefined;
  const entries = [...managed.sets].map(([id, vs]) => encodeEntry(identityOf(id), vs, managed.times.get(id)));
  return entries.sort(entryOrder);
}

function encodeEntry(identity: Identity, vs: VersionedSet, time: string | undefined): ManagedFieldsEntry {
  const entry: ManagedFieldsEntry = {};
  if (identity.manager) entry.manager = identity.manager;
  entry.operation = vs.applied ? 'Apply' : identity.operation;
  entry.apiVersion = vs.apiVersion;
  if (time !== undefined) entry.time = time;
  entry.fieldsType = 'FieldsV1';
  entry.fieldsV1 = toFieldsV1(vs.set);
  if (identity.subresource) entry.subresource = identity.subresource;
  return entry;
}

const seconds = (time: string | undefined): number => (time === undefined ? 0 : Math.floor(Date.parse(time) / 1000));

function entryOrder(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  if (p.operation !== q.operation) return compareStrings(p.operation ?? '', q.operation ?? '');
  const byTime = seconds(p.time) - seconds(q.time);
  if (byTime !== 0) return byTime;
  return (
    compareStrings(p.manager ?? '', q.manager ?? '') ||
    compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
    compareStrings(p.subresource ?? '', q.subresource ?? '')
  );
}

/** A time as metav1.Time writes it back: UTC, whole seconds. */
export function normalizeTime(time: string): string {
  return formatTime(new Date(Date.parse(time)));
}

export const formatTime = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Why written `managedFields` would not decode into Go's types at all (kube then answers 422 for
 * the whole write), as Go's JSON decoder words it; undefined when the shape is right. Entries of
 * the right shape may still be refused by decodeManagedFields, which only makes kube keep the
 * stored entries instead.
 */
export function managedFieldsShapeError(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return `json: cannot unmarshal ${goKind(value)} into Go struct field ObjectMeta.managedFields of type []v1.ManagedFieldsEntry`;
  for (const entry of value) {
    if (entry === null) continue;
    if (!isRecord(entry)) return `json: cannot unmarshal ${goKind(entry)} into Go struct field ObjectMeta.managedFields of type v1.ManagedFieldsEntry`;
    for (const field of ['manager', 'operation', 'apiVersion', 'fieldsType', 'subresource'] as const) {
      const v = entry[field];
      if (v !== undefined && v !== null && typeof v !== 'string') {
        const type = field === 'operation' ? 'v1.ManagedFieldsOperationType' : 'string';
        return `json: cannot unmarshal ${goKind(v)} into Go struct field ManagedFieldsEntry.managedFields.${field} of type ${type}`;
      }
    }
    const time = entry.time;
    if (time !== undefined && time !== null && (typeof time !== 'string' || !RFC3339.test(time))) {
      return typeof time === 'string' ? `parsing time ${JSON.stringify(time)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(time)} as "2006"` : `json: cannot unmarshal ${goKind(time)} into Go struct field ManagedFieldsEntry.managedFields.time of type string`;
    }
  }
  return undefined;
}

const goKind = (v: unknown): string => (Array.isArray(v) ? 'array' : isRecord(v) ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

/**
 * Written entries as kube reads them into its types: null fields unset, an empty time unset,
 * unknown keys ignored. Call only on a value managedFieldsShapeError accepts.
 */
export function readEntries(value: readonly unknown[]): ManagedFieldsEntry[] {
  return value.map((raw) => {
    const e = isRecord(raw) ? raw : {};
    const out: ManagedFieldsEntry = {};
    const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
    if (str(e.manager)) out.manager = str(e.manager)!;
    if (str(e.operation)) out.operation = str(e.operation) as Operation;
    if (str(e.apiVersion)) out.apiVersion = str(e.apiVersion)!;
    if (str(e.time)) out.time = str(e.time)!;
    if (str(e.fieldsType)) out.fieldsType = str(e.fieldsType) as 'FieldsV1';
    if (e.fieldsV1 !== undefined && e.fieldsV1 !== null) out.fieldsV1 = e.fieldsV1 as FieldsV1;
    if (str(e.subresource)) out.subresource = str(e.subresource)!;
    return out;
  });
}

/**
 * Whether written entries ask to clear the managed fields: `[]`, or one empty entry. (A null entry
 * is no entry: kube then reads no managedFields at all, and keeps the stored ones.)
 */
export function isResetRequest(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (value.length === 0) return true;
  return value.length === 1 && isRecord(value[0]) && Object.keys(readEntries(value)[0]!).length === 0;
}
