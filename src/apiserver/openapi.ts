/**
 * OpenAPI v3 as kube-apiserver serves it for custom resources: the `/openapi/v3` root, listing one
 * document per group-version under `serverRelativeURL` with `?hash=` (the upper-case hex SHA-512 of
 * the document), and the OpenAPI 3.0 documents built from the library's schemas.
 *
 *   const answer = openApiResponse({ path: url.pathname, hash: url.searchParams.get('hash'),
 *     accept: req.headers.accept, ifNoneMatch: req.headers['if-none-match'], groupDomain });
 *   if (answer) { res.writeHead(answer.status, answer.headers); res.end(answer.body); }
 *   // undefined: not an OpenAPI v3 path this server has: the caller answers 404.
 *
 * What kubectl needs from a document (kubectl-apiserver.md §3): item and collection paths whose
 * operations carry `x-kubernetes-group-version-kind` (one map); a PATCH declaring the
 * `fieldValidation` query parameter (else kubectl validates client-side against OpenAPI v2, which
 * this server has not) and never `application/strategic-merge-patch+json` (else `kubectl apply`
 * sends one and fails on the 415); component schemas with the GVK as an array, which `explain` finds.
 */
import { apiGroups, type ApiResource, type GroupVersion } from './resources.js';
import { toOpenApiSchema, type Schema } from './openapi-schema.js';
import { describeField } from './openapi-descriptions.js';
import { parseAccept } from './negotiation.js';
import { sha512Hex } from './discovery.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A `$ref` with a description beside it, which OpenAPI 3.0 allows only through allOf. */
const refWith = (name: string, description: string) => ({ allOf: [ref(name)], description });

/** kube-openapi's ToRESTFriendlyName: `cluster.karmada.io/v1alpha1.Cluster` → `io.karmada.cluster.v1alpha1.Cluster`. */
export const schemaName = (group: string, version: string, kind: string): string =>
  `${group.split('.').reverse().join('.')}.${version}.${kind}`;

export interface OpenApiDocument {
  /** `apis/<group>/<version>`, the key in the root's `paths`. */
  key: string;
  json: string;
  /** Upper-case hex SHA-512 of `json`. */
  hash: string;
  /** `/openapi/v3/apis/<group>/<version>?hash=<hash>` */
  serverRelativeURL: string;
}

export interface OpenApiSet {
  /** The `/openapi/v3` document. */
  root: { json: string; hash: string };
  documents: ReadonlyMap<string, OpenApiDocument>;
}

const built = new Map<string, OpenApiSet>();

/** The documents for `groupDomain`, built once. */
export function openApiDocuments(groupDomain?: string): OpenApiSet {
  const key = groupDomain ?? '';
  let set = built.get(key);
  if (set === undefined) {
    const documents = new Map<string, OpenApiDocument>();
    for (const group of apiGroups(groupDomain)) {
      for (const gv of group.versions) {
        const json = JSON.stringify(groupVersionDocument(gv));
        const hash = sha512Hex(json);
        const docKey = `apis/${gv.groupVersion}`;
        documents.set(docKey, { key: docKey, json, hash, serverRelativeURL: `/openapi/v3/${docKey}?hash=${hash}` });
      }
    }
    const paths = Object.fromEntries([...documents.values()].map((d) => [d.key, { serverRelativeURL: d.serverRelativeURL }]));
    const rootJson = JSON.stringify({ paths });
    set = { root: { json: rootJson, hash: sha512Hex(rootJson) }, documents };
    built.set(key, set);
  }
  return set;
}

/** The OpenAPI 3.0 document of one group-version. */
export function groupVersionDocument(gv: GroupVersion): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const metadataSchemas = new Set(gv.resources.map((r) => JSON.stringify(metadataOf(r))));
  const sharedMetadata = metadataSchemas.size === 1;
  for (const resource of gv.resources) {
    Object.assign(paths, resourcePaths(resource));
    schemas[schemaName(resource.group, resource.version, resource.kind)] = kindSchema(resource, sharedMetadata);
    schemas[schemaName(resource.group, resource.version, resource.listKind)] = listSchema(resource);
  }
  if (sharedMetadata) schemas[`${META}.ObjectMeta`] = objectMetaSchema(gv.resources[0]!);
  Object.assign(schemas, META_SCHEMAS);
  return {
    openapi: '3.0.0',
    info: { title: 'fleetgate apiserver', version: gv.groupVersion },
    paths,
    components: { schemas },
  };
}

