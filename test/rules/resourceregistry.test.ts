import { describe, expect, it } from 'vitest';
import { validate } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, type Case } from '../helpers.js';

import { registry } from '../fixtures/resourceregistry.js';

/** The same registry with the backend under the spec's name. */
const withSearchEngine = changed(registry, (o) => {
  o.spec.backendStore = { searchEngine: o.spec.backendStore.openSearch };
});

describe('ResourceRegistry', () => {
  it('accepts a realistic registry with an openSearch backend', () => {
    const result = expectCauses(registry, []);
    expect(result.warnings).toEqual([]);
  });

  it('accepts the same registry with the backend named searchEngine', () => {
    const result = expectCauses(withSearchEngine, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name not a subdomain', edit: (o) => (o.metadata.name = 'Cache'), want: [Invalid('metadata.name')] },
    // spec
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'spec empty', edit: (o) => (o.spec = {}), want: [Required('spec.resourceSelectors'), Required('spec.targetCluster')] },
    // resourceSelectors
    { name: 'resourceSelectors missing', edit: (o) => delete o.spec.resourceSelectors, want: [Required('spec.resourceSelectors')] },
    { name: 'resourceSelectors empty', edit: (o) => (o.spec.resourceSelectors = []), want: [Required('spec.resourceSelectors')] },
    { name: 'a single selector', edit: (o) => o.spec.resourceSelectors.pop(), want: [] },
    { name: 'selector without apiVersion', edit: (o) => delete o.spec.resourceSelectors[0].apiVersion, want: [Required('spec.resourceSelectors[0].apiVersion')] },
    { name: 'selector with empty apiVersion', edit: (o) => (o.spec.resourceSelectors[0].apiVersion = ''), want: [Required('spec.resourceSelectors[0].apiVersion')] },
    { name: 'selector with empty kind', edit: (o) => (o.spec.resourceSelectors[0].kind = ''), want: [Required('spec.resourceSelectors[0].kind')] },
    { name: 'selector apiVersion a/b/c', edit: (o) => (o.spec.resourceSelectors[0].apiVersion = 'a/b/c'), want: [Invalid('spec.resourceSelectors[0].apiVersion')] },
    { name: 'selector core apiVersion v1', edit: (o) => (o.spec.resourceSelectors[0].apiVersion = 'v1'), want: [] },
    { name: 'selector namespace not a label', edit: (o) => (o.spec.resourceSelectors[1].namespace = 'Shop'), want: [Invalid('spec.resourceSelectors[1].namespace')] },
    { name: 'selector namespace empty (all namespaces)', edit: (o) => (o.spec.resourceSelectors[1].namespace = ''), want: [] },
    { name: 'selector unknown field', edit: (o) => (o.spec.resourceSelectors[0].name = 'x'), want: [Forbidden('spec.resourceSelectors[0].name')], options: { strict: true } },
    // Neither the spec nor Karmada forbids a repeat, and it selects nothing more: a warning (below), not a denial.
    { name: 'repeated selector', edit: (o) => o.spec.resourceSelectors.push({ apiVersion: 'v1', kind: 'Pod', namespace: 'shop' }), want: [] },
    {
      name: 'two selectors with an empty apiVersion: not duplicates on top',
      edit: (o) => {
        o.spec.resourceSelectors[0].apiVersion = '';
        o.spec.resourceSelectors.push({ apiVersion: '', kind: 'Deployment' });
      },
      want: [Required('spec.resourceSelectors[0].apiVersion'), Required('spec.resourceSelectors[2].apiVersion')],
    },
    {
      name: 'two selectors with an empty kind: not duplicates on top',
      edit: (o) => {
        o.spec.resourceSelectors[0].kind = '';
        o.spec.resourceSelectors.push({ apiVersion: 'apps/v1', kind: '' });
      },
      want: [Required('spec.resourceSelectors[0].kind'), Required('spec.resourceSelectors[2].kind')],
    },
    { name: 'same kind in another namespace', edit: (o) => o.spec.resourceSelectors.push({ apiVersion: 'v1', kind: 'Pod', namespace: 'billing' }), want: [] },
    { name: 'same kind in all namespaces and one', edit: (o) => o.spec.resourceSelectors.push({ apiVersion: 'v1', kind: 'Pod' }), want: [] },
    // targetCluster
    { name: 'targetCluster missing', edit: (o) => delete o.spec.targetCluster, want: [Required('spec.targetCluster')] },
    { name: 'targetCluster empty (all clusters)', edit: (o) => (o.spec.targetCluster = {}), want: [] },
    { name: 'field selector key unsupported', edit: (o) => (o.spec.targetCluster.fieldSelector.matchExpressions[0].key = 'name'), want: [NotSupported('spec.targetCluster.fieldSelector.matchExpressions[0].key')] },
    { name: 'field selector key zone', edit: (o) => (o.spec.targetCluster.fieldSelector.matchExpressions[0].key = 'zone'), want: [] },
    { name: 'field selector operator Exists', edit: (o) => (o.spec.targetCluster.fieldSelector.matchExpressions[0] = { key: 'provider', operator: 'Exists' }), want: [NotSupported('spec.targetCluster.fieldSelector.matchExpressions[0].operator')] },
    { name: 'field selector operator NotIn', edit: (o) => (o.spec.targetCluster.fieldSelector.matchExpressions[0].operator = 'NotIn'), want: [] },
    { name: 'field selector In without values', edit: (o) => delete o.spec.targetCluster.fieldSelector.matchExpressions[0].values, want: [Required('spec.targetCluster.fieldSelector.matchExpressions[0].values')] },
    { name: 'label selector bad value', edit: (o) => (o.spec.targetCluster.labelSelector.matchLabels.environment = 'prod env'), want: [Invalid('spec.targetCluster.labelSelector.matchLabels[environment]')] },
    { name: 'label selector Exists with values', edit: (o) => (o.spec.targetCluster.labelSelector.matchExpressions[0].operator = 'Exists'), want: [Forbidden('spec.targetCluster.labelSelector.matchExpressions[0].values')] },
    { name: 'label selector unsupported operator', edit: (o) => (o.spec.targetCluster.labelSelector.matchExpressions[0].operator = 'Gt'), want: [NotSupported('spec.targetCluster.labelSelector.matchExpressions[0].operator')] },
    { name: 'clusterNames not strings', edit: (o) => (o.spec.targetCluster.clusterNames = [1]), want: [Invalid('spec.targetCluster.clusterNames[0]')] },
    // backendStore
    { name: 'no backendStore', edit: (o) => delete o.spec.backendStore, want: [] },
    { name: 'both backend names', edit: (o) => (o.spec.backendStore.searchEngine = structuredClone(o.spec.backendStore.openSearch)), want: [Forbidden('spec.backendStore.openSearch')] },
    { name: 'unknown backend', edit: (o) => (o.spec.backendStore.elasticsearch = {}), want: [Forbidden('spec.backendStore.elasticsearch')], options: { strict: true } },
    { name: 'addresses missing', edit: (o) => delete o.spec.backendStore.openSearch.addresses, want: [Required('spec.backendStore.openSearch.addresses')] },
    { name: 'addresses empty', edit: (o) => (o.spec.backendStore.openSearch.addresses = []), want: [Required('spec.backendStore.openSearch.addresses')] },
    { name: 'address empty', edit: (o) => (o.spec.backendStore.openSearch.addresses[1] = ''), want: [Required('spec.backendStore.openSearch.addresses[1]')] },
    ...['http://10.0.0.7:9200', 'https://[fd00::7]:9200', 'https://search.example.com', 'http://opensearch:9200/prefix',
      // Go's url.Parse (Karmada's check) takes these
      'https://search.example.com:99999', 'http://opensearch:9200/a%20b?x#y'].map(
      (address): Case => ({ name: `address ${address}`, edit: (o) => (o.spec.backendStore.openSearch.addresses[1] = address), want: [] }),
    ),
    ...['opensearch:9200', 'ftp://opensearch:21', 'https://', '10.0.0.7:9200', 'file:///tmp/index', 'not a url', 'https:opensearch:9200', 'https:\\\\opensearch:9200',
      // Go's url.Parse refuses these, which WHATWG's `new URL()` repairs
      ' https://opensearch:9200', 'https://open search:9200', 'https://opensearch:9200/%zz', 'https://open{search}:9200'].map(
      (address): Case => ({ name: `address ${address}`, edit: (o) => (o.spec.backendStore.openSearch.addresses[1] = address), want: [Invalid('spec.backendStore.openSearch.addresses[1]')] }),
    ),
    { name: 'repeated address', edit: (o) => o.spec.backendStore.openSearch.addresses.push('https://opensearch-0.search.svc:9200'), want: [] },
    { name: 'secretRef missing', edit: (o) => delete o.spec.backendStore.openSearch.secretRef, want: [Required('spec.backendStore.openSearch.secretRef')] },
    { name: 'secretRef without namespace', edit: (o) => delete o.spec.backendStore.openSearch.secretRef.namespace, want: [Required('spec.backendStore.openSearch.secretRef.namespace')] },
    { name: 'secretRef with empty name', edit: (o) => (o.spec.backendStore.openSearch.secretRef.name = ''), want: [Required('spec.backendStore.openSearch.secretRef.name')] },
    // status
    { name: 'condition status unsupported', edit: (o) => (o.status.conditions[0].status = 'Yes'), want: [NotSupported('status.conditions[0].status')] },
    { name: 'condition reason empty', edit: (o) => (o.status.conditions[0].reason = ''), want: [Required('status.conditions[0].reason')] },
    { name: 'duplicate condition type', edit: (o) => o.status.conditions.push({ ...o.status.conditions[0] }), want: [Duplicate('status.conditions[1].type')] },
    { name: 'two condition types', edit: (o) => o.status.conditions.push({ ...o.status.conditions[0], type: 'Synced' }), want: [] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(registry, edit), want, options);
  });

  const searchEngineCases: Case[] = [
    { name: 'addresses empty', edit: (o) => (o.spec.backendStore.searchEngine.addresses = []), want: [Required('spec.backendStore.searchEngine.addresses')] },
    { name: 'address without scheme', edit: (o) => (o.spec.backendStore.searchEngine.addresses[0] = 'opensearch-0:9200'), want: [Invalid('spec.backendStore.searchEngine.addresses[0]')] },
    { name: 'repeated address', edit: (o) => o.spec.backendStore.searchEngine.addresses.push('https://opensearch-1.search.svc:9200'), want: [] },
    { name: 'secretRef missing', edit: (o) => delete o.spec.backendStore.searchEngine.secretRef, want: [Required('spec.backendStore.searchEngine.secretRef')] },
    { name: 'secretRef without name', edit: (o) => delete o.spec.backendStore.searchEngine.secretRef.name, want: [Required('spec.backendStore.searchEngine.secretRef.name')] },
    { name: 'secretRef without namespace', edit: (o) => delete o.spec.backendStore.searchEngine.secretRef.namespace, want: [Required('spec.backendStore.searchEngine.secretRef.namespace')] },
  ];

  it.each(searchEngineCases)('searchEngine: $name', ({ edit, want, options }) => {
    expectCauses(changed(withSearchEngine, edit), want, options);
  });

  it('explains a bad address and the double backend', () => {
    const result = validate(
      changed(registry, (o) => {
        o.spec.backendStore.openSearch.addresses[0] = 'ftp://opensearch:21';
        o.spec.backendStore.searchEngine = { addresses: ['https://opensearch:9200'], secretRef: { namespace: 'a', name: 'b' } };
      }),
    );
    expect(result.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      'spec.backendStore.openSearch: Forbidden: may not be set together with spec.backendStore.searchEngine; they are the same setting',
      'spec.backendStore.openSearch.addresses[0]: Invalid value: "ftp://opensearch:21": must be a valid http or https URL with non-empty scheme and host; the scheme is "ftp"',
    ]);
  });

  it('warns of a repeated selector or address, naming where it was first listed', () => {
    const result = validate(
      changed(registry, (o) => {
        o.spec.resourceSelectors.push({ apiVersion: 'v1', kind: 'Pod', namespace: 'shop' });
        // An empty namespace and none are both every namespace.
        o.spec.resourceSelectors.push({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: '' });
        o.spec.backendStore.openSearch.addresses.push(o.spec.backendStore.openSearch.addresses[1]);
      }),
    );
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual([
      'spec.resourceSelectors[2]: the selector of v1 Pod in namespace "shop" is already listed at spec.resourceSelectors[1]',
      'spec.resourceSelectors[3]: the selector of apps/v1 Deployment in every namespace is already listed at spec.resourceSelectors[0]',
      'spec.backendStore.openSearch.addresses[2]: address "https://opensearch-1.search.svc:9200" is already listed at spec.backendStore.openSearch.addresses[1]',
    ]);
  });

  it('does not warn of a repeated empty address, which is refused as missing', () => {
    const result = expectCauses(
      changed(registry, (o) => (o.spec.backendStore.openSearch.addresses = ['', ''])),
      [Required('spec.backendStore.openSearch.addresses[0]'), Required('spec.backendStore.openSearch.addresses[1]')],
    );
    expect(result.warnings).toEqual([]);
  });

  it('does not warn of a repeat among selectors without an apiVersion or kind, which the schema reports', () => {
    const at = 'spec.resourceSelectors';
    const twice = (selector: object) => [selector, selector];
    const result = expectCauses(
      changed(registry, (o) => {
        o.spec.resourceSelectors = [
          ...twice({ apiVersion: '', kind: 'Pod' }),
          ...twice({ apiVersion: 'v1', kind: '' }),
          ...twice({ apiVersion: 1, kind: 'Pod' }),
          ...twice({ apiVersion: 'v1', kind: 5 }),
        ];
      }),
      [
        Required(`${at}[0].apiVersion`), Required(`${at}[1].apiVersion`), Required(`${at}[2].kind`), Required(`${at}[3].kind`),
        Invalid(`${at}[4].apiVersion`), Invalid(`${at}[5].apiVersion`), Invalid(`${at}[6].kind`), Invalid(`${at}[7].kind`),
      ],
    );
    expect(result.warnings).toEqual([]);
    // Fixed, the same selectors are repeats.
    const fixed = validate(changed(registry, (o) => (o.spec.resourceSelectors = [...twice({ apiVersion: 'v1', kind: 'Pod' })])));
    expect(fixed.allowed).toBe(true);
    expect(fixed.warnings).toEqual([`${at}[1]: the selector of v1 Pod in every namespace is already listed at ${at}[0]`]);
  });

  it('rejects bad status on the status subresource and ignores the spec there', () => {
    const statusWrite = changed(registry, (o) => {
      o.spec.resourceSelectors = [];
      o.status.conditions[0].type = 'not camel';
    });
    expectCauses(statusWrite, [Invalid('status.conditions[0].type')], { operation: 'UPDATE', subResource: 'status', oldObject: registry });
  });

  it('allows renaming the backend member on UPDATE', () => {
    expectCauses(withSearchEngine, [], { operation: 'UPDATE', oldObject: registry });
  });
});
