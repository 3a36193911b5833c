/**
 * Discovery as kube-apiserver serves it for custom resources: `/version`, `/api`, `/apis`
 * (aggregated discovery v2 and v2beta1, or the legacy APIGroupList), `/apis/<group>` (APIGroup)
 * and `/apis/<group>/<version>` (APIResourceList with the `<plural>/status` entries).
 *
 *   const answer = discoveryResponse({ path: url.pathname, accept: req.headers.accept,
 *     ifNoneMatch: req.headers['if-none-match'], groupDomain });
 *   if (answer) { res.writeHead(answer.status, answer.headers); res.end(answer.body); }
 *   // undefined: not a discovery path (or an unknown group): the caller answers 404.
 *
 * The representation of `/api` and `/apis` is chosen from the Accept header as kube's
 * WrappedHandler chooses it, and announced by the Content-Type, which is all client-go reads
 * (`application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`).
 */
import { createHash } from 'node:crypto';
import { apiGroups, RESOURCE_VERBS, STATUS_VERBS, type ApiResource, type Group, type GroupVersion } from './resources.js';
import { negotiate, notAcceptableStatus, PLAIN, type EndpointRestrictions } from './negotiation.js';

/** The Kubernetes version reported: the kubectl dispatcher runs the kubectl of the server's minor. */
export const KUBERNETES_MAJOR = '1';
export const KUBERNETES_MINOR = '32';

export interface VersionOptions {
  /** fleetgate's own version, carried as semver build metadata of gitVersion. */
  fleetgateVersion?: string;
  buildDate?: string;
}

/** The `/version` document (apimachinery version.Info). */
export function versionInfo(options: VersionOptions = {}): Record<string, string> {
  const build = options.fleetgateVersion ? `+fleetgate.${options.fleetgateVersion}` : '+fleetgate';
  return {
    major: KUBERNETES_MAJOR,
    minor: KUBERNETES_MINOR,
    gitVersion: `v${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}.0${build}`,
    gitCommit: '',
    gitTreeState: '',
    buildDate: options.buildDate ?? '',
    goVersion: `node${process.version}`,
    compiler: 'node',
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

export type DiscoveryRepresentation = { aggregated: 'v2' | 'v2beta1'; contentType: string } | { aggregated: false; contentType: string };

const AGGREGATED_GROUP = 'apidiscovery.k8s.io';
const AGGREGATED_KIND = 'APIGroupDiscoveryList';
const JSON_TYPE = 'application/json';
const OFFERED = [JSON_TYPE] as const;

/** aggregated.DiscoveryEndpointRestrictions: only the aggregated discovery conversion is allowed. */
const AGGREGATED: EndpointRestrictions = {
  allowsTransform: (_type, _subType, target) =>
    target !== undefined && target.group === AGGREGATED_GROUP && (target.version === 'v2' || target.version === 'v2beta1') && target.kind === AGGREGATED_KIND,
  allowsStream: (schema) => schema === 'watch',
};

export const aggregatedContentType = (version: 'v2' | 'v2beta1'): string => `${JSON_TYPE};g=${AGGREGATED_GROUP};v=${version};as=${AGGREGATED_KIND}`;

/**
 * The representation of `/api` and `/apis` for an Accept header: aggregated v2 or v2beta1 when a
 * clause asks for it (kubectl asks v2, then v2beta1, then plain JSON), else legacy JSON;
 * undefined when not even plain JSON is acceptable (406).
 */
export function negotiateDiscovery(accept: string | undefined): DiscoveryRepresentation | undefined {
  const aggregated = negotiate(accept, OFFERED, AGGREGATED);
  if (aggregated?.convert) {
    const version = aggregated.convert.version as 'v2' | 'v2beta1';
    return { aggregated: version, contentType: aggregatedContentType(version) };
  }
  return negotiate(accept, OFFERED, PLAIN) ? { aggregated: false, contentType: JSON_TYPE } : undefined;
}

/** `/api`: no legacy core group here. */
export function apiDocument(representation: DiscoveryRepresentation, serverAddress?: string): Record<string, unknown> {
  if (representation.aggregated) return aggregatedList(representation.aggregated, []);
  return {
    kind: 'APIVersions',
    versions: [],
    serverAddressByClientCIDRs: serverAddress ? [{ clientCIDR: '0.0.0.0/0', serverAddress }] : [],
  };
}

/** `/apis`. */
export function apisDocument(representation: DiscoveryRepresentation, groupDomain?: string): Record<string, unknown> {
  const groups = apiGroups(groupDomain);
  if (representation.aggregated) return aggregatedList(representation.aggregated, groups.map(groupDiscovery));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(legacyGroup) };
}

/** `/apis/<group>`, or undefined for a group not served. */
export function groupDocument(group: string, groupDomain?: string): Record<string, unknown> | undefined {
  const found = apiGroups(groupDomain).find((g) => g.name === group);
  return found && { kind: 'APIGroup', apiVersion: 'v1', ...legacyGroup(found) };
}

/** `/apis/<group>/<version>`, or undefined for a group-version not served. */
export function groupVersionDocument(group: string, version: string, groupDomain?: string): Record<string, unknown> | undefined {
  const gv = apiGroups(groupDomain)
    .find((g) => g.name === group)
    ?.versions.find((v) => v.version === version);
  return gv && { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv.groupVersion, resources: gv.resources.flatMap(legacyResources) };
}

function aggregatedList(version: 'v2' | 'v2beta1', items: unknown[]): Record<string, unknown> {
  return { kind: AGGREGATED_KIND, apiVersion: `${AGGREGATED_GROUP}/${version}`, metadata: {}, items };
}

function groupDiscovery(group: Group): Record<string, unknown> {
  return {
    metadata: { name: group.name, creationTimestamp: null },
    versions: group.versions.map((v) => ({ version: v.version, resources: v.resources.map(resourceDiscovery), freshness: 'Current' })),
  };
}

const responseKind = (r: ApiResource) => ({ group: r.group, version: r.version, kind: r.kind });

function resourceDiscovery(r: ApiResource): Record<string, unknown> {
  return {
    resource: r.plural,
    responseKind: responseKind(r),
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: RESOURCE_VERBS,
    ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length ? { categories: r.categories } : {}),
    subresources: [{ subresource: 'status', responseKind: responseKind(r), verbs: STATUS_VERBS }],
  };
}

