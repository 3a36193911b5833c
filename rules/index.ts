/**
 * The registry: the single list of kinds that the library, the webhook's routes,
 * the CLI and the Helm chart all derive from.
 */
import { DEFAULT_GROUP_DOMAIN, DEFAULT_OPERATIONS, apiGroup, apiVersion, type DefaultOperation, type KindRules } from '../src/engine/rule.js';
import { rules as resourceInterpreterWebhookConfiguration } from './resourceinterpreterwebhookconfiguration.js';
import { rules as resourceInterpreterCustomization } from './resourceinterpretercustomization.js';
import { rules as multiClusterIngress } from './multiclusteringress.js';
import { rules as multiClusterService } from './multiclusterservice.js';
import { rules as resourceRegistry } from './resourceregistry.js';
import { rules as work } from './work.js';
import { rules as clusterResourceBinding } from './clusterresourcebinding.js';
import { rules as cluster } from './cluster.js';
import { rules as cronFederatedHPA } from './cronfederatedhpa.js';
import { rules as clusterTaintPolicy } from './clustertaintpolicy.js';
import { rules as federatedResourceQuota } from './federatedresourcequota.js';
import { rules as workloadRebalancer } from './workloadrebalancer.js';
import { rules as remedy } from './remedy.js';

export { DEFAULT_GROUP_DOMAIN, apiGroup, apiVersion };

/**
 * The kind's rules as an object of one fixed shape, whatever the module spelled out. Every
 * validation reads a dozen of these fields; with thirteen shapes each read was a megamorphic
 * lookup, with one it is a single map check. The return type lists every field of KindRules,
 * so a field added there and forgotten here does not compile.
 */
const uniform = (r: KindRules): { [K in keyof Required<KindRules>]: KindRules[K] } => ({
  kind: r.kind,
  group: r.group,
  version: r.version,
  plural: r.plural,
  scope: r.scope,
  statusSubresource: r.statusSubresource,
  schema: r.schema,
  nameError: r.nameError,
  validate: r.validate,
  validateStatus: r.validateStatus,
  validateUpdate: r.validateUpdate,
  validateWithLookups: r.validateWithLookups,
  lookupsNeeded: r.lookupsNeeded,
  lookupFunction: r.lookupFunction,
  lookupsApply: r.lookupsApply,
  defaults: r.defaults,
  defaultOperations: r.defaultOperations,
  permanentIdLabel: r.permanentIdLabel,
});

/** The rule modules of all 13 kinds, in the spec's order. */
export const ruleModules: readonly KindRules[] = [
  resourceInterpreterWebhookConfiguration,
  resourceInterpreterCustomization,
  multiClusterIngress,
  multiClusterService,
  resourceRegistry,
  work,
  clusterResourceBinding,
  cluster,
  cronFederatedHPA,
  clusterTaintPolicy,
  federatedResourceQuota,
  workloadRebalancer,
  remedy,
].map(uniform);

const byKind = new Map(ruleModules.map((r) => [r.kind, r]));

export function rulesFor(kind: unknown): KindRules | undefined {
  return typeof kind === 'string' ? byKind.get(kind) : undefined;
}

export const supportedKinds: readonly string[] = ruleModules.map((r) => r.kind);

export interface KindInfo {
  kind: string;
  group: string;
  version: string;
  apiVersion: string;
  plural: string;
  scope: 'Cluster' | 'Namespaced';
  /** fleetgate validates writes to `<plural>/status` as well. */
  statusSubresource: boolean;
  /** Whether the kind has defaults to apply (a mutating webhook changes something). */
  mutating: boolean;
  /** The operations its mutating webhook entry registers; empty when it has none. */
  mutatingOperations: DefaultOperation[];
  webhookPaths: { validate: string; mutate: string };
}

/** The registry as plain data for one group domain. */
export function kindsFor(groupDomain = DEFAULT_GROUP_DOMAIN): KindInfo[] {
  return ruleModules.map((r) => ({
    kind: r.kind,
    group: apiGroup(r, groupDomain),
    version: r.version,
    apiVersion: apiVersion(r, groupDomain),
    plural: r.plural,
    scope: r.scope,
    statusSubresource: r.statusSubresource,
    mutating: typeof r.defaults === 'function',
    mutatingOperations: typeof r.defaults === 'function' ? [...(r.defaultOperations ?? DEFAULT_OPERATIONS)] : [],
    webhookPaths: { validate: `/validate-${r.kind.toLowerCase()}`, mutate: `/mutate-${r.kind.toLowerCase()}` },
  }));
}

/** The registry for the default group domain, `karmada.io`. */
export const kinds: readonly KindInfo[] = kindsFor();
