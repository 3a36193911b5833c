/**
 * The resources `fleetgate apiserver` serves: one per kind of the library's registry, under one
 * group domain, with what the HTTP layer and the registry need to address and store them.
 */
import { kindsFor, ruleModules, type KindRules } from '../index.js';

export interface Resource {
  kind: string;
  listKind: string;
  /** `cluster.karmada.io` */
  group: string;
  version: string;
  /** `cluster.karmada.io/v1alpha1` */
  apiVersion: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  /** `clusters.cluster.karmada.io`: how kube-apiserver names the resource in its error messages. */
  qualifiedResource: string;
  /** `Cluster.cluster.karmada.io`: how it names the kind in Invalid errors. */
  qualifiedKind: string;
  /**
   * Whether delete and deletecollection take `ignoreStoreReadErrorWithClusterBreakingPotential`
   * (the spec's "extra delete parameter" column).
   */
  ignoreStoreReadErrorParameter: boolean;
  /** The kind's rule module: its schema prunes unknown fields. */
  rules: KindRules;
}

/** The kinds the spec's Endpoints table marks "yes" in its extra delete parameter column. */
const IGNORE_STORE_READ_ERROR_KINDS: ReadonlySet<string> = new Set([
  'ResourceInterpreterCustomization',
  'MultiClusterIngress',
  'CronFederatedHPA',
  'ClusterTaintPolicy',
  'WorkloadRebalancer',
]);

export function servedResources(groupDomain: string): Resource[] {
  const rulesByKind = new Map(ruleModules.map((r) => [r.kind, r]));
  return kindsFor(groupDomain).map((info) => ({
    kind: info.kind,
    listKind: `${info.kind}List`,
    group: info.group,
    version: info.version,
    apiVersion: info.apiVersion,
    plural: info.plural,
    singular: info.kind.toLowerCase(),
    namespaced: info.scope === 'Namespaced',
    qualifiedResource: `${info.plural}.${info.group}`,
    qualifiedKind: `${info.kind}.${info.group}`,
    ignoreStoreReadErrorParameter: IGNORE_STORE_READ_ERROR_KINDS.has(info.kind),
    rules: rulesByKind.get(info.kind)!,
  }));
}

/** The storage key of an object (see storage.ts): `/<group>/<plural>[/<namespace>]/<name>`. */
export function objectKey(resource: Resource, namespace: string | undefined, name: string): string {
  return resource.namespaced ? `/${resource.group}/${resource.plural}/${namespace}/${name}` : `/${resource.group}/${resource.plural}/${name}`;
}

/** The prefix a list or watch reads: one namespace's objects, or all of the resource's. */
export function collectionPrefix(resource: Resource, namespace: string | undefined): string {
  return namespace === undefined ? `/${resource.group}/${resource.plural}/` : `/${resource.group}/${resource.plural}/${namespace}/`;
}
