/**
 * Static context for the lookups: Services and ResourceInterpreterCustomizations read
 * once from YAML or JSON files (multi-document, `List` objects unpacked), for
 * air-gapped installations and tests.
 */
import { formatProblem } from '../input/problems.js';
import { readObjects } from '../input/manifests.js';
import { isRecord } from '../util/is.js';
import type { Lookups, Service } from '../engine/rule.js';
import { apiVersion, rulesFor } from '../../rules/index.js';

const CUSTOMIZATION = rulesFor('ResourceInterpreterCustomization')!;

/**
 * Lookups answered from a fixed set of objects. Customizations count in their own API group
 * only: `config.<groupDomain>/v1alpha1`, or any group domain when none is given (a test
 * suite's cases may each name their own).
 */
export function staticLookups(objects: readonly Record<string, unknown>[], groupDomain?: string): Lookups {
  const customizationVersion = groupDomain === undefined ? undefined : apiVersion(CUSTOMIZATION, groupDomain);
  const isCustomizationVersion = (v: unknown) => (customizationVersion === undefined ? typeof v === 'string' && CONFIG_V1ALPHA1.test(v) : v === customizationVersion);
  const services = new Map<string, Service>();
  const customizations: unknown[] = [];
  for (const o of objects) {
    const meta = isRecord(o.metadata) ? o.metadata : {};
    if (o.kind === 'Service' && o.apiVersion === 'v1') services.set(`${meta.namespace ?? 'default'}/${meta.name}`, o as Service);
    if (o.kind === 'ResourceInterpreterCustomization' && isCustomizationVersion(o.apiVersion)) customizations.push(o);
  }
  return {
    getService: (namespace, name) => services.get(`${namespace}/${name}`),
    listResourceInterpreterCustomizations: () => customizations,
  };
}

/** The customizations' apiVersion under any group domain: `config.<domain>/v1alpha1`. */
const CONFIG_V1ALPHA1 = new RegExp(`^${CUSTOMIZATION.group}\\.[^/]+/${CUSTOMIZATION.version}$`);

/** Lookups from files; throws on the first file that cannot be read, naming its position. */
export function loadContext(paths: readonly string[], groupDomain?: string): Lookups {
  const { objects, problems } = readObjects(paths);
  if (problems.length) throw new Error(formatProblem(problems[0]!));
  return staticLookups(objects, groupDomain);
}
