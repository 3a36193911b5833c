import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  apiDocument,
  apisDocument,
  discoveryResponse,
  groupDocument,
  groupVersionDocument,
  negotiateDiscovery,
  versionInfo,
} from '../../src/apiserver/discovery.js';
import { apiGroups, apiResources, compareKubeAwareVersions } from '../../src/apiserver/resources.js';
import { negotiate, parseAccept, PLAIN } from '../../src/apiserver/negotiation.js';
import { supportedKinds } from '../../src/index.js';

/** What kubectl 1.32 sends to /api and /apis (client-go discovery_client.go). */
const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

describe('the resource table', () => {
  it('has every kind of the library, with the names Karmada gives it', () => {
    const resources = apiResources();
    expect(resources.map((r) => r.kind)).toEqual(supportedKinds);
    const names = Object.fromEntries(resources.map((r) => [r.kind, [r.shortNames.join(), r.categories.join(), r.servedBy, r.singular]]));
    expect(names).toEqual({
      ResourceInterpreterWebhookConfiguration: ['', 'karmada-io', 'crd', 'resourceinterpreterwebhookconfiguration'],
      ResourceInterpreterCustomization: ['ric', 'karmada-io', 'crd', 'resourceinterpretercustomization'],
      MultiClusterIngress: ['mci', 'karmada-io', 'crd', 'multiclusteringress'],
      MultiClusterService: ['mcs', 'karmada-io', 'crd', 'multiclusterservice'],
      ResourceRegistry: ['', '', 'aggregated', 'resourceregistry'],
      Work: ['wk', 'karmada-io', 'crd', 'work'],
      ClusterResourceBinding: ['crb', 'karmada-io', 'crd', 'clusterresourcebinding'],
      Cluster: ['', '', 'aggregated', 'cluster'],
      CronFederatedHPA: ['cronfhpa', 'karmada-io', 'crd', 'cronfederatedhpa'],
      ClusterTaintPolicy: ['', '', 'crd', 'clustertaintpolicy'],
      FederatedResourceQuota: ['', 'karmada-io', 'crd', 'federatedresourcequota'],
      WorkloadRebalancer: ['', '', 'crd', 'workloadrebalancer'],
      Remedy: ['', 'karmada-io', 'crd', 'remedy'],
    });
  });

  it('marks the extra delete parameter where the spec does', () => {
    expect(apiResources().filter((r) => r.ignoreStoreReadErrorParameter).map((r) => r.kind)).toEqual([
      'ResourceInterpreterCustomization',
      'MultiClusterIngress',
      'CronFederatedHPA',
      'ClusterTaintPolicy',
      'WorkloadRebalancer',
    ]);
  });

  it('follows the group domain', () => {
    expect(apiResources('example.com').find((r) => r.kind === 'Work')).toMatchObject({ group: 'work.example.com', groupVersion: 'work.example.com/v1alpha1' });
    expect(apiResources().find((r) => r.kind === 'Work')?.group).toBe('work.karmada.io');
  });

  it('orders versions as kube does (apimachinery CompareKubeAwareVersionStrings)', () => {
    const sorted = ['v1alpha1', 'foo1', 'v1', 'v2beta1', 'v10', 'v1beta2', 'v1alpha2', 'bar', 'v11alpha2', 'v2'].sort((a, b) =>
      compareKubeAwareVersions(b, a),
    );
    expect(sorted).toEqual(['v10', 'v2', 'v1', 'v2beta1', 'v1beta2', 'v11alpha2', 'v1alpha2', 'v1alpha1', 'bar', 'foo1']);
    expect(compareKubeAwareVersions('v1', 'v1')).toBe(0);
  });

  it('groups by name, preferred version first', () => {
    const groups = apiGroups();
    expect(groups.map((g) => g.name)).toEqual([
      'apps.karmada.io',
      'autoscaling.karmada.io',
      'cluster.karmada.io',
      'config.karmada.io',
      'networking.karmada.io',
      'policy.karmada.io',
      'remedy.karmada.io',
      'search.karmada.io',
      'work.karmada.io',
    ]);
    expect(groups.find((g) => g.name === 'work.karmada.io')!.versions.map((v) => v.version)).toEqual(['v1alpha2', 'v1alpha1']);
    expect(groups.find((g) => g.name === 'config.karmada.io')!.versions[0]!.resources.map((r) => r.plural)).toEqual([
      'resourceinterpretercustomizations',
      'resourceinterpreterwebhookconfigurations',
    ]);
  });
});

