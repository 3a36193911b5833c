/**
 * ResourceInterpreterWebhookConfiguration (config.<domain>/v1alpha1, cluster-scoped):
 * registers external webhooks that interpret resources. The webhooks sit at the top
 * level (`webhooks`), there is no `spec`.
 */
import { Arr, Enum, Int32, Obj, Opt, Port, RawObject, ReqStr, Str, envelope, listMap, type Static } from './_shared/schema.js';
import { add, addWarning, checkUnique, child, index, isRecord, isString, list, record } from './_shared/checks.js';
import { memoizeVerdict, ownCopy } from '../src/checks/memo.js';
import { type Cause } from '../src/engine/field.js';
import { duplicate, invalid, required } from '../src/engine/field-error.js';
import { dns1035Label, dns1123Subdomain } from '../src/checks/names.js';
import { parseGoURL } from '../src/checks/go-url.js';
import { hostPortError, splitHostPort } from '../src/checks/endpoint.js';
import type { DefaultContext, KindRules, Lookups, RuleContext, Service } from '../src/engine/rule.js';
import { isThenable } from '../src/util/is.js';
import { FieldPath } from '../src/engine/path.js';

/** The interpreter operations a webhook rule may name (Karmada's list; `Prune` is not among them). */
export const INTERPRETER_OPERATIONS = [
  '*',
  'InterpretReplica',
  'InterpretComponent',
  'InterpretDependency',
  'ReviseReplica',
  'Retain',
  'AggregateStatus',
  'InterpretStatus',
  'InterpretHealth',
] as const;

/** The ResourceInterpreterContext versions this control plane speaks. */
export const SUPPORTED_CONTEXT_VERSIONS = ['v1alpha1'] as const;

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_SERVICE_PORT = 443;

const ServiceReference = Obj({
  namespace: ReqStr(),
  name: ReqStr(),
  path: Opt(Str()),
  port: Opt(Port()),
});

const WebhookClientConfig = Obj({
  url: Opt(Str()),
  service: Opt(ServiceReference),
  caBundle: Opt(Str({ format: 'byte' })),
});

const RuleWithOperations = Obj({
  operations: Arr(Enum(INTERPRETER_OPERATIONS), { minItems: 1 }),
  // "" is the core group.
  apiGroups: Arr(Str(), { minItems: 1 }),
  apiVersions: Arr(ReqStr(), { minItems: 1 }),
  kinds: Arr(ReqStr(), { minItems: 1 }),
});

const ResourceInterpreterWebhook = Obj({
  name: ReqStr({ format: 'fqdn' }),
  clientConfig: WebhookClientConfig,
  rules: Opt(Arr(RuleWithOperations)),
  timeoutSeconds: Opt(Int32({ minimum: 1, maximum: 30 })),
  // Emptiness is checked in validate() to give Karmada's message.
  interpreterContextVersions: Arr(ReqStr({ format: 'dns1035-label' })),
});

// Webhooks are named, and their names are unique: server-side apply merges them by name.
export const schema = Obj({ ...envelope, webhooks: Arr(ResourceInterpreterWebhook, listMap('name')), status: Opt(RawObject()) });
export type ResourceInterpreterWebhookConfiguration = Static<typeof schema>;

const URL_FORM = 'desired format: https://host[/path]';

/** Whether a value counts as given for the url/service choice (an empty url counts as absent). */
const given = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** One thing wrong with a webhook URL: the part at fault and what is wrong with it. */
interface URLProblem {
  value: string;
  message: string;
}

/**
 * A webhook URL: https, a host, no user info, fragment or query (Kubernetes'
 * ValidateWebhookURL), and a host that is not an in-cluster Service name. Each
 * problem is its own cause, as in Kubernetes.
 */
function checkWebhookURL(ctx: RuleContext, raw: string, path: FieldPath): void {
  for (const { value, message } of webhookURLProblems(raw)) add(ctx, invalid(path, value, message));
}

const NO_PROBLEMS: readonly URLProblem[] = Object.freeze([]);

/** A problem kept in a cache: its text copied out of the URL, which may be a slice of a whole request or file. */
const urlProblem = (value: string, message: string): URLProblem => ({ value: ownCopy(value), message: ownCopy(message) });

