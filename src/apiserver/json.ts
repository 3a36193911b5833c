/** Small helpers for the decoded JSON the API server handles. */
import { isDeepStrictEqual } from 'node:util';
import { isRecord } from '../util/is.js';

export type JsonObject = Record<string, unknown>;


/** The object's metadata, made an object if it is none (the library has already judged its shape). */
export function metadataOf(object: JsonObject): JsonObject {
  if (!isRecord(object.metadata)) object.metadata = {};
  return object.metadata as JsonObject;
}

export const stringField = (object: JsonObject, key: string): string | undefined => (typeof object[key] === 'string' ? (object[key] as string) : undefined);

/** A deep copy of JSON data (several times faster than structuredClone, which also copies what JSON cannot hold). */
export const copyJson = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/** Whether two JSON values are equal, object key order aside. */
export const jsonEqual = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);