describe('Accept negotiation (goautoneg + NegotiateMediaTypeOptions)', () => {
  it('parses and orders clauses as goautoneg', () => {
    const clauses = parseAccept('text/*;q=0.5, */*;q=0.1, application/json;v=v1 ; g=x, text/html, bad, a/b/c, */');
    expect(clauses.map((c) => `${c.type}/${c.subType};${c.q}`)).toEqual(['application/json;1', 'text/html;1', '*/*;1', 'text/*;0.5', '*/*;0.10000000149011612']);
    expect(clauses[0]!.params).toEqual({ v: 'v1', g: 'x' });
  });

  it('skips parameters goautoneg skips and reads q as a 32-bit float', () => {
    const [clause] = parseAccept('application/json;as=;g=a=b;v=v2=;q=x');
    expect(clause!.params).toEqual({ v: 'v2' });
    expect(clause!.q).toBe(0);
  });

  it('puts a concrete type before a wildcard of the same quality, and keeps equal clauses in order', () => {
    expect(parseAccept('*/*, application/json;as=Table, application/json').map((c) => c.params.as ?? c.type)).toEqual(['Table', 'application', '*']);
  });

  it('takes the first offered type for an absent header and none for an unacceptable one', () => {
    expect(negotiate(undefined, ['application/json'], PLAIN)).toEqual({ mediaType: 'application/json', pretty: false });
    expect(negotiate('application/xml', ['application/json'], PLAIN)).toBeUndefined();
    expect(negotiate('application/*', ['application/json'], PLAIN)?.mediaType).toBe('application/json');
  });
});

