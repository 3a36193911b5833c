/**
 * The HTTP layer of `fleetgate apiserver` (Koa + @koa/router): the spec's Endpoints for every served
 * resource, under `/apis/<group>/<version>/…`. It reads requests (paths, query options, bodies,
 * media types, apply patches), hands them to the resource's registry, and writes kube-apiserver's
 * answers: the object or list, a Status on failure, `Warning: 299` headers, a watch stream.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Lookups, RuleOptions } from '../index.js';
import { groupDomainOf } from '../engine/rule.js';
import type { Storage } from './storage/index.js';
import { apiResources, type ApiResource as Resource } from './resources.js';
import { collectionPrefix } from './keys.js';
import { Registry } from './registry.js';
import { ApiError, badRequest, deleteCollectionSuccess, deleteSuccess, internalError, invalid, methodNotAllowed, pathNotFound, type Status } from './status.js';
import { decodeJson, readBody, MAX_REQUEST_BYTES } from './body.js';
import { cannotBeHandled } from './admission.js';
import { deleteOptions, param, writeOptions, type Query } from './request.js';
import { patcher, patchTypeOf } from './patch.js';
import { readAppliedBody } from './apply-body.js';
import { APPLY_PATCH } from './apply/index.js';
import { continueExpiredStatus, encodeContinue, listExpiredStatus, listRead, parseListOptions, tooLargeResourceVersionStatus, type ListOptions } from './list-options.js';
import { StorageError } from './storage/index.js';
import { WatchSet, serveWatch } from './watch.js';
import { type JsonObject } from './json.js';
import { isRecord } from '../util/is.js';
import { nameOf, namespaceOf } from './objects.js';
import { warningHeaders } from './warnings.js';
import { storeLookups } from './lookups.js';
import { discoveryResponse, type VersionOptions } from './discovery.js';
import { negotiateResource, partialObjectMetadata, partialObjectMetadataWatchEncoding, resourceNotAcceptableStatus, tableOptions, tableWatchEncoding, toTable, type ResourceRepresentation } from './table.js';
import { openApiResponse } from './openapi.js';

export interface ApiServerAppOptions extends RuleOptions {
  storage: Storage;
  groupDomain?: string;
  logger?: Logger;
  /** Authenticates a request; false answers 401. Absent: every request is let in (loopback). */
  authenticate?: (ctx: Koa.Context) => boolean;
  /** True once the server is shutting down: answers then carry `Connection: close`. */
  draining?: () => boolean;
  maxBodyBytes?: number;
  now?: () => Date;
  /** How long a watch with no `timeoutSeconds` runs: kube-apiserver's 1800 s to twice that, at random. */
  minRequestTimeoutSeconds?: number;
  /** How often a watch with `allowWatchBookmarks` gets a BOOKMARK (kube-apiserver: about a minute). */
  bookmarkIntervalMs?: number;
  /** Bytes of events a watch's client may leave unread before the watch is ended (default 4 MiB). */
  maxQueuedWatchBytes?: number;
  /** Overrides the lookups answered from this server's own store (tests). */
  lookups?: Lookups;
  /** fleetgate's version, carried in `/version`'s gitVersion. */
  version?: VersionOptions;
  /** Routes served beside the resources (tests). */
  extraRoutes?: (router: Router) => void;
}

export interface ApiServerApp {
  app: Koa;
  registries: Map<string, Registry>;
  /** Ends every running watch cleanly (their clients see the stream end and re-watch). */
  endWatches(): void;
  /** How many watches are being served. */
  watchCount(): number;
}