/** Every UPDATE sends the same URLs again: the parse is done once per URL. */
const webhookURLProblems = memoizeVerdict((raw: string): readonly URLProblem[] => {
  const { url, error } = parseGoURL(raw);
  if (error !== undefined) return [urlProblem(raw, `url must be a valid URL: ${error}; ${URL_FORM}`)];
  // No `scheme://`: scheme and host are missing together, one mistake.
  if (url.scheme === '' && url.host === '') return [urlProblem(raw, `url must be an absolute https URL with a host; ${URL_FORM}`)];
  const problems: URLProblem[] = [];
  if (url.scheme !== 'https') problems.push(urlProblem(url.scheme, `'https' is the only allowed URL scheme; ${URL_FORM}`));
  const hostProblem = url.host === '' ? undefined : hostPortError(url.host);
  if (url.host === '') problems.push(urlProblem('', `host must be specified; ${URL_FORM}`));
  else if (hostProblem) problems.push(urlProblem(raw, `url must be a valid URL: ${hostProblem}; ${URL_FORM}`));
  else {
    const { host } = splitHostPort(url.host);
    if (isInClusterServiceHost(host)) problems.push(urlProblem(host, 'the host refers to an in-cluster service: use clientConfig.service for a webhook inside the cluster'));
  }
  if (url.user !== undefined) problems.push(urlProblem(url.user, 'user information is not permitted in the URL'));
  if (url.fragment !== '') problems.push(urlProblem(url.fragment, 'fragments are not permitted in the URL'));
  if (url.rawQuery !== '') problems.push(urlProblem(url.rawQuery, 'query parameters are not permitted in the URL'));
  return problems.length ? problems : NO_PROBLEMS;
});

/**
 * `<service>.<namespace>.svc` and `...svc.cluster.local`. Clusters with another
 * cluster domain are not recognised: a `.svc.` label inside an external name is
 * not proof enough to reject it.
 */
function isInClusterServiceHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h.endsWith('.svc') || h.endsWith('.svc.cluster.local');
}

/** Bad segments of a service path described one by one; a path of thousands says how many more. */
const SEGMENTS_DESCRIBED = 8;

/** Kubernetes' service path rules: `/`-separated DNS-1123 subdomain segments, one trailing `/` ignored. */
const servicePathError = memoizeVerdict((path: string): string | undefined => {
  if (path === '' || path === '/') return undefined;
  const problems: string[] = [];
  if (!path.startsWith('/')) problems.push("must start with a '/'");
  let rest = path.startsWith('/') ? path.slice(1) : path;
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  let badSegments = 0;
  rest.split('/').forEach((segment, i) => {
    const problem = segment === '' ? 'may not be empty' : dns1123Subdomain(segment);
    if (problem && ++badSegments <= SEGMENTS_DESCRIBED) problems.push(segment === '' ? `segment[${i}] ${problem}` : `segment[${i}]: ${problem}`);
  });
  if (badSegments > SEGMENTS_DESCRIBED) problems.push(`${badSegments - SEGMENTS_DESCRIBED} more segments are not valid either`);
  return problems.length ? problems.join('; ') : undefined;
});

function checkClientConfig(ctx: RuleContext, clientConfig: unknown, path: FieldPath): void {
  if (!isRecord(clientConfig)) return; // missing or not an object: the schema reports it
  const hasURL = given(clientConfig.url);
  const hasService = given(clientConfig.service);
  if (!hasURL && !hasService) add(ctx, required(path, 'exactly one of url or service is required'));
  // The spec settles both: service takes precedence. Karmada refuses the pair; the spec wins.
  if (hasURL && hasService) addWarning(ctx, child(path, 'url'), `${path}: url is ignored because service is set (service takes precedence); set only one of them`);
  if (isString(clientConfig.url) && clientConfig.url !== '') checkWebhookURL(ctx, clientConfig.url, child(path, 'url'));
  const service = record(clientConfig.service);
  if (isString(service.path)) {
    const problem = servicePathError(service.path);
    if (problem) add(ctx, invalid(child(child(path, 'service'), 'path'), service.path, problem));
  }
}

/** The rule lists where `*` must stand alone, and what their values are called. */
const WILDCARD_LISTS: readonly (readonly [field: string, what: string])[] = [
  ['operations', 'operations'],
  ['apiGroups', 'API groups'],
  ['apiVersions', 'API versions'],
  ['kinds', 'kinds'],
];

function checkRule(ctx: RuleContext, rule: unknown, path: FieldPath): void {
  const r = record(rule);
  for (const [field, what] of WILDCARD_LISTS) {
    const values = list(r[field]);
    if (values.length > 1 && values.includes('*')) add(ctx, invalid(child(path, field), values, `if '*' is present, must not specify other ${what}`));
  }
}

function checkContextVersions(ctx: RuleContext, versions: unknown, path: FieldPath): void {
  if (!Array.isArray(versions)) return; // missing or not a list: the schema reports it
  if (versions.length === 0) {
    add(ctx, required(path, `must specify one of ${SUPPORTED_CONTEXT_VERSIONS.join(', ')}`));
    return;
  }
  checkUnique(ctx, versions, (v) => v, (v, k) => duplicate(index(path, k), v, 'duplicate version'));
  // A malformed element (reported by the schema) may be the supported version mistyped; don't pile on.
  const wellFormed = versions.every((v) => isString(v) && v !== '' && dns1035Label(v) === undefined);
  if (wellFormed && !versions.some((v) => (SUPPORTED_CONTEXT_VERSIONS as readonly unknown[]).includes(v))) {
    add(ctx, invalid(path, versions, `must include at least one of ${SUPPORTED_CONTEXT_VERSIONS.join(', ')}`));
  }
}

