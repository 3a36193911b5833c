/**
 * Static context for the lookups: Services and ResourceInterpreterCustomizations read
 * once from YAML or JSON files (multi-document, `List` objects unpacked), for
 * air-gapped installations and tests.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KUBECTL_YAML } from '../yaml.js';
import type { Lookups, Service } from '../rule.js';
import { isRecord } from '../is.js';

const MANIFEST = /\.(ya?ml|json)$/i;

function manifestFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = join(path, entry.name);
      if (entry.isDirectory()) return manifestFiles(full);
      return MANIFEST.test(entry.name) ? [full] : [];
    });
}


/** Objects of every document in the files, with `List`s unpacked. Throws with file and line on a syntax error. */
export function readObjects(paths: readonly string[]): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (const file of paths.flatMap(manifestFiles)) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'), KUBECTL_YAML)) {
      if (doc.errors.length) {
        const e = doc.errors[0]!;
        const line = e.linePos?.[0];
        throw new Error(`${file}${line ? `:${line.line}:${line.col}` : ''}: ${e.message.split('\n')[0]}`);
      }
      const value = doc.toJS({ maxAliasCount: 100 });
      if (!isRecord(value)) continue;
      if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
        objects.push(...value.items.filter(isRecord));
      } else {
        objects.push(value);
      }
    }
  }
  return objects;
}

/** Lookups answered from a fixed set of objects. */
export function staticLookups(objects: readonly Record<string, unknown>[]): Lookups {
  const services = new Map<string, Service>();
  const customizations: unknown[] = [];
  for (const o of objects) {
    const meta = isRecord(o.metadata) ? o.metadata : {};
    if (o.kind === 'Service' && o.apiVersion === 'v1') services.set(`${meta.namespace ?? 'default'}/${meta.name}`, o as Service);
    if (o.kind === 'ResourceInterpreterCustomization') customizations.push(o);
  }
  return {
    getService: (namespace, name) => services.get(`${namespace}/${name}`),
    listResourceInterpreterCustomizations: () => customizations,
  };
}

export function loadContext(paths: readonly string[]): Lookups {
  return staticLookups(readObjects(paths));
}
