/**
 * MultiClusterIngress (networking.<domain>/v1alpha1, namespaced): an Ingress spread over
 * clusters. The spec rules are Kubernetes' Ingress validation as Karmada lifts it.
 */
import { Arr, Enum, Int32, LIST_ATOMIC, MAP_ATOMIC, Obj, Opt, PortStatus, ReqStr, Str, StrList, envelope, type Static } from './_shared/schema.js';
import { add, addWarning, child, index, isInt32, isRecord, isString, key, list, record } from './_shared/checks.js';
import { invalid, required } from '../src/engine/field-error.js';
import { renderValue } from '../src/engine/field.js';
import { dns1123Subdomain, dnsHostname, wildcardDns1123Subdomain } from '../src/checks/names.js';
import type { KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const METADATA_ANNOTATIONS = FieldPath.of('metadata', 'annotations');

const SPEC = FieldPath.of('spec');

export const PATH_TYPES = ['Exact', 'Prefix', 'ImplementationSpecific'] as const;
export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

const TypedLocalObjectReference = Obj(
  {
    apiGroup: Opt(Str({ format: 'dns1123-subdomain' })),
    kind: ReqStr({ format: 'path-segment-name' }),
    name: ReqStr({ format: 'path-segment-name' }),
  },
  MAP_ATOMIC,
);

// Name and number exclude each other and one is required, and a number is 1-65535: checked in
// checkServicePort. As in Kubernetes, an empty name and a number 0 count as not set (the format
// accepts ''), so the schema cannot state the number's range without blaming a 0 it allows.
const ServiceBackendPort = Obj(
  {
    name: Opt(Str({ format: 'port-name' })),
    number: Opt(Int32()),
  },
  MAP_ATOMIC,
);

const IngressBackend = Obj({
  resource: Opt(TypedLocalObjectReference),
  service: Opt(Obj({ name: ReqStr({ format: 'dns1035-label' }), port: Opt(ServiceBackendPort) })),
});

const HTTPIngressPath = Obj({
  path: Opt(Str()),
  pathType: Enum(PATH_TYPES),
  backend: IngressBackend,
});

const IngressRule = Obj({
  host: Opt(Str()),
  http: Opt(Obj({ paths: Arr(HTTPIngressPath, { minItems: 1, ...LIST_ATOMIC }) })),
});

const IngressTLS = Obj({ hosts: Opt(StrList(LIST_ATOMIC)), secretName: Opt(Str()) });

const MultiClusterIngressSpec = Obj({
  defaultBackend: Opt(IngressBackend),
  ingressClassName: Opt(Str({ format: 'dns1123-subdomain' })),
  rules: Opt(Arr(IngressRule, LIST_ATOMIC)),
  tls: Opt(Arr(IngressTLS, LIST_ATOMIC)),
});

const IngressLoadBalancerIngress = Obj({
  ip: Opt(Str({ format: 'ip' })),
  hostname: Opt(Str({ format: 'dns-hostname' })),
  ports: Opt(Arr(PortStatus, LIST_ATOMIC)),
});

const MultiClusterIngressStatus = Obj({
  loadBalancer: Opt(Obj({ ingress: Opt(Arr(IngressLoadBalancerIngress, LIST_ATOMIC)) })),
  serviceLocations: Opt(Arr(Obj({ name: ReqStr({ format: 'dns1035-label' }), clusters: Opt(StrList()) }))),
  trafficBlockClusters: Opt(StrList()),
});

// Karmada's CRD leaves spec optional; the rules, not the schema, reject an empty one.
export const schema = Obj({ ...envelope, spec: Opt(MultiClusterIngressSpec), status: Opt(MultiClusterIngressStatus) });
export type MultiClusterIngress = Static<typeof schema>;

const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

/** A rule host: precise or `*.`-wildcard DNS name, never an IP (no address has a `*`). */
const hostError = (host: string): string | undefined => (host.includes('*') ? wildcardDns1123Subdomain(host) : dnsHostname(host));

function validate(mci: MultiClusterIngress, ctx: RuleContext): void {
  checkIngressClassAnnotation(ctx, record(mci.metadata).annotations, record(mci.spec).ingressClassName);
  if (mci.spec !== undefined && !isRecord(mci.spec)) return; // a wrong type is the schema's to report
  const spec = record(mci.spec);
  const path = SPEC;
  const noRules = spec.rules === undefined || (Array.isArray(spec.rules) && spec.rules.length === 0);
  if (spec.defaultBackend === undefined && noRules) {
    add(ctx, invalid(path, spec.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec.defaultBackend !== undefined) checkBackend(ctx, spec.defaultBackend, child(path, 'defaultBackend'));
  list(spec.rules).forEach((rule, i) => checkRule(ctx, rule, index(child(path, 'rules'), i)));
  list(spec.tls).forEach((tls, i) => checkTLS(ctx, tls, index(child(path, 'tls'), i)));
}

function checkRule(ctx: RuleContext, rule: unknown, path: FieldPath): void {
  const r = record(rule);
  if (isString(r.host) && r.host !== '') {
    const problem = hostError(r.host);
    if (problem) add(ctx, invalid(child(path, 'host'), r.host, problem));
  }
  list(record(r.http).paths).forEach((p, j) => checkPath(ctx, p, index(child(child(path, 'http'), 'paths'), j)));
}

function checkPath(ctx: RuleContext, httpPath: unknown, path: FieldPath): void {
  const p = record(httpPath);
  const pathPath = child(path, 'path');
  const value = p.path;
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (value === undefined || value === '') {
      add(ctx, required(pathPath, `must be specified when pathType is '${p.pathType}'`));
    } else if (isString(value)) {
      const problems = exactOrPrefixPathProblems(value);
      if (problems.length) add(ctx, invalid(pathPath, value, problems.join('; ')));
    }
  } else if (p.pathType === 'ImplementationSpecific' && isString(value) && value !== '' && !value.startsWith('/')) {
    add(ctx, invalid(pathPath, value, 'must be an absolute path'));
  }
  if (p.backend !== undefined) checkBackend(ctx, p.backend, child(path, 'backend'));
}

/** Exact and Prefix paths are matched element by element, so they must be clean absolute paths. */
function exactOrPrefixPathProblems(value: string): string[] {
  const problems: string[] = [];
  if (!value.startsWith('/')) problems.push('must be an absolute path');
  for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) problems.push(`must not contain '${seq}'`);
  for (const suffix of INVALID_PATH_SUFFIXES) if (value.endsWith(suffix)) problems.push(`cannot end with '${suffix}'`);
  return problems;
}

/** Exactly one of resource and service; a service names its port by name or by number. */
function checkBackend(ctx: RuleContext, backend: unknown, path: FieldPath): void {
  if (!isRecord(backend)) return; // a wrong type is the schema's to report
  // null is not set, as Go decodes it; the schema reports its type, and it is not a second backend.
  const hasResource = backend.resource !== undefined && backend.resource !== null;
  const hasService = backend.service !== undefined && backend.service !== null;
  if (hasResource && hasService) {
    add(ctx, invalid(path, backend, 'cannot set both resource and service backends'));
  } else if (!hasResource && !hasService) {
    add(ctx, required(path, 'resource or service backend is required'));
  } else if (hasService && isRecord(backend.service)) {
    checkServicePort(ctx, backend.service.port, child(child(path, 'service'), 'port'));
  }
}

function checkServicePort(ctx: RuleContext, port: unknown, path: FieldPath): void {
  if (port !== undefined && !isRecord(port)) return;
  const p = record(port);
  // A value of the wrong type is the schema's to report, not a missing one.
  if ((p.name !== undefined && !isString(p.name)) || (p.number !== undefined && typeof p.number !== 'number')) return;
  const hasName = isString(p.name) && p.name !== '';
  const hasNumber = p.number !== undefined && p.number !== 0;
  if (hasName && hasNumber) add(ctx, invalid(path, p, 'cannot set both port name & port number'));
  else if (!hasName && !hasNumber) add(ctx, required(path, 'port name or number is required'));
  // A fraction, or a number outside int32, is the schema's to report.
  if (hasNumber && isInt32(p.number) && (p.number < 1 || p.number > MAX_PORT)) {
    add(ctx, invalid(child(path, 'number'), p.number, `must be between 1 and ${MAX_PORT}, inclusive`));
  }
}

const MAX_PORT = 65535;

function checkTLS(ctx: RuleContext, tls: unknown, path: FieldPath): void {
  const t = record(tls);
  list(t.hosts).forEach((host, k) => {
    if (!isString(host)) return;
    const problem = host.includes('*') ? wildcardDns1123Subdomain(host) : dns1123Subdomain(host);
    if (problem) add(ctx, invalid(index(child(path, 'hosts'), k), host, problem));
  });
  if (isString(t.secretName) && t.secretName !== '') {
    const problem = dns1123Subdomain(t.secretName);
    if (problem) add(ctx, invalid(child(path, 'secretName'), t.secretName, problem));
  }
}

/** The legacy class annotation still works in controllers but is deprecated; it never denies. */
function checkIngressClassAnnotation(ctx: RuleContext, annotations: unknown, ingressClassName: unknown): void {
  const a = record(annotations);
  if (!(INGRESS_CLASS_ANNOTATION in a)) return;
  const field = key(METADATA_ANNOTATIONS, INGRESS_CLASS_ANNOTATION);
  addWarning(ctx, field, `${field}: deprecated; use spec.ingressClassName`);
  const annotated = a[INGRESS_CLASS_ANNOTATION];
  if (isString(ingressClassName) && ingressClassName !== '' && isString(annotated) && annotated !== ingressClassName) {
    addWarning(
      ctx,
      field,
      `${field} (${renderValue(annotated)}) differs from spec.ingressClassName (${renderValue(ingressClassName)}); controllers may disagree about which class serves this ingress`,
    );
  }
}

export const rules: KindRules<MultiClusterIngress> = {
  kind: 'MultiClusterIngress',
  group: 'networking',
  version: 'v1alpha1',
  plural: 'multiclusteringresses',
  scope: 'Namespaced',
  statusSubresource: true,
  schema,
  validate,
};
