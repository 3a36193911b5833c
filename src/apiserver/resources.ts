/**
 * The API resources of the 13 kinds as `fleetgate apiserver` presents them: one table that
 * discovery, OpenAPI, the Table printer and the field selectors all read.
 *
 *   const resources = apiResources('karmada.io');
 *   const cluster = resources.find((r) => r.kind === 'Cluster');
 *   cluster.plural === 'clusters'; cluster.shortNames; cluster.servedBy === 'aggregated'
 *
 * Names follow Karmada: the short names and categories of the CRDs in
 * charts/karmada/_crds/bases, and none for Cluster and ResourceRegistry, which Karmada serves
 * from its aggregated API servers (karmada-aggregated-apiserver, karmada-search) with Go types.
 */
import { kindsFor, ruleModules, type KindInfo } from '../../rules/index.js';
import type { KindRules } from '../engine/rule.js';
import type { TSchema } from '@sinclair/typebox';

/** How Karmada serves the kind; it decides the Table columns and which field labels a selector may use. */
export type ServedBy = 'crd' | 'aggregated';

export interface ApiResource {
  kind: string;
  listKind: string;
  /** `cluster.karmada.io` */
  group: string;
  version: string;
  /** `cluster.karmada.io/v1alpha1` */
  groupVersion: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  servedBy: ServedBy;
  /**
   * Whether delete and deletecollection accept `ignoreStoreReadErrorWithClusterBreakingPotential`
   * (the spec's "extra delete parameter").
   */
  ignoreStoreReadErrorParameter: boolean;
  /** The kind's object schema, as the library validates it. */
  schema: TSchema;
  /**
   * The kind's rules, looked up in the registry once, here, where a request's URL is decoded into
   * its resource: admission hands them to the engine, which knows no registry.
   */
  rules: KindRules;
}

/** The verbs of every resource: the CRD discovery controller's list, in its order. */
export const RESOURCE_VERBS: readonly string[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
/** The verbs of the status subresource. */
export const STATUS_VERBS: readonly string[] = ['get', 'patch', 'update'];

interface Names {
  shortNames?: readonly string[];
  categories?: readonly string[];
  servedBy?: ServedBy;
  ignoreStoreReadErrorParameter?: true;
}

const KARMADA = ['karmada-io'] as const;

/**
 * The extra delete parameter as the spec's Endpoints table marks it.
 * From Karmada's CRDs (charts/karmada/_crds/bases, `spec.names`): ClusterTaintPolicy and
 * WorkloadRebalancer declare neither short names nor categories; ResourceInterpreterWebhookConfiguration,
 * FederatedResourceQuota and Remedy only the category.
 */
const NAMES: Readonly<Record<string, Names>> = {
  ResourceInterpreterWebhookConfiguration: { categories: KARMADA },
  ResourceInterpreterCustomization: { shortNames: ['ric'], categories: KARMADA, ignoreStoreReadErrorParameter: true },
  MultiClusterIngress: { shortNames: ['mci'], categories: KARMADA, ignoreStoreReadErrorParameter: true },
  MultiClusterService: { shortNames: ['mcs'], categories: KARMADA },
  ResourceRegistry: { servedBy: 'aggregated' },
  Work: { shortNames: ['wk'], categories: KARMADA },
  ClusterResourceBinding: { shortNames: ['crb'], categories: KARMADA },
  Cluster: { servedBy: 'aggregated' },
  CronFederatedHPA: { shortNames: ['cronfhpa'], categories: KARMADA, ignoreStoreReadErrorParameter: true },
  ClusterTaintPolicy: { ignoreStoreReadErrorParameter: true },
  FederatedResourceQuota: { categories: KARMADA },
  WorkloadRebalancer: { ignoreStoreReadErrorParameter: true },
  Remedy: { categories: KARMADA },
};

const cache = new Map<string, readonly ApiResource[]>();

/** The 13 resources under `groupDomain`, in the registry's order. */
export function apiResources(groupDomain?: string): readonly ApiResource[] {
  const key = groupDomain ?? '';
  let resources = cache.get(key);
  if (resources === undefined) {
    const rules = new Map(ruleModules.map((r) => [r.kind, r]));
    resources = kindsFor(groupDomain).map((info) => toResource(info, rules.get(info.kind)!));
    cache.set(key, resources);
  }
  return resources;
}

function toResource(info: KindInfo, rules: KindRules): ApiResource {
  const names = NAMES[info.kind];
  if (names === undefined) throw new Error(`no API names for kind ${info.kind}: add it to NAMES in resources.ts`);
  return {
    kind: info.kind,
    listKind: `${info.kind}List`,
    group: info.group,
    version: info.version,
    groupVersion: info.apiVersion,
    plural: info.plural,
    singular: info.kind.toLowerCase(),
    namespaced: info.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    servedBy: names.servedBy ?? 'crd',
    ignoreStoreReadErrorParameter: names.ignoreStoreReadErrorParameter ?? false,
    schema: rules.schema,
    rules,
  };
}

/** The group-versions served, each with its resources, in the order kube's discovery lists them. */
export interface GroupVersion {
  group: string;
  version: string;
  groupVersion: string;
  resources: readonly ApiResource[];
}

export interface Group {
  name: string;
  /** Preferred first: kube-aware version order, as the CRD discovery controller sorts them. */
  versions: readonly GroupVersion[];
}

/** Groups sorted by name (every group has the CRD priority, so kube breaks the tie by name). */
export function apiGroups(groupDomain?: string): readonly Group[] {
  const byGroup = new Map<string, Map<string, ApiResource[]>>();
  for (const r of apiResources(groupDomain)) {
    const versions = byGroup.get(r.group) ?? new Map<string, ApiResource[]>();
    byGroup.set(r.group, versions);
    versions.set(r.version, [...(versions.get(r.version) ?? []), r]);
  }
  return [...byGroup.keys()].sort(compareStrings).map((name) => ({
    name,
    versions: [...byGroup.get(name)!.entries()]
      .sort(([a], [b]) => compareKubeAwareVersions(b, a))
      .map(([version, resources]) => ({
        group: name,
        version,
        groupVersion: `${name}/${version}`,
        resources: [...resources].sort((a, b) => compareStrings(a.plural, b.plural)),
      })),
  }));
}

/** Byte-wise order, as Go sorts strings. */
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

/**
 * apimachinery's version.CompareKubeAwareVersionStrings: positive when `a` ranks above `b`
 * (v2 > v1 > v1beta2 > v1beta1 > v1alpha1; versions of other shapes rank below, in reverse
 * lexical order among themselves).
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma && !mb) return compareStrings(b, a);
  if (!ma) return -1;
  if (!mb) return 1;
  const sa = STABILITY[ma[2] ?? '']!;
  const sb = STABILITY[mb[2] ?? '']!;
  if (sa !== sb) return sa - sb;
  if (ma[1] !== mb[1]) return Number(ma[1]) - Number(mb[1]);
  return Number(ma[3] ?? 0) - Number(mb[3] ?? 0);
}