function gvkOf(r: ApiResource, kind = r.kind) {
  return { group: r.group, version: r.version, kind };
}

function kindSchema(r: ApiResource, sharedMetadata: boolean): Schema {
  const { schema, dropped } = toOpenApiSchema(r.schema, (path) => describeField(r.kind, path));
  if (dropped.length) throw new Error(`the ${r.kind} schema has what OpenAPI 3.0 cannot carry: ${dropped.join('; ')}`);
  const properties = { ...(schema.properties as Schema) };
  if (sharedMetadata) properties.metadata = refWith(`${META}.ObjectMeta`, describeField(r.kind, 'metadata')!);
  return { ...schema, properties, 'x-kubernetes-group-version-kind': [gvkOf(r)] };
}

function listSchema(r: ApiResource): Schema {
  return {
    description: `${r.listKind} is a list of ${r.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: describeField(r.kind, 'apiVersion')! },
      items: { type: 'array', description: `List of ${r.plural}.`, items: ref(schemaName(r.group, r.version, r.kind)) },
      kind: { type: 'string', description: describeField(r.kind, 'kind')! },
      metadata: refWith(`${META}.ListMeta`, 'Standard list metadata.'),
    },
    'x-kubernetes-group-version-kind': [gvkOf(r, r.listKind)],
  };
}

const OBJECT_META_FIELDS: Readonly<Record<string, string>> = {
  name: 'Name must be unique within a namespace. Cannot be updated.',
  generateName: 'Optional prefix the server uses to generate a unique name, if name is not provided.',
  namespace: 'Namespace of a namespaced object; empty for cluster-scoped objects. Cannot be updated.',
  uid: 'Unique in time and space; set by the server on creation. Read-only.',
  resourceVersion: 'Opaque version of the object, for optimistic concurrency and watches. Set by the server. Read-only.',
  generation: 'A sequence number for the desired state; bumped by the server on every change of spec. Read-only.',
  creationTimestamp: 'Time the object was created, set by the server. Read-only.',
  deletionTimestamp: 'Time after which the object will be deleted, set by the server when a graceful deletion is requested. Read-only.',
  deletionGracePeriodSeconds: 'Seconds allowed for the object to terminate gracefully before it is removed. Read-only.',
  labels: 'Map of string keys and values to organize and select objects.',
  annotations: 'Unstructured key value map stored with the object; not queryable.',
  finalizers: 'Must be empty before the object is deleted from storage.',
  ownerReferences: 'Objects this object depends on.',
  managedFields: 'Which manager owns which fields (server-side apply); normally not edited by users.',
  selfLink: 'Deprecated; not set by the server.',
};

const metadataOf = (r: ApiResource): object => ((r.schema as Schema).properties as Schema)['metadata'] as object;

function objectMetaSchema(r: ApiResource): Schema {
  const { schema } = toOpenApiSchema(metadataOf(r), (path) => OBJECT_META_FIELDS[path]);
  return { ...schema, description: 'Metadata every persisted resource has.' };
}

const str = (description: string): Schema => ({ type: 'string', description });
const int64 = (description: string): Schema => ({ type: 'integer', format: 'int64', description });

/** The meta.k8s.io/v1 schemas the operations refer to. */
const META_SCHEMAS: Readonly<Record<string, Schema>> = {
  [`${META}.ListMeta`]: {
    description: 'Metadata of a list.',
    type: 'object',
    properties: {
      continue: str('Set when more results are available: pass it as the continue parameter to get the next page.'),
      remainingItemCount: int64('Number of items after this page, when the server knows it.'),
      resourceVersion: str('The revision the list was read at; a watch from it sees every later change.'),
      selfLink: str('Deprecated; not set by the server.'),
    },
  },
  [`${META}.Status`]: {
    description: 'The result of an operation that returns no object, and of every failure.',
    type: 'object',
    properties: {
      apiVersion: str(describeField('', 'apiVersion')!),
      code: { type: 'integer', format: 'int32', description: 'HTTP status code.' },
      details: refWith(`${META}.StatusDetails`, 'Extended data about the failure; its shape depends on the reason.'),
      kind: str('Status'),
      message: str('Human-readable description of the status.'),
      metadata: refWith(`${META}.ListMeta`, 'Standard list metadata.'),
      reason: str('Machine-readable reason for a failure, e.g. NotFound, AlreadyExists, Conflict, Invalid.'),
      status: str('Success or Failure.'),
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
  },
  [`${META}.StatusDetails`]: {
    description: 'Details of a failure.',
    type: 'object',
    properties: {
      causes: { type: 'array', description: 'The causes of the failure, such as each invalid field.', items: ref(`${META}.StatusCause`) },
      group: str('API group of the resource.'),
      kind: str('Kind of the resource.'),
      name: str('Name of the object, when there is one.'),
      retryAfterSeconds: { type: 'integer', format: 'int32', description: 'Seconds to wait before retrying.' },
      uid: str('UID of the object, when there is one.'),
    },
  },
  [`${META}.StatusCause`]: {
    description: 'One cause of a failure.',
    type: 'object',
    properties: {
      field: str('The field that caused the failure, as a path: spec.taints[0].effect.'),
      message: str('Human-readable description of the cause.'),
      reason: str('Machine-readable cause, e.g. FieldValueRequired.'),
    },
  },
  [`${META}.DeleteOptions`]: {
    description: 'Options of a delete, in the body or the query.',
    type: 'object',
    properties: {
      apiVersion: str(describeField('', 'apiVersion')!),
      dryRun: { type: 'array', description: 'All: run every check and store nothing.', items: { type: 'string' } },
      gracePeriodSeconds: int64('Seconds before the object is deleted; zero means at once.'),
      ignoreStoreReadErrorWithClusterBreakingPotential: {
        type: 'boolean',
        description: 'Delete an object that cannot be read from storage (a corrupt object); on the kinds that accept it.',
      },
      kind: str('DeleteOptions'),
      orphanDependents: { type: 'boolean', description: 'Deprecated: use propagationPolicy.' },
      preconditions: refWith(`${META}.Preconditions`, 'Must hold for the delete to go ahead, else 409 Conflict.'),
      propagationPolicy: str('Orphan, Background or Foreground: how dependents are garbage collected.'),
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'DeleteOptions' }],
  },
  [`${META}.Preconditions`]: {
    description: 'Conditions an object must meet before it is deleted.',
    type: 'object',
    properties: { resourceVersion: str('The resourceVersion the object must have.'), uid: str('The uid the object must have.') },
  },
  [`${META}.Patch`]: {
    description: 'The body of a PATCH request: a JSON patch, a JSON merge patch or an apply configuration.',
    type: 'object',
  },
};

interface Parameter {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  schema: Schema;
}

const query = (name: string, type: string, description: string): Parameter => ({ name, in: 'query', description, schema: { type, uniqueItems: true } });

const P = {
  pretty: query('pretty', 'string', "If 'true', the output is pretty printed."),
  dryRun: query('dryRun', 'string', 'All: run every check and store nothing.'),
  fieldManager: query('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields.'),
  fieldValidation: query('fieldValidation', 'string', 'Ignore, Warn or Strict (the default): how unknown and duplicate fields are handled.'),
  force: query('force', 'boolean', 'Apply requests only: take the conflicting fields over from other managers.'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; zero means at once.'),
  propagationPolicy: query('propagationPolicy', 'string', 'Orphan, Background or Foreground: how dependents are garbage collected.'),
  ignoreStoreReadError: query(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Delete an object that cannot be read from storage (a corrupt object).',
  ),
  allowWatchBookmarks: query('allowWatchBookmarks', 'boolean', 'Watch only: send BOOKMARK events.'),
  continue: query('continue', 'string', 'The continue token of the previous page.'),
  fieldSelector: query('fieldSelector', 'string', 'Select objects by field: metadata.name and metadata.namespace, with =, == and !=.'),
  labelSelector: query('labelSelector', 'string', 'Select objects by label: =, ==, !=, in, notin, key and !key, comma-separated.'),
  limit: query('limit', 'integer', 'At most this many objects; the list then carries a continue token for the rest.'),
  resourceVersion: query('resourceVersion', 'string', 'The revision to read at or watch from.'),
  resourceVersionMatch: query('resourceVersionMatch', 'string', 'Exact or NotOlderThan: how resourceVersion applies to a list.'),
  sendInitialEvents: query('sendInitialEvents', 'boolean', 'Watch only: start with the current objects, then a bookmark marking their end.'),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Ends the list or watch after this many seconds.'),
  watch: query('watch', 'boolean', 'Stream the changes instead of a list.'),
};

const LIST_PARAMETERS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMETERS = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'] as const;

const content = (schemaRef: string, types: readonly string[] = ['application/json']) =>
  Object.fromEntries(types.map((t) => [t, { schema: ref(schemaRef) }]));
const response = (description: string, schemaRef: string, types?: readonly string[]) => ({ description, content: content(schemaRef, types) });
const UNAUTHORIZED = { description: 'Unauthorized' };

/** apiserver's GetOperationIDAndTags: `patch` + `ClusterKarmadaIoV1alpha1` + `Cluster`. */
function operationId(verb: string, rest: string, r: ApiResource): string {
  return `${verb}${toOperationId(r.group, true)}${toOperationId(r.version, true)}${rest}`;
}

/** apiserver's ToValidOperationID: letters and digits kept, a capital after anything else. */
function toOperationId(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  for (const [i, c] of [...s].entries()) {
    if (/\p{L}/u.test(c) || c === '_' || (i !== 0 && /\p{Nd}/u.test(c))) {
      out += capitalize ? c.toUpperCase() : c;
      capitalize = false;
    } else capitalize = true;
  }
  return out;
}

function resourcePaths(r: ApiResource): Record<string, unknown> {
  const kindRef = schemaName(r.group, r.version, r.kind);
  const listRef = schemaName(r.group, r.version, r.listKind);
  const statusRef = `${META}.Status`;
  const gvk = gvkOf(r);
  const tags = [`${toOperationId(r.group, false)}_${toOperationId(r.version, false)}`];
  const ns = r.namespaced ? 'Namespaced' : '';
  const base = `/apis/${r.group}/${r.version}`;
  const collection = r.namespaced ? `${base}/namespaces/{namespace}/${r.plural}` : `${base}/${r.plural}`;
  const namespaceParam: Parameter[] = r.namespaced
    ? [{ name: 'namespace', in: 'path', required: true, description: 'object name and auth scope, such as for teams and projects', schema: { type: 'string', uniqueItems: true } }]
    : [];
  const nameParam: Parameter = { name: 'name', in: 'path', required: true, description: `name of the ${r.kind}`, schema: { type: 'string', uniqueItems: true } };
  const deleteParams = r.ignoreStoreReadErrorParameter ? [P.ignoreStoreReadError] : [];
  const op = (action: string, verb: string, rest: string, description: string, extra: Record<string, unknown>) => ({
    description,
    operationId: operationId(verb, rest, r),
    tags,
    ...extra,
    responses: { ...(extra.responses as object), 401: UNAUTHORIZED },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const listResponses = { 200: response('OK', listRef, ['application/json', 'application/json;stream=watch']) };
  const readReplace = (sub: string, subDesc: string) => ({
    get: op('get', 'read', `${ns}${r.kind}${sub}`, `read${subDesc} the specified ${r.kind}`, { responses: { 200: response('OK', kindRef) } }),
    put: op('put', 'replace', `${ns}${r.kind}${sub}`, `replace${subDesc} the specified ${r.kind}`, {
      parameters: WRITE_PARAMETERS,
      requestBody: { required: true, content: content(kindRef) },
      responses: { 200: response('OK', kindRef), 201: response('Created', kindRef) },
    }),
    patch: op('patch', 'patch', `${ns}${r.kind}${sub}`, `partially update${subDesc} the specified ${r.kind}`, {
      parameters: [...WRITE_PARAMETERS, P.force],
      requestBody: { required: true, content: content(`${META}.Patch`, PATCH_TYPES) },
      responses: { 200: response('OK', kindRef), 201: response('Created', kindRef) },
    }),
  });
  const paths: Record<string, unknown> = {};
  if (r.namespaced) {
    paths[`${base}/${r.plural}`] = {
      parameters: [P.pretty],
      get: op('list', 'list', `${r.kind}ForAllNamespaces`, `list or watch objects of kind ${r.kind}`, {
        parameters: LIST_PARAMETERS,
        responses: listResponses,
      }),
    };
  }
  paths[collection] = {
    parameters: [...namespaceParam, P.pretty],
    get: op('list', 'list', `${ns}${r.kind}`, `list or watch objects of kind ${r.kind}`, { parameters: LIST_PARAMETERS, responses: listResponses }),
    post: op('post', 'create', `${ns}${r.kind}`, `create ${article(r.kind)} ${r.kind}`, {
      parameters: WRITE_PARAMETERS,
      requestBody: { required: true, content: content(kindRef) },
      responses: { 200: response('OK', kindRef), 201: response('Created', kindRef), 202: response('Accepted', kindRef) },
    }),
    delete: op('deletecollection', 'delete', `Collection${ns}${r.kind}`, `delete collection of ${r.kind}`, {
      parameters: [P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.labelSelector, P.limit, P.propagationPolicy,
        P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, ...deleteParams],
      requestBody: { content: content(`${META}.DeleteOptions`) },
      responses: { 200: response('OK', statusRef) },
    }),
  };
  paths[`${collection}/{name}`] = {
    parameters: [nameParam, ...namespaceParam, P.pretty],
    ...readReplace('', ''),
    delete: op('delete', 'delete', `${ns}${r.kind}`, `delete ${article(r.kind)} ${r.kind}`, {
      parameters: [P.dryRun, P.gracePeriodSeconds, P.propagationPolicy, ...deleteParams],
      requestBody: { content: content(`${META}.DeleteOptions`) },
      responses: { 200: response('OK', statusRef), 202: response('Accepted', statusRef) },
    }),
  };
  paths[`${collection}/{name}/status`] = { parameters: [nameParam, ...namespaceParam, P.pretty], ...readReplace('Status', ' status of') };
  return paths;
}

/** apiserver's GetArticleForNoun: "an" before a vowel. */
const article = (noun: string): string => (/^[AEIOUaeiou]/.test(noun) ? 'an' : 'a');

export interface OpenApiRequest {
  path: string;
  /** The `hash` query parameter, if any. */
  hash?: string | null;
  accept?: string;
  ifNoneMatch?: string;
  groupDomain?: string;
  /** For the Expires header of an immutable answer; defaults to the current time. */
  now?: Date;
}

export interface OpenApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The answer to a GET under `/openapi/v3`, as kube-openapi's handler3 gives it, or undefined when
 * the path names no document (404). A group-version document with the current `?hash=` is
 * immutable (Cache-Control and Expires one year ahead, so kubectl keeps it on disk); a stale hash is
 * redirected (301) to the current one; a matching If-None-Match gets 304.
 */
export function openApiResponse(request: OpenApiRequest): OpenApiResponse | undefined {
  const set = openApiDocuments(request.groupDomain);
  const path = request.path.replace(/\/+$/, '');
  if (path === '/openapi/v3') return serve(set.root.json, set.root.hash, request, {});
  if (!path.startsWith('/openapi/v3/')) return undefined;
  const document = set.documents.get(path.slice('/openapi/v3/'.length));
  if (!document) return undefined;
  if (!acceptsJson(request.accept)) return { status: 406, headers: { Vary: 'Accept' }, body: '' };
  const headers: Record<string, string> = { Vary: 'Accept' };
  if (request.hash) {
    if (request.hash !== document.hash) {
      return { status: 301, headers: { ...headers, Location: document.serverRelativeURL, 'Content-Type': 'text/html; charset=utf-8' }, body: '' };
    }
    const expires = new Date((request.now ?? new Date()).getTime());
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    headers['Cache-Control'] = 'public, immutable';
    headers['Expires'] = expires.toUTCString();
  }
  return serve(document.json, document.hash, request, headers);
}

function serve(json: string, hash: string, request: OpenApiRequest, extra: Record<string, string>): OpenApiResponse {
  const headers = { ...extra, ETag: `"${hash}"`, 'Content-Type': 'application/json' };
  if (request.ifNoneMatch !== undefined && etagMatches(request.ifNoneMatch, headers.ETag)) return { status: 304, headers, body: '' };
  return { status: 200, headers, body: json };
}

/** If-None-Match as Go's http.ServeContent reads it: `*` or a list of (weak or strong) tags. */
function etagMatches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}

/** handler3 offers JSON (and protobuf, which this server has not): an absent Accept means any. */
function acceptsJson(accept: string | undefined): boolean {
  return parseAccept(accept || '*/*').some(
    (c) => (c.type === 'application' || c.type === '*') && (c.subType === 'json' || c.subType === '*'),
  );
}
