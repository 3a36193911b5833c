/**
 * MultiClusterService (networking.<domain>/v1alpha1, namespaced): one Service exposed
 * across clusters. Its name is the Service's name, so it follows Service name syntax.
 */
import { Arr, Conditions, Enum, LIST_ATOMIC, Obj, Opt, Port, PortStatus, ReqStr, Str, StrList, envelope, type Static } from './_shared/schema.js';
import { add, addWarning, checkConditions, checkUnique, child, index, isRecord, isString, list, record } from './_shared/checks.js';
import { renderValue } from '../src/engine/field.js';
import { duplicate, forbidden, invalid } from '../src/engine/field-error.js';
import { sameJson } from '../src/util/json-equal.js';
import { dns1035Label, dns1123Label } from '../src/checks/names.js';
import type { DefaultContext, KindRules, RuleContext } from '../src/engine/rule.js';
import { defaultPermanentId } from './_shared/permanent-id.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_TYPES = FieldPath.of('spec', 'types');
const STATUS_CONDITIONS = FieldPath.of('status', 'conditions');
const STATUS_LOAD_BALANCER_INGRESS = FieldPath.of('status', 'loadBalancer', 'ingress');

const SPEC = FieldPath.of('spec');

/** The spec names only CrossCluster; Karmada also serves LoadBalancer. */
export const EXPOSURE_TYPES = ['CrossCluster', 'LoadBalancer'] as const;

const ClusterSelector = Obj({ name: ReqStr({ format: 'cluster-name' }) });

const MultiClusterServiceSpec = Obj({
  types: Arr(Enum(EXPOSURE_TYPES), { minItems: 1 }),
  ports: Opt(Arr(Obj({ name: Opt(Str()), port: Port() }))),
  providerClusters: Opt(Arr(ClusterSelector)),
  consumerClusters: Opt(Arr(ClusterSelector)),
  range: Opt(Obj({ clusterNames: Opt(StrList()) })),
  serviceConsumptionClusters: Opt(StrList()),
  serviceProvisionClusters: Opt(StrList()),
});

const LoadBalancerIngress = Obj({
  ip: Opt(Str({ format: 'ip' })),
  hostname: Opt(Str({ format: 'dns-hostname' })),
  ipMode: Opt(Enum(['VIP', 'Proxy'])),
  ports: Opt(Arr(PortStatus, LIST_ATOMIC)),
});

const MultiClusterServiceStatus = Obj({
  conditions: Opt(Conditions()),
  loadBalancer: Opt(Obj({ ingress: Opt(Arr(LoadBalancerIngress, LIST_ATOMIC)) })),
});

export const schema = Obj({ ...envelope, spec: MultiClusterServiceSpec, status: Opt(MultiClusterServiceStatus) });
export type MultiClusterService = Static<typeof schema>;

const DEPRECATED_FIELDS: Record<string, string> = {
  range: 'spec.range is deprecated; use spec.providerClusters and spec.consumerClusters',
  serviceConsumptionClusters: 'spec.serviceConsumptionClusters is deprecated; use spec.consumerClusters',
  serviceProvisionClusters: 'spec.serviceProvisionClusters is deprecated; use spec.providerClusters',
};

const DEPRECATED_FIELD_LIST = Object.entries(DEPRECATED_FIELDS);

const isExposureType = (v: unknown): v is string => isString(v) && (EXPOSURE_TYPES as readonly string[]).includes(v);

function validate(mcs: MultiClusterService, ctx: RuleContext): void {
  const spec = record(mcs.spec);
  const path = SPEC;
  for (const [field, warning] of DEPRECATED_FIELD_LIST) if (spec[field] !== undefined) addWarning(ctx, child(path, field), warning);
  checkTypes(ctx, spec, path);
  checkPorts(ctx, spec.ports, child(path, 'ports'));
}

/**
 * One exposure type per service. Unsupported values are the schema's to report, so
 * only supported ones count towards "more than one type" and duplicates.
 */
function checkTypes(ctx: RuleContext, spec: Record<string, unknown>, path: FieldPath): void {
  const typesPath = child(path, 'types');
  const types = list(spec.types);
  const supported = types.filter(isExposureType);
  // A type listed twice is still one type (Karmada counts a set); only a second type is refused.
  const distinct = new Set(supported);
  if (distinct.size > 1) add(ctx, invalid(typesPath, spec.types, 'MultiClusterService types should not contain more than one type'));
  if (spec.range !== undefined && distinct.size > 0 && !distinct.has('CrossCluster')) {
    add(ctx, forbidden(child(path, 'range'), 'may only be set when spec.types contains CrossCluster'));
  }
}

function checkPorts(ctx: RuleContext, ports: unknown, path: FieldPath): void {
  list(ports).forEach((port, i) => {
    const name = record(port).name;
    if (!isString(name) || name === '') return;
    const problem = dns1123Label(name);
    if (problem) add(ctx, invalid(child(index(path, i), 'name'), name, problem));
  });
  checkUnique(ctx, list(ports), (p) => record(p).name, (p, i) => duplicate(child(index(path, i), 'name'), record(p).name));
}

function validateStatus(mcs: MultiClusterService, ctx: RuleContext): void {
  const status = record(mcs.status);
  checkConditions(ctx, status.conditions, STATUS_CONDITIONS);
  const ingressPath = STATUS_LOAD_BALANCER_INGRESS;
  list(record(status.loadBalancer).ingress).forEach((ingress, i) => {
    // An empty ip is already reported as not an IP address; only an absent one makes ipMode out of place.
    if (isRecord(ingress) && ingress.ipMode !== undefined && ingress.ip === undefined) {
      add(ctx, forbidden(child(index(ingressPath, i), 'ipMode'), 'may not be specified when `ip` is not'));
    }
  });
}

/** As in Karmada, types are compared as ordered lists: reordering counts as a change. */
function validateUpdate(mcs: MultiClusterService, old: MultiClusterService, ctx: RuleContext): void {
  const types = record(mcs.spec).types;
  const oldTypes = record(old.spec).types;
  if (!sameJson(types ?? null, oldTypes ?? null)) {
    add(ctx, invalid(SPEC_TYPES, types ?? null, `MultiClusterService types are immutable (was ${renderValue(oldTypes ?? null)})`));
  }
}

/** Karmada's controllers label what they derive from the service (its Works, Service and binding) with this id, and find them by it. */
export const PERMANENT_ID_LABEL = 'multiclusterservice.karmada.io/permanent-id';

function defaults(mcs: MultiClusterService, ctx: DefaultContext): void {
  defaultPermanentId(mcs, PERMANENT_ID_LABEL, ctx);
}

export const rules: KindRules<MultiClusterService> = {
  kind: 'MultiClusterService',
  group: 'networking',
  version: 'v1alpha1',
  plural: 'multiclusterservices',
  scope: 'Namespaced',
  statusSubresource: true,
  schema,
  nameError: dns1035Label,
  validate,
  validateStatus,
  validateUpdate,
  defaults,
  permanentIdLabel: PERMANENT_ID_LABEL,
};
