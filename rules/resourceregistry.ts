/** ResourceRegistry (search.<domain>/v1alpha1, cluster-scoped): which resources of which clusters are cached, and where. */
import { Arr, ClusterAffinity, Conditions, LocalSecretReference, Obj, Opt, ReqStr, Str, envelope, type Static } from './_shared/schema.js';
import { add, checkClusterAffinity, checkConditions, child, index, isRecord, isString, list, record, tupleKey, warnRepeats } from './_shared/checks.js';
import { forbidden, invalid } from '../src/engine/field-error.js';
import { renderValue, shortText } from '../src/engine/field.js';
import { dns1123Label } from '../src/checks/names.js';
import { memoizeVerdict } from '../src/checks/memo.js';
import { parseGoURL } from '../src/checks/go-url.js';
import type { KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_BACKEND_STORE = FieldPath.of('spec', 'backendStore');
const SPEC_RESOURCE_SELECTORS = FieldPath.of('spec', 'resourceSelectors');
const SPEC_TARGET_CLUSTER = FieldPath.of('spec', 'targetCluster');
const STATUS_CONDITIONS = FieldPath.of('status', 'conditions');

const ResourceSelector = Obj({
  apiVersion: ReqStr({ format: 'group-version' }),
  kind: ReqStr(),
  // Empty means all namespaces, so the DNS-label check is in validate, not a format.
  namespace: Opt(Str()),
});

/** The search-engine backend; the secret named by secretRef holds `userName` and `password`. */
const SearchEngineConfig = Obj({
  addresses: Arr(ReqStr(), { minItems: 1 }),
  secretRef: LocalSecretReference,
});

/**
 * The spec names the member `searchEngine`; Karmada (and the objects already written
 * for it) name it `openSearch`. Both are accepted, one at a time.
 */
const BackendStoreConfig = Obj({
  searchEngine: Opt(SearchEngineConfig),
  openSearch: Opt(SearchEngineConfig),
});

const ResourceRegistrySpec = Obj({
  resourceSelectors: Arr(ResourceSelector, { minItems: 1 }),
  targetCluster: ClusterAffinity,
  backendStore: Opt(BackendStoreConfig),
});

const ResourceRegistryStatus = Obj({ conditions: Opt(Conditions()) });

export const schema = Obj({ ...envelope, spec: ResourceRegistrySpec, status: Opt(ResourceRegistryStatus) });
export type ResourceRegistry = Static<typeof schema>;

const BACKEND_MEMBERS = ['searchEngine', 'openSearch'] as const;

/** Karmada's check: Go's url.Parse, scheme http or https, a host. */
const addressError = memoizeVerdict((address: string): string | undefined => {
  const problem = 'must be a valid http or https URL with non-empty scheme and host';
  const { url, error } = parseGoURL(address);
  if (error !== undefined) return `${problem}; ${error}`;
  if (url.scheme !== 'http' && url.scheme !== 'https') return `${problem}; the scheme is "${url.scheme}"`;
  return url.host === '' ? `${problem}; the host is empty` : undefined;
});

function checkSelectors(ctx: RuleContext, selectors: unknown, path: FieldPath): void {
  const items = list(selectors);
  items.forEach((s, i) => {
    const namespace = record(s).namespace;
    if (isString(namespace) && namespace !== '') {
      const problem = dns1123Label(namespace);
      if (problem) add(ctx, invalid(child(index(path, i), 'namespace'), namespace, problem));
    }
  });
  // Neither the spec nor Karmada forbids a repeat, and it selects nothing more: a warning, not a denial.
  warnRepeats(
    ctx,
    items,
    path,
    (item) => {
      const s = record(item);
      return isString(s.apiVersion) && s.apiVersion !== '' && isString(s.kind) && s.kind !== '' ? tupleKey(s.apiVersion, s.kind, namespaceOf(s)) : undefined;
    },
    (item) => {
      const s = record(item);
      return `the selector of ${shortText(String(s.apiVersion))} ${shortText(String(s.kind))} ${namespaceOf(s) === '' ? 'in every namespace' : `in namespace ${renderValue(s.namespace)}`}`;
    },
  );
}

/** A selector's namespace; empty and absent both mean every namespace. */
const namespaceOf = (selector: Record<string, unknown>): string => (isString(selector.namespace) ? selector.namespace : '');

function checkBackendStore(ctx: RuleContext, backendStore: unknown, path: FieldPath): void {
  const store = record(backendStore);
  if (isRecord(store.searchEngine) && isRecord(store.openSearch)) {
    add(ctx, forbidden(child(path, 'openSearch'), 'may not be set together with spec.backendStore.searchEngine; they are the same setting'));
  }
  for (const member of BACKEND_MEMBERS) {
    const addressesPath = child(child(path, member), 'addresses');
    const addresses = list(record(store[member]).addresses);
    addresses.forEach((a, i) => {
      if (!isString(a) || a === '') return;
      const problem = addressError(a);
      if (problem) add(ctx, invalid(index(addressesPath, i), a, problem));
    });
    warnRepeats(ctx, addresses, addressesPath, (a) => (isString(a) ? a : undefined), (a) => `address ${renderValue(a)}`);
  }
}

function validate(registry: ResourceRegistry, ctx: RuleContext): void {
  const spec = record(registry.spec);
  checkSelectors(ctx, spec.resourceSelectors, SPEC_RESOURCE_SELECTORS);
  if (isRecord(spec.targetCluster)) checkClusterAffinity(ctx, spec.targetCluster, SPEC_TARGET_CLUSTER);
  checkBackendStore(ctx, spec.backendStore, SPEC_BACKEND_STORE);
}

function validateStatus(registry: ResourceRegistry, ctx: RuleContext): void {
  checkConditions(ctx, record(registry.status).conditions, STATUS_CONDITIONS);
}

export const rules: KindRules<ResourceRegistry> = {
  kind: 'ResourceRegistry',
  group: 'search',
  version: 'v1alpha1',
  plural: 'resourceregistries',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  validate,
  validateStatus,
};