function validate(config: ResourceInterpreterWebhookConfiguration, ctx: RuleContext): void {
  const webhooks = list(config.webhooks);
  checkUnique(ctx, webhooks, (w) => record(w).name, (w, i) => duplicate(child(index(WEBHOOKS, i), 'name'), record(w).name));
  webhooks.forEach((webhook, i) => {
    const w = record(webhook);
    const path = index(WEBHOOKS, i);
    checkClientConfig(ctx, w.clientConfig, child(path, 'clientConfig'));
    list(w.rules).forEach((rule, j) => checkRule(ctx, rule, index(child(path, 'rules'), j)));
    checkContextVersions(ctx, w.interpreterContextVersions, child(path, 'interpreterContextVersions'));
  });
}

const WEBHOOKS = FieldPath.of('webhooks');

/** A service reference with both namespace and name, which a lookup can resolve. */
const usesService = (service: unknown): service is { namespace: string; name: string } =>
  isRecord(service) && isString(service.namespace) && service.namespace !== '' && isString(service.name) && service.name !== '';

interface ServiceUse {
  path: FieldPath;
  namespace: string;
  name: string;
}

function serviceUses(config: ResourceInterpreterWebhookConfiguration): ServiceUse[] {
  const uses: ServiceUse[] = [];
  list(config.webhooks).forEach((webhook, i) => {
    const service = record(record(record(webhook).clientConfig).service);
    if (usesService(service)) {
      uses.push({ path: child(child(index(WEBHOOKS, i), 'clientConfig'), 'service'), namespace: service.namespace, name: service.name });
    }
  });
  return uses;
}

function headlessCause(use: ServiceUse, service: Service | undefined): Cause | undefined {
  if (service?.spec?.clusterIP !== 'None') return undefined;
  return invalid(
    use.path,
    `${use.namespace}/${use.name}`,
    'cannot route to service with ClusterIP "None": point clientConfig.service at a Service with a cluster IP (ClusterIP, NodePort, LoadBalancer) or an ExternalName Service, or use clientConfig.url',
  );
}

/** Spec clientConfig rule 2: a Service whose ClusterIP is `None` cannot carry the webhook calls. */
function validateWithLookups(config: ResourceInterpreterWebhookConfiguration, lookups: Lookups, ctx: RuleContext): void | Promise<void> {
  const pending: Promise<void>[] = [];
  for (const use of serviceUses(config)) {
    const report = (service: unknown) => {
      const cause = headlessCause(use, service as Service | undefined);
      if (cause) add(ctx, cause);
    };
    let found: unknown;
    try {
      found = lookups.getService!(use.namespace, use.name); // present: see lookupFunction
    } catch (err) {
      // The answers already pending are abandoned: handled, so none can end the process unhandled.
      for (const p of pending) p.catch(() => undefined);
      throw err;
    }
    // Any thenable, not only this realm's Promise: a missed one would pass the rule unchecked.
    if (isThenable(found)) pending.push(Promise.resolve(found).then(report));
    else report(found);
  }
  if (pending.length) return Promise.all(pending).then(() => undefined);
}

function lookupsApply(config: ResourceInterpreterWebhookConfiguration): boolean {
  return list(config.webhooks).some((webhook) => usesService(record(record(webhook).clientConfig).service));
}

/** The spec's defaults: timeoutSeconds 10, service.port 443. */
function defaults(config: ResourceInterpreterWebhookConfiguration, ctx: DefaultContext): void {
  list(config.webhooks).forEach((webhook, i) => {
    if (!isRecord(webhook)) return;
    if (webhook.timeoutSeconds == null) ctx.set(['webhooks', i, 'timeoutSeconds'], DEFAULT_TIMEOUT_SECONDS);
    const clientConfig = webhook.clientConfig;
    if (isRecord(clientConfig) && isRecord(clientConfig.service) && clientConfig.service.port == null) {
      ctx.set(['webhooks', i, 'clientConfig', 'service', 'port'], DEFAULT_SERVICE_PORT);
    }
  });
}

export const rules: KindRules<ResourceInterpreterWebhookConfiguration> = {
  kind: 'ResourceInterpreterWebhookConfiguration',
  group: 'config',
  version: 'v1alpha1',
  plural: 'resourceinterpreterwebhookconfigurations',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  validate,
  validateWithLookups,
  lookupsNeeded: 'the Service behind clientConfig.service (ClusterIP "None" check)',
  lookupFunction: 'getService',
  lookupsApply,
  defaults,
};