export function createApiServerApp(options: ApiServerAppOptions): ApiServerApp {
  const groupDomain = groupDomainOf(options.groupDomain);
  const resources = apiResources(groupDomain);
  const limit = options.maxBodyBytes ?? MAX_REQUEST_BYTES;
  const logger = options.logger;
  const registries = new Map<string, Registry>();
  const lookups = options.lookups ?? storeLookups(options.storage, resources);
  for (const resource of resources) {
    const registry = new Registry(resource, {
      storage: options.storage,
      admission: { groupDomain, lookups, allowNoExecuteTaintPolicy: options.allowNoExecuteTaintPolicy },
      now: options.now,
    });
    registries.set(`${resource.group}/${resource.plural}`, registry);
  }
  const watches = new WatchSet();
  const app = new Koa();
  const router = new Router({ sensitive: true, strict: true });

  app.use(async (ctx, next) => {
    try {
      if (options.authenticate && !options.authenticate(ctx)) throw new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw pathNotFound();
      if (logger?.isLevelEnabled('debug')) logger.debug({ method: ctx.method, path: ctx.path, code: ctx.status }, 'request');
    } catch (err) {
      const status = err instanceof ApiError ? err.status : logInternal(err, ctx);
      respond(ctx, status.code ?? 500, status);
      // Identity and cause fields only: messages and bodies may carry object contents.
      if (err instanceof ApiError && logger) {
        const causes = status.details?.causes?.map((c) => c.field).filter(Boolean);
        logger.info({ method: ctx.method, path: ctx.path, code: status.code, reason: status.reason, ...(causes?.length ? { causes } : {}) }, 'refused');
      }
    } finally {
      if (options.draining?.() && !ctx.headerSent) ctx.set('Connection', 'close');
    }
  });

  function logInternal(err: unknown, ctx: Koa.Context): Status {
    // The error's text, never the request's body: it may carry object contents.
    logger?.error({ err: (err as Error)?.message, method: ctx.method, path: ctx.path }, 'internal error');
    return internalError().status;
  }

  // Discovery and OpenAPI (apiserver-meta's documents), before the resources.
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      const ifNoneMatch = ctx.get('if-none-match') || undefined;
      const accept = ctx.get('accept') || undefined;
      const answer =
        discoveryResponse({ path: ctx.path, accept, ifNoneMatch, groupDomain, serverAddress: ctx.host, ...(options.version ? { version: options.version } : {}) }) ??
        openApiResponse({ path: ctx.path, hash: param(ctx.query as Query, 'hash'), accept, ifNoneMatch, groupDomain });
      if (answer) {
        ctx.status = answer.status;
        ctx.set(answer.headers);
        ctx.body = answer.body;
        return;
      }
    }
    await next();
  });

  for (const resource of resources) {
    const registry = registries.get(`${resource.group}/${resource.plural}`)!;
    const base = `/apis/${resource.group}/${resource.version}`;
    const collection = resource.namespaced ? `${base}/namespaces/:namespace/${resource.plural}` : `${base}/${resource.plural}`;
    const item = `${collection}/:name`;
    const status = `${item}/status`;

    router.get(collection, (ctx) => list(ctx, registry, ctx.params.namespace));
    if (resource.namespaced) router.get(`${base}/${resource.plural}`, (ctx) => list(ctx, registry, undefined));
    router.post(collection, (ctx) => create(ctx, registry, ctx.params.namespace));
    router.delete(collection, (ctx) => deleteCollection(ctx, registry, ctx.params.namespace));
    router.get(item, (ctx) => get(ctx, registry, ctx.params.namespace, ctx.params.name!));
    router.put(item, (ctx) => update(ctx, registry, ctx.params.namespace, ctx.params.name!, undefined));
    router.patch(item, (ctx) => patch(ctx, registry, ctx.params.namespace, ctx.params.name!, undefined));
    router.delete(item, (ctx) => remove(ctx, registry, ctx.params.namespace, ctx.params.name!));
    router.get(status, (ctx) => get(ctx, registry, ctx.params.namespace, ctx.params.name!));
    router.put(status, (ctx) => update(ctx, registry, ctx.params.namespace, ctx.params.name!, 'status'));
    router.patch(status, (ctx) => patch(ctx, registry, ctx.params.namespace, ctx.params.name!, 'status'));
    // Any other method on a served path: kube-apiserver's 405.
    for (const path of [collection, item, status, ...(resource.namespaced ? [`${base}/${resource.plural}`] : [])]) {
      router.all(path, () => {
        throw methodNotAllowed();
      });
    }
  }
  options.extraRoutes?.(router);

  async function get(ctx: Koa.Context, registry: Registry, namespace: string | undefined, name: string): Promise<void> {
    const as = representation(ctx);
    const object = await registry.get(namespace, name);
    respond(ctx, 200, converted(ctx, registry.resource, object, as));
  }

  /** What the Accept header asks a GET for: the object, its Table, or its PartialObjectMetadata (406 when none is offered). */
  function representation(ctx: Koa.Context): ResourceRepresentation {
    const as = negotiateResource(ctx.get('accept') || undefined);
    if (!as) throw new ApiError(resourceNotAcceptableStatus() as unknown as Status);
    return as;
  }

  function converted(ctx: Koa.Context, resource: Resource, value: JsonObject, as: ResourceRepresentation): unknown {
    const convert = as.convert;
    if (!convert) return value;
    if (convert.kind === 'Table') return toTable(resource, value, { ...includeObject(ctx), version: convert.version, ...(options.now ? { now: options.now() } : {}) });
    if (!Array.isArray(value.items)) return partialObjectMetadata(value, convert.version);
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: `meta.k8s.io/${convert.version}`,
      metadata: value.metadata,
      items: (value.items as JsonObject[]).map((item) => partialObjectMetadata(item, convert.version)),
    };
  }

  function includeObject(ctx: Koa.Context) {
    const table = tableOptions(new URLSearchParams(ctx.querystring));
    if ('status' in table) throw new ApiError(table.status as unknown as Status);
    return table;
  }

  /** The list or watch options of a collection request, checked as kube checks them, and the predicate of its selectors. */
  function listOptions(ctx: Koa.Context, resource: Resource): { query: ListOptions; predicate?: (o: JsonObject) => boolean } {
    const parsed = parseListOptions(new URLSearchParams(ctx.querystring), resource);
    if ('status' in parsed) throw new ApiError(parsed.status as unknown as Status);
    const query = parsed.options;
    const selects = query.labelSelector.requirements.length > 0 || query.fieldSelector.terms.length > 0;
    if (!selects) return { query };
    const predicate = (o: JsonObject) => query.labelSelector.matches(labelsOf(o)) && query.fieldSelector.matches(o);
    return { query, predicate };
  }

  /** One page of a list, read as the options say (at a revision, from a continue token), in kube's 410 and 504 words. */
  async function readList(resource: Resource, namespace: string | undefined, query: ListOptions, predicate: ((o: JsonObject) => boolean) | undefined) {
    const prefix = collectionPrefix(resource, namespace);
    const read = listRead(query, prefix);
    if ('status' in read) throw new ApiError(read.status as unknown as Status);
    if (read.minRevision !== undefined) {
      const current = await options.storage.currentRevision();
      if (current < read.minRevision) throw new ApiError(tooLargeResourceVersionStatus(read.minRevision, current) as unknown as Status);
    }
    // resourceVersion "0" (any state) and NotOlderThan may be answered from a backend's watch cache.
    const minRevision = read.minRevision ?? (query.resourceVersion === '0' && read.revision === undefined && read.startKey === undefined ? 0 : undefined);
    try {
      const result = await options.storage.list(prefix, {
        ...(read.revision !== undefined ? { revision: read.revision } : {}),
        ...(minRevision !== undefined ? { minRevision } : {}),
        ...(read.startKey !== undefined ? { startKey: read.startKey } : {}),
        ...(query.limit > 0 ? { limit: query.limit } : {}),
        ...(predicate ? { predicate } : {}),
      });
      const metadata: JsonObject = { resourceVersion: String(result.revision) };
      if (result.continueKey !== undefined) {
        metadata.continue = encodeContinue(result.continueKey, prefix, result.revision);
        if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
      }
      return { metadata, items: result.items };
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Expired') {
        throw new ApiError((read.startKey !== undefined ? continueExpiredStatus(read.startKey, prefix) : listExpiredStatus()) as unknown as Status);
      }
      if (err instanceof StorageError && err.code === 'TooLarge') {
        throw new ApiError(tooLargeResourceVersionStatus(read.revision ?? 0, err.revision ?? 0) as unknown as Status);
      }
      throw err;
    }
  }

  async function list(ctx: Koa.Context, registry: Registry, namespace: string | undefined): Promise<void> {
    const resource = registry.resource;
    const { query, predicate } = listOptions(ctx, resource);
    const as = representation(ctx);
    if (query.watch || as.stream === 'watch') {
      const convert = as.convert;
      const encoding = !convert
        ? undefined
        : convert.kind === 'Table'
          ? tableWatchEncoding(resource, { ...includeObject(ctx), version: convert.version })
          : partialObjectMetadataWatchEncoding(convert.version);
      await serveWatch(ctx, registry, namespace, query, predicate, {
        watches,
        minTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
        bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
        ...(options.maxQueuedWatchBytes ? { maxQueuedBytes: options.maxQueuedWatchBytes } : {}),
        logger,
        ...(encoding ? { encoding } : {}),
      });
      return;
    }
    const page = await readList(resource, namespace, query, predicate);
    respond(ctx, 200, converted(ctx, resource, { apiVersion: resource.groupVersion, kind: resource.listKind, metadata: page.metadata, items: page.items }, as));
  }

  async function create(ctx: Koa.Context, registry: Registry, namespace: string | undefined): Promise<void> {
    const resource = registry.resource;
    const write = writeOptions('CreateOptions', ctx.query as Query, ctx.get('user-agent'));
    const body = await readObject(ctx, resource, write.fieldValidation !== 'Ignore');
    checkNamespace(body.object, namespace);
    const result = await registry.create(namespace, body.object, { ...write, duplicates: body.duplicates, strictFailure: cannotBeHandled(resource) });
    warn(ctx, result.warnings);
    respond(ctx, 201, result.object);
  }

  async function update(ctx: Koa.Context, registry: Registry, namespace: string | undefined, name: string, subResource: 'status' | undefined): Promise<void> {
    const resource = registry.resource;
    const write = writeOptions('UpdateOptions', ctx.query as Query, ctx.get('user-agent'));
    const body = await readObject(ctx, resource, write.fieldValidation !== 'Ignore');
    const bodyName = nameOf(body.object) ?? '';
    if (bodyName !== name) throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    checkNamespace(body.object, namespace);
    if (namespace !== undefined) (body.object.metadata as JsonObject).namespace = namespace;
    const result = await registry.update(namespace, name, () => structuredClone(body.object), {
      ...write,
      duplicates: body.duplicates,
      strictFailure: cannotBeHandled(resource),
      ...(subResource ? { subResource } : {}),
      unconditional: false,
    });
    warn(ctx, result.warnings);
    respond(ctx, 200, result.object);
  }

  async function patch(ctx: Koa.Context, registry: Registry, namespace: string | undefined, name: string, subResource: 'status' | undefined): Promise<void> {
    const type = patchTypeOf(ctx.get('content-type'));
    const write = writeOptions('PatchOptions', ctx.query as Query, ctx.get('user-agent'), type === 'apply' ? APPLY_PATCH : undefined);
    const text = await readBody(ctx.req, limit);
    if (type === 'apply') {
      const body = readAppliedBody(text);
      const result = await registry.apply(namespace, name, {
        ...write,
        applied: body.value,
        repeatedKeys: write.fieldValidation === 'Ignore' ? undefined : body.repeatedKeys,
        strictFailure: patchStrictFailure,
        ...(subResource ? { subResource } : {}),
      });
      warn(ctx, result.warnings);
      respond(ctx, result.created ? 201 : 200, result.object);
      return;
    }
    const decoded = decodeJson(text, 'the patch', type === 'merge' && write.fieldValidation !== 'Ignore');
    const apply = patcher(type, decoded.value);
    const result = await registry.update(
      namespace,
      name,
      (current) => {
        const patched = apply(current);
        // A patch that moves the object out of the URL's namespace is refused as a PUT would be.
        if (namespace !== undefined && isRecord(patched.metadata) && patched.metadata.namespace !== namespace) checkNamespace(patched, namespace);
        return patched;
      },
      { ...write, duplicates: decoded.duplicates, strictFailure: patchStrictFailure, ...(subResource ? { subResource } : {}), unconditional: true },
    );
    warn(ctx, result.warnings);
    respond(ctx, 200, result.object);
  }

  async function remove(ctx: Koa.Context, registry: Registry, namespace: string | undefined, name: string): Promise<void> {
    const options = deleteOptions(await optionalBody(ctx), ctx.query as Query, registry.resource.ignoreStoreReadErrorParameter);
    if (options.ignoreStoreReadError) throw corruptOnly();
    const result = await registry.delete(namespace, name, { dryRun: options.dryRun, ...(options.preconditions ? { preconditions: options.preconditions } : {}) });
    if (!result.deleted) respond(ctx, 200, result.object);
    else respond(ctx, 200, deleteSuccess(registry.resource, name, (result.object.metadata as JsonObject | undefined)?.uid));
  }

  async function deleteCollection(ctx: Koa.Context, registry: Registry, namespace: string | undefined): Promise<void> {
    const resource = registry.resource;
    const deletion = deleteOptions(await optionalBody(ctx), ctx.query as Query, resource.ignoreStoreReadErrorParameter);
    if (deletion.ignoreStoreReadError) throw corruptOnly();
    const { query, predicate } = listOptions(ctx, resource);
    const listed = await readList(resource, namespace, { ...query, watch: false }, predicate);
    for (const item of listed.items) {
      const name = nameOf(item)!;
      try {
        await registry.delete(namespaceOf(item), name, { dryRun: deletion.dryRun });
      } catch (err) {
        // Gone meanwhile: that is what was asked for.
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    respond(ctx, 200, deleteCollectionSuccess(resource));
  }

  /** kube-apiserver's answer when the unsafe delete is asked for an object it can read. */
  const corruptOnly = () =>
    invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
      {
        type: 'FieldValueInvalid',
        field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
        message: 'Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
      },
    ]);

  async function optionalBody(ctx: Koa.Context): Promise<unknown> {
    const text = await readBody(ctx.req, limit);
    if (text.trim() === '') return undefined;
    return decodeJson(text, 'DeleteOptions', false).value;
  }

  /** The body of a create or update: an object of the resource's kind and version (400 otherwise, as kube-apiserver's decoder answers). */
  async function readObject(ctx: Koa.Context, resource: Resource, findDuplicates: boolean): Promise<{ object: JsonObject; duplicates: string[] }> {
    const type = (ctx.get('content-type') || 'application/json').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') throw new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the body of the request was in an unknown format - accepted media types include: application/json`, reason: 'UnsupportedMediaType', code: 415 });
    const text = await readBody(ctx.req, limit);
    const what = `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}`;
    const decoded = decodeJson(text, what, findDuplicates);
    const object = decoded.value;
    if (!isRecord(object)) throw badRequest(`${what}: the body must be a JSON object`);
    if (typeof object.kind !== 'string' || object.kind === '') throw badRequest(`Object 'Kind' is missing in '${shortBody(text)}'`);
    if (object.apiVersion !== resource.groupVersion) {
      throw badRequest(`the API version in the data (${String(object.apiVersion ?? '')}) does not match the expected API version (${resource.groupVersion})`);
    }
    if (object.kind !== resource.kind) throw badRequest(`the kind in the data (${object.kind}) does not match the expected kind (${resource.kind})`);
    return { object, duplicates: decoded.duplicates };
  }

  function checkNamespace(object: JsonObject, namespace: string | undefined): void {
    if (namespace === undefined) return;
    const own = namespaceOf(object);
    if (own !== undefined && own !== '' && own !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }

  function warn(ctx: Koa.Context, warnings: readonly string[]): void {
    const headers = warningHeaders(warnings);
    if (headers.length) ctx.set('Warning', headers);
  }

  function respond(ctx: Koa.Context, code: number, body: unknown): void {
    ctx.status = code;
    ctx.type = 'application/json';
    ctx.body = param(ctx.query as Query, 'pretty') === 'true' ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body);
  }

  app.use(router.routes());
  app.silent = true;
  return { app, registries, endWatches: () => watches.endAll(), watchCount: () => watches.size };
}

/** A strict-decoding failure of a patch: 422 on the field `patch`, as kube-apiserver's patch handler words it. */
function patchStrictFailure(problems: string): ApiError {
  return invalid({ group: '', kind: '' }, '', [{ type: 'FieldValueInvalid', field: 'patch', message: `Invalid value: "the patched object": ${problems}` }]);
}

const labelsOf = (o: JsonObject): Record<string, string> | undefined =>
  isRecord(o.metadata) && isRecord(o.metadata.labels) ? (o.metadata.labels as Record<string, string>) : undefined;

function shortBody(text: string): string {
  return text.length > 256 ? `${text.slice(0, 256)}...` : text;
}