describe('discovery representation', () => {
  it('answers kubectl with aggregated v2', () => {
    expect(negotiateDiscovery(KUBECTL_ACCEPT)).toEqual({ aggregated: 'v2', contentType: V2 });
  });

  it('answers an older client that asks only v2beta1 with v2beta1', () => {
    expect(negotiateDiscovery(`${V2BETA1},application/json`)).toEqual({ aggregated: 'v2beta1', contentType: V2BETA1 });
  });

  it('answers plain JSON, a wildcard or no Accept with the legacy documents', () => {
    for (const accept of ['application/json', '*/*', undefined, 'application/json, */*']) {
      expect(negotiateDiscovery(accept)).toEqual({ aggregated: false, contentType: 'application/json' });
    }
  });

  it('serves aggregated whenever a clause asks for it, whatever the q of plain JSON (kube\'s WrappedHandler)', () => {
    expect(negotiateDiscovery(`application/json;q=0.9,${V2};q=0.5`)?.aggregated).toBe('v2');
    expect(negotiateDiscovery(`application/json;q=0.5,${V2};q=0.9`)?.aggregated).toBe('v2');
  });

  it('picks among the aggregated versions by q', () => {
    expect(negotiateDiscovery(`${V2};q=0.5,${V2BETA1};q=0.9`)?.aggregated).toBe('v2beta1');
    expect(negotiateDiscovery(`${V2BETA1};q=0.5,${V2};q=0.9`)?.aggregated).toBe('v2');
  });

  it('refuses a conversion kube does not serve, and any type but JSON', () => {
    expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList')).toBeUndefined();
    expect(negotiateDiscovery('application/json;as=Table;v=v1;g=meta.k8s.io')).toBeUndefined();
    expect(negotiateDiscovery('application/vnd.kubernetes.protobuf')).toBeUndefined();
    expect(negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json')?.aggregated).toBe(false);
  });
});

describe('discovery documents', () => {
  const v2 = { aggregated: 'v2', contentType: V2 } as const;
  const legacy = { aggregated: false, contentType: 'application/json' } as const;

  it('reports Kubernetes 1.32 at /version, so the kubectl dispatcher runs kubectl 1.32', () => {
    const info = versionInfo({ fleetgateVersion: '0.1.0' });
    expect(info).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.0+fleetgate.0.1.0' });
    expect(Object.keys(info)).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
  });

  it('has no legacy core group at /api', () => {
    expect(apiDocument(v2)).toEqual({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: [] });
    expect(apiDocument({ aggregated: 'v2beta1', contentType: V2BETA1 })).toMatchObject({ apiVersion: 'apidiscovery.k8s.io/v2beta1', items: [] });
    expect(apiDocument(legacy, '10.0.0.1:6443')).toEqual({
      kind: 'APIVersions',
      versions: [],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  it('lists every resource in aggregated discovery, with verbs, names and the status subresource', () => {
    const doc = apisDocument(v2) as { items: { metadata: { name: string }; versions: { version: string; freshness: string; resources: any[] }[] }[] };
    const resources = doc.items.flatMap((g) => g.versions.flatMap((v) => v.resources));
    expect(resources).toHaveLength(13);
    const work = resources.find((r) => r.resource === 'works');
    expect(work).toEqual({
      resource: 'works',
      responseKind: { group: 'work.karmada.io', version: 'v1alpha1', kind: 'Work' },
      scope: 'Namespaced',
      singularResource: 'work',
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      shortNames: ['wk'],
      categories: ['karmada-io'],
      subresources: [{ subresource: 'status', responseKind: { group: 'work.karmada.io', version: 'v1alpha1', kind: 'Work' }, verbs: ['get', 'patch', 'update'] }],
    });
    const cluster = resources.find((r) => r.resource === 'clusters');
    expect(cluster.scope).toBe('Cluster');
    expect(cluster).not.toHaveProperty('shortNames');
    expect(cluster).not.toHaveProperty('categories');
    const workGroup = doc.items.find((g) => g.metadata.name === 'work.karmada.io')!;
    expect(workGroup.versions.map((v) => [v.version, v.freshness])).toEqual([
      ['v1alpha2', 'Current'],
      ['v1alpha1', 'Current'],
    ]);
  });

  it('lists the groups with their preferred version in the legacy APIGroupList and APIGroup', () => {
    const doc = apisDocument(legacy) as { kind: string; apiVersion: string; groups: any[] };
    expect(doc.kind).toBe('APIGroupList');
    expect(doc.apiVersion).toBe('v1');
    expect(doc.groups).toHaveLength(9);
    const work = {
      name: 'work.karmada.io',
      versions: [
        { groupVersion: 'work.karmada.io/v1alpha2', version: 'v1alpha2' },
        { groupVersion: 'work.karmada.io/v1alpha1', version: 'v1alpha1' },
      ],
      preferredVersion: { groupVersion: 'work.karmada.io/v1alpha2', version: 'v1alpha2' },
    };
    expect(doc.groups.find((g) => g.name === 'work.karmada.io')).toEqual(work);
    expect(groupDocument('work.karmada.io')).toEqual({ kind: 'APIGroup', apiVersion: 'v1', ...work });
    expect(groupDocument('nope.karmada.io')).toBeUndefined();
  });

  it('lists a group-version with the <plural>/status entries', () => {
    expect(groupVersionDocument('work.karmada.io', 'v1alpha1')).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'work.karmada.io/v1alpha1',
      resources: [
        {
          name: 'works',
          singularName: 'work',
          namespaced: true,
          kind: 'Work',
          verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
          shortNames: ['wk'],
          categories: ['karmada-io'],
        },
        { name: 'works/status', singularName: '', namespaced: true, kind: 'Work', verbs: ['get', 'patch', 'update'] },
      ],
    });
    expect(groupVersionDocument('work.karmada.io', 'v1')).toBeUndefined();
    expect(groupVersionDocument('work.example.com', 'v1alpha1', 'example.com')).toMatchObject({ groupVersion: 'work.example.com/v1alpha1' });
  });
});

describe('discoveryResponse', () => {
  it('answers /apis aggregated with its content type, an ETag, and 304 when the ETag matches', () => {
    const first = discoveryResponse({ path: '/apis', accept: KUBECTL_ACCEPT })!;
    expect(first.status).toBe(200);
    expect(first.headers['Content-Type']).toBe(V2);
    expect(first.headers.Vary).toBe('Accept');
    const hash = createHash('sha512').update(first.body).digest('hex').toUpperCase();
    expect(first.headers.ETag).toBe(`"${hash}"`);
    expect(JSON.parse(first.body).items).toHaveLength(9);
    const again = discoveryResponse({ path: '/apis', accept: KUBECTL_ACCEPT, ifNoneMatch: first.headers.ETag })!;
    expect([again.status, again.body]).toEqual([304, '']);
    expect(discoveryResponse({ path: '/apis', accept: KUBECTL_ACCEPT, ifNoneMatch: '"other"' })!.status).toBe(200);
  });

  it('gives v2beta1 the same ETag as v2 (kube hashes the v2 form) and a v2beta1 body', () => {
    const v2 = discoveryResponse({ path: '/apis', accept: V2 })!;
    const beta = discoveryResponse({ path: '/apis', accept: V2BETA1 })!;
    expect(beta.headers.ETag).toBe(v2.headers.ETag);
    expect(JSON.parse(beta.body).apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
  });

  it('answers the legacy forms without an ETag', () => {
    const apis = discoveryResponse({ path: '/apis/', accept: 'application/json' })!;
    expect(apis.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(apis.body).kind).toBe('APIGroupList');
    expect(JSON.parse(discoveryResponse({ path: '/apis/work.karmada.io' })!.body).kind).toBe('APIGroup');
    expect(JSON.parse(discoveryResponse({ path: '/apis/work.karmada.io/v1alpha2' })!.body).resources[0].name).toBe('clusterresourcebindings');
    expect(JSON.parse(discoveryResponse({ path: '/api', accept: 'application/json' })!.body).kind).toBe('APIVersions');
  });

  it('answers 406 with kube\'s Status for an unacceptable Accept', () => {
    const answer = discoveryResponse({ path: '/apis', accept: 'application/xml' })!;
    expect(answer.status).toBe(406);
    expect(JSON.parse(answer.body)).toMatchObject({
      kind: 'Status',
      reason: 'NotAcceptable',
      code: 406,
      message: 'only the following media types are accepted: application/json',
    });
    expect(discoveryResponse({ path: '/apis/work.karmada.io', accept: 'text/html' })!.status).toBe(406);
  });

  it('serves /version whatever the Accept, and nothing for other paths', () => {
    expect(JSON.parse(discoveryResponse({ path: '/version', accept: 'text/html' })!.body).minor).toBe('32');
    expect(discoveryResponse({ path: '/apis/work.karmada.io/v1alpha1/works' })).toBeUndefined();
    expect(discoveryResponse({ path: '/apis/nope.karmada.io' })).toBeUndefined();
    expect(discoveryResponse({ path: '/healthz' })).toBeUndefined();
    expect(discoveryResponse({ path: '/api/v1' })).toBeUndefined();
  });

  it('serves the group domain asked for', () => {
    const body = JSON.parse(discoveryResponse({ path: '/apis', accept: V2, groupDomain: 'example.com' })!.body);
    expect(body.items.map((g: { metadata: { name: string } }) => g.metadata.name)).toContain('cluster.example.com');
    expect(discoveryResponse({ path: '/apis/cluster.karmada.io', groupDomain: 'example.com' })).toBeUndefined();
  });
});
