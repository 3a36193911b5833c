/** FederatedResourceQuota (policy.<domain>/v1alpha1, namespaced): aggregate quota of a namespace across clusters. */
import { Arr, Obj, Opt, QuantityMap, ReqStr, envelope, type Static } from './_shared/schema.js';
import { add, checkUnique, child, index, isRecord, isString, key, list, record } from './_shared/checks.js';
import { duplicate, invalid } from '../src/engine/field-error.js';
import { dns1123Subdomain, qualifiedName } from '../src/checks/names.js';
import { ZERO, addQuantity, compareQuantity, isWhole, parseQuantity, type Quantity as Q } from '../src/checks/quantity.js';
import { memoizeVerdict } from '../src/checks/memo.js';
import type { KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_OVERALL = FieldPath.of('spec', 'overall');
const SPEC_STATIC_ASSIGNMENTS = FieldPath.of('spec', 'staticAssignments');
const STATUS_AGGREGATED_STATUS = FieldPath.of('status', 'aggregatedStatus');
const STATUS_OVERALL = FieldPath.of('status', 'overall');
const STATUS_OVERALL_USED = FieldPath.of('status', 'overallUsed');

const StaticClusterAssignment = Obj({ clusterName: ReqStr({ format: 'cluster-name' }), hard: QuantityMap() });
const ClusterQuotaStatus = Obj({ clusterName: ReqStr({ format: 'cluster-name' }), hard: Opt(QuantityMap()), used: Opt(QuantityMap()) });

const FederatedResourceQuotaSpec = Obj({
  overall: QuantityMap(),
  staticAssignments: Opt(Arr(StaticClusterAssignment)),
});

const FederatedResourceQuotaStatus = Obj({
  overall: Opt(QuantityMap()),
  overallUsed: Opt(QuantityMap()),
  aggregatedStatus: Opt(Arr(ClusterQuotaStatus)),
});

export const schema = Obj({ ...envelope, spec: FederatedResourceQuotaSpec, status: Opt(FederatedResourceQuotaStatus) });
export type FederatedResourceQuota = Static<typeof schema>;

/** Resource names a ResourceQuota accepts without a domain prefix (Kubernetes' standardQuotaResources). */
export const STANDARD_QUOTA_RESOURCES = [
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
] as const;

/** Resources counted in whole objects (Kubernetes' integerResources). */
const INTEGER_RESOURCES = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** Kubernetes' quota accepts hugepages only as `hugepages-<size>` and `requests.hugepages-<size>` (there is no limits form). */
const HUGEPAGES_PREFIXES = ['hugepages-', 'requests.hugepages-'] as const;

const STANDARD_QUOTA_MESSAGE =
  `must be a standard resource for quota (${STANDARD_QUOTA_RESOURCES.join(', ')}, ` +
  'hugepages-<size>, requests.hugepages-<size>) or a domain-prefixed name such as nvidia.com/gpu or count/deployments.apps';

const MAX_NAME_LENGTH = 63;

/** A DNS subdomain that also fits in a label value: Karmada writes the quota's name into labels. */
const quotaName = memoizeVerdict((name: string): string | undefined => {
  const problems: string[] = [];
  if (name.length > MAX_NAME_LENGTH) problems.push(`must be no more than ${MAX_NAME_LENGTH} characters (the name is used as a label value)`);
  // The subdomain's own 253-character limit is implied by the stricter one above.
  const subdomain = dns1123Subdomain(name)?.split('; ').filter((p) => !p.startsWith('must be no more than'));
  if (subdomain?.length) problems.push(...subdomain);
  return problems.length ? problems.join('; ') : undefined;
});

/** `hugepages-2Mi`, `requests.hugepages-1Gi`: a hugepages prefix followed by a positive page size. */
function hugePagesError(name: string): string | undefined | false {
  const prefix = HUGEPAGES_PREFIXES.find((p) => name.startsWith(p));
  if (!prefix) return false;
  const size = parseQuantity(name.slice(prefix.length));
  return size && compareQuantity(size, ZERO) > 0 ? undefined : `the hugepage size after "${prefix}" must be a positive quantity such as 2Mi or 1Gi`;
}

/** The problem with a resource name used as a quota key, or undefined. */
function quotaResourceNameError(name: string): string | undefined {
  const qualified = qualifiedName(name);
  if (qualified) return qualified;
  if (name.includes('/')) return undefined;
  if ((STANDARD_QUOTA_RESOURCES as readonly string[]).includes(name)) return undefined;
  const hugePages = hugePagesError(name);
  if (hugePages !== false) return hugePages;
  return STANDARD_QUOTA_MESSAGE;
}

/** Extended resources (`nvidia.com/gpu`, `count/deployments.apps`) are counted in whole units, as are object counts. */
function isIntegerResource(name: string): boolean {
  if (INTEGER_RESOURCES.has(name)) return true;
  return name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.') && qualifiedName(`requests.${name}`) === undefined;
}

/**
 * What a resource name means for a quota, worked out once per name: the same few names
 * (cpu, memory, pods, ...) recur in every resource list of every object.
 */
const analyseName = memoizeVerdict((name: string): { problem: string | undefined; integer: boolean } => {
  const problem = quotaResourceNameError(name);
  return { problem, integer: !problem && isIntegerResource(name) };
});

/** The entries of a resource list that passed checkResourceList; arrays, as the lists are short. */
interface CheckedList {
  /** Keys that are valid quota resource names. */
  names: string[];
  /** Entries whose name and value are both valid, parsed. */
  values: [name: string, value: Q][];
}

/**
 * Checks every key and value of a resource list and returns what passed, so that
 * follow-on rules skip entries already reported (one mistake, one cause).
 */
function checkResourceList(ctx: RuleContext, resources: unknown, path: FieldPath): CheckedList;
function checkResourceList(ctx: RuleContext, resources: unknown, path: FieldPath, keep: false): void;
function checkResourceList(ctx: RuleContext, resources: unknown, path: FieldPath, keep = true): CheckedList | void {
  const checked: CheckedList | undefined = keep ? { names: [], values: [] } : undefined;
  if (!isRecord(resources)) return checked;
  for (const name of Object.keys(resources)) {
    const value = resources[name];
    const { problem: nameProblem, integer } = analyseName(name);
    if (nameProblem) add(ctx, invalid(key(path, name), name, nameProblem));
    else checked?.names.push(name);
    // Values that are not quantities at all are reported by the schema.
    const q = parseQuantity(value);
    if (!q) continue;
    if (q.num < 0n) add(ctx, invalid(key(path, name), value, 'must be greater than or equal to 0'));
    else if (integer && !isWhole(q)) add(ctx, invalid(key(path, name), value, 'must be an integer'));
    else if (!nameProblem) checked?.values.push([name, q]);
  }
  return checked;
}

function validate(frq: FederatedResourceQuota, ctx: RuleContext): void {
  const spec = record(frq.spec);
  const overallPath = SPEC_OVERALL;
  const assignmentsPath = SPEC_STATIC_ASSIGNMENTS;
  const overall = checkResourceList(ctx, spec.overall, overallPath);

  const assignments = list(spec.staticAssignments).map(record);
  checkUnique(ctx, assignments, (a) => a.clusterName, (a, i) =>
    duplicate(child(index(assignmentsPath, i), 'clusterName'), a.clusterName, 'a cluster may have only one static assignment'),
  );

  // Without an overall map the schema already reports it missing; every assigned key would be blamed again.
  const overallMap = isRecord(spec.overall) ? spec.overall : undefined;
  const counted = new Set<unknown>();
  const sums = new Map<string, Q>();
  assignments.forEach((assignment, i) => {
    const hardPath = child(index(assignmentsPath, i), 'hard');
    const hard = checkResourceList(ctx, assignment.hard, hardPath);
    if (overallMap) {
      for (const name of hard.names) {
        if (!Object.hasOwn(overallMap, name)) {
          add(ctx, invalid(key(hardPath, name), name, 'is not a resource in spec.overall: a static assignment can only divide a resource that has an overall limit'));
        }
      }
    }
    // A repeated cluster is reported as a duplicate; counting it again would blame overall too.
    if (counted.has(assignment.clusterName)) return;
    if (isString(assignment.clusterName) && assignment.clusterName !== '') counted.add(assignment.clusterName);
    for (const [name, q] of hard.values) sums.set(name, addQuantity(sums.get(name) ?? ZERO, q));
  });

  // Compared by value: `1` equals `1000m`, `32Gi` equals `32768Mi`.
  for (const [name, limit] of overall.values) {
    const sum = sums.get(name);
    if (sum && compareQuantity(limit, sum) < 0) {
      add(ctx, invalid(key(overallPath, name), record(spec.overall)[name], `overall is less than the sum of static assignments (${formatQuantity(sum)})`));
    }
  }
}

/** A non-negative exact value as quantity text: `3`, `1500m`, `0.0005`. */
export function formatQuantity(q: Q): string {
  if (q.den === 1n) return q.num.toString();
  if ((q.num * 1000n) % q.den === 0n) return `${(q.num * 1000n) / q.den}m`;
  // Parsed quantities have power-of-ten denominators, so the decimal expansion ends.
  let digits = 0;
  let scale = 1n;
  while ((q.num * scale) % q.den !== 0n) {
    scale *= 10n;
    digits++;
  }
  const scaled = ((q.num * scale) / q.den).toString().padStart(digits + 1, '0');
  return `${scaled.slice(0, -digits)}.${scaled.slice(-digits)}`;
}

function validateStatus(frq: FederatedResourceQuota, ctx: RuleContext): void {
  const status = record(frq.status);
  checkResourceList(ctx, status.overall, STATUS_OVERALL, false);
  checkResourceList(ctx, status.overallUsed, STATUS_OVERALL_USED, false);
  list(status.aggregatedStatus).forEach((item, i) => {
    const path = index(STATUS_AGGREGATED_STATUS, i);
    checkResourceList(ctx, record(item).hard, child(path, 'hard'), false);
    checkResourceList(ctx, record(item).used, child(path, 'used'), false);
  });
}

export const rules: KindRules<FederatedResourceQuota> = {
  kind: 'FederatedResourceQuota',
  group: 'policy',
  version: 'v1alpha1',
  plural: 'federatedresourcequotas',
  scope: 'Namespaced',
  statusSubresource: true,
  schema,
  nameError: quotaName,
  validate,
  validateStatus,
};
