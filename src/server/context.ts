/**
 * Static context for the lookups: Services and ResourceInterpreterCustomizations read
 * once from YAML or JSON files (multi-document, `List` objects unpacked), for
 * air-gapped installations and tests.
 */
import { formatProblem, readObjects } from '../manifests.js';
import { isRecord } from '../is.js';
import type { Lookups, Service } from '../rule.js';

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

/** Lookups from files; throws on the first file that cannot be read, naming its position. */
export function loadContext(paths: readonly string[]): Lookups {
  const { objects, problems } = readObjects(paths);
  if (problems.length) throw new Error(formatProblem(problems[0]!));
  return staticLookups(objects);
}