const versionForDiscovery = (v: GroupVersion) => ({ groupVersion: v.groupVersion, version: v.version });

function legacyGroup(group: Group): Record<string, unknown> {
  return { name: group.name, versions: group.versions.map(versionForDiscovery), preferredVersion: versionForDiscovery(group.versions[0]!) };
}

function legacyResources(r: ApiResource): Record<string, unknown>[] {
  return [
    {
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: RESOURCE_VERBS,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
    },
    { name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: STATUS_VERBS },
  ];
}

export interface DiscoveryRequest {
  /** The URL path, without the query. */
  path: string;
  accept?: string;
  ifNoneMatch?: string;
  groupDomain?: string;
  /** host:port clients reach this server at, for `/api`'s serverAddressByClientCIDRs. */
  serverAddress?: string;
  version?: VersionOptions;
}

export interface DiscoveryResponse {
  status: number;
  headers: Record<string, string>;
  /** Empty for a 304. */
  body: string;
}

/**
 * The answer to a GET of a discovery path, or undefined when `path` is not one this server
 * serves (the caller answers 404 NotFound). Aggregated documents carry an ETag (the upper-case
 * hex SHA-512 of the document, as kube) and answer 304 to a matching If-None-Match.
 */
export function discoveryResponse(request: DiscoveryRequest): DiscoveryResponse | undefined {
  const { path, groupDomain } = request;
  if (path === '/version' || path === '/version/') return json(200, versionInfo(request.version));
  if (path === '/api' || path === '/api/' || path === '/apis' || path === '/apis/') {
    const representation = negotiateDiscovery(request.accept);
    if (!representation) return json(406, notAcceptableStatus(OFFERED));
    const document = path.startsWith('/apis')
      ? apisDocument(representation, groupDomain)
      : apiDocument(representation, request.serverAddress);
    if (!representation.aggregated) return json(200, document);
    // kube hashes the v2 form whichever version is served; Vary keeps the two apart in caches.
    const etag = `"${sha512Hex(JSON.stringify({ ...document, apiVersion: `${AGGREGATED_GROUP}/v2` }))}"`;
    const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'public' };
    if (request.ifNoneMatch === etag) return { status: 304, headers, body: '' };
    return { status: 200, headers: { ...headers, 'Content-Type': representation.contentType }, body: JSON.stringify(document) };
  }
  const parts = /^\/apis\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
  if (!parts) return undefined;
  const document = parts[2] === undefined ? groupDocument(parts[1]!, groupDomain) : groupVersionDocument(parts[1]!, parts[2], groupDomain);
  if (!document) return undefined;
  if (!negotiate(request.accept, OFFERED, PLAIN)) return json(406, notAcceptableStatus(OFFERED));
  return json(200, document);
}

const json = (status: number, document: unknown): DiscoveryResponse => ({
  status,
  headers: { 'Content-Type': JSON_TYPE },
  body: JSON.stringify(document),
});

export const sha512Hex = (text: string): string => createHash('sha512').update(text).digest('hex').toUpperCase();

