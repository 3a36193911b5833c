/**
 * One resource's registry: the generic store of k8s.io/apiserver (`registry/generic/registry`) for a
 * custom resource. It turns requests into storage operations with kube-apiserver's object semantics
 * (objects.ts), field ownership (apply/: server-side apply, and managedFields for every other
 * write) and admission (admission.ts), and storage outcomes into kube's errors (status.ts).
 */
import { NO_CHANGE, StorageError, type Storage, type StoredObject } from './storage/index.js';
import { admit, type AdmissionContext, type FieldValidation } from './admission.js';
import {
  finalizersOf,
  isBeingDeleted,
  markForDeletion,
  nameOf,
  prepareForCreate,
  prepareForStatusUpdate,
  prepareForUpdate,
  resourceVersionOf,
  settleGeneration,
  withoutResourceVersion,
} from './objects.js';
import { ApiError, alreadyExists, badRequest, conflict, expired, invalid, notFound, resourceVersionOnCreate, serviceUnavailable, timeout, type Status } from './status.js';
import type { ApiResource as Resource } from './resources.js';
import { objectKey } from './keys.js';
import { copyJson, type JsonObject } from './json.js';
import { isRecord } from '../util/is.js';
import { apply, keepTimesOfUnchangedObject, managedFieldsShapeError, trackUpdate, type KindInfo } from './apply/index.js';
import { topologyOf } from './apply/topology.js';

export interface WriteRequest {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** `duplicate field "<key>"` messages from decoding the body. */
  duplicates: readonly string[];
  /**
   * How a body that does not decode is answered (see AdmissionRequest.strictFailure): the same
   * answer kube gives written managedFields of the wrong JSON types.
   */
  strictFailure: (problems: string) => ApiError;
  /** The writer, recorded in managedFields: `fieldManager`, or the User-Agent's product. */
  manager: string;
}

/** A PATCH or PUT, on the main resource or its status. */
export interface UpdateRequest extends WriteRequest {
  subResource?: 'status';
  /** Patches: a write that names no resourceVersion is made against the one it read. */
  unconditional: boolean;
}

/** An apply patch (server-side apply). */
export interface ApplyRequest extends Omit<WriteRequest, 'duplicates'> {
  /** The applied configuration, as parsed. */
  applied: unknown;
  force: boolean;
  subResource?: 'status';
  /** go-yaml's strict-decoding error for keys the body repeats (readAppliedBody), if any. */
  repeatedKeys: string | undefined;
}

export interface WriteResult {
  object: JsonObject;
  warnings: string[];
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteRequest {
  dryRun: boolean;
  preconditions?: Preconditions;
}

export interface DeleteResult {
  /** The object's last state: gone when `deleted`, else marked and kept by its finalizers. */
  object: JsonObject;
  deleted: boolean;
}

/** Computes the object a PATCH or PUT writes from the stored one; may throw an ApiError. */
export type Mutation = (current: JsonObject) => JsonObject;

export interface RegistryOptions {
  storage: Storage;
  admission: AdmissionContext;
  now?: () => Date;
}

/** How often a create retries a name made from generateName that is taken (kube-apiserver: 8). */
const GENERATE_NAME_ATTEMPTS = 8;
/** How often a delete re-reads an object its finalizers changed under it. */
const DELETE_ATTEMPTS = 16;
/** How often an apply goes back between creating and updating an object created or deleted meanwhile. */
const APPLY_ATTEMPTS = 16;

/** A create whose name is taken. */
class NameTaken {
  constructor(readonly objectName: string) {}
}

/** Thrown inside a guaranteed update whose write clears the last finalizer of an object being deleted. */
class EmptiedFinalizers {
  constructor(readonly object: JsonObject, readonly resourceVersion: string | undefined) {}
}

export class Registry {
  private readonly storage: Storage;
  private readonly now: () => Date;
  /** What server-side apply needs to know of the kind. */
  private readonly kindInfo: KindInfo;

  constructor(
    readonly resource: Resource,
    private readonly options: RegistryOptions,
  ) {
    this.storage = options.storage;
    this.now = options.now ?? (() => new Date());
    this.kindInfo = { apiVersion: resource.groupVersion, kind: resource.kind, topology: topologyOf(resource.schema), statusSubresource: resource.rules.statusSubresource };
  }

  get storageBackend(): Storage {
    return this.storage;
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.resource, namespace, name);
  }

  async get(namespace: string | undefined, name: string): Promise<JsonObject> {
    const object = await this.storage.get(this.key(namespace, name)).catch(this.storageError(name));
    if (!object) throw notFound(this.resource, name);
    return object;
  }

  async create(namespace: string | undefined, body: JsonObject, request: WriteRequest): Promise<WriteResult> {
    // kube-apiserver's storage refuses a resourceVersion it can read (one it cannot, such as "-1", is
    // ignored): an object copied from another cluster is most likely sourced wrongly.
    if (/^[1-9]\d*$/.test(resourceVersionOf(body) ?? '')) throw resourceVersionOnCreate();
    const generated = nameOf(body) === undefined || nameOf(body) === '';
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.insert(namespace, copyJson(body), request, true);
      } catch (err) {
        if (err instanceof NameTaken && generated && attempt < GENERATE_NAME_ATTEMPTS) continue;
        throw err instanceof NameTaken ? alreadyExists(this.resource, err.objectName) : err;
      }
    }
  }

  /**
   * Prepares, admits and stores a new object. `track`: record the write in managedFields (an
   * apply has already). A name that is taken is a NameTaken, for the caller to retry or word.
   */
  private async insert(namespace: string | undefined, object: JsonObject, request: Omit<WriteRequest, 'duplicates'> & { duplicates?: readonly string[] }, track: boolean): Promise<WriteResult> {
    prepareForCreate(object, namespace, this.now());
    const tracked = track ? this.trackUpdate(object, undefined, request, undefined) : object;
    const admitted = await admit(
      this.resource,
      { operation: 'CREATE', object: tracked, fieldValidation: request.fieldValidation, duplicates: request.duplicates ?? [], strictFailure: request.strictFailure },
      this.options.admission,
    );
    const name = nameOf(admitted.object)!;
    try {
      const created = await this.storage.create(this.key(namespace, name), withoutResourceVersion(admitted.object), { dryRun: request.dryRun });
      return { object: created, warnings: admitted.warnings };
    } catch (err) {
      if (err instanceof StorageError && err.code === 'KeyExists') throw new NameTaken(name);
      throw this.storageError(name)(err);
    }
  }

  /**
   * PUT (mutation = the body) and PATCH (mutation = the patch applied to the stored object), on the
   * main resource or its status.
   */
  async update(namespace: string | undefined, name: string, mutation: Mutation, request: UpdateRequest): Promise<WriteResult> {
    return this.write(namespace, name, mutation, request, true);
  }

  /**
   * An apply patch: merges the applied configuration into the stored object (or creates it: 201),
   * records the applier's fields, prunes what it stopped applying, and answers kube's 409 for
   * fields other managers own (unless forced). Admission runs on the merged result; an apply that
   * changes nothing stores nothing.
   */
  async apply(namespace: string | undefined, name: string, request: ApplyRequest): Promise<WriteResult & { created: boolean }> {
    const key = this.key(namespace, name);
    const merge = (live: JsonObject | undefined): { object: JsonObject; warnings: string[] } => {
      const result = apply({
        live,
        applied: request.applied,
        manager: request.manager,
        force: request.force,
        kind: this.kindInfo,
        name,
        ...(namespace !== undefined ? { namespace } : {}),
        ...(request.subResource ? { subresource: request.subResource } : {}),
        now: this.now(),
      });
      if (!result.ok) throw new ApiError(result.status as unknown as Status);
      // kube checks the body's repeated keys after the apply, as fieldValidation asks.
      const warnings: string[] = [];
      if (request.repeatedKeys !== undefined) {
        if (request.fieldValidation === 'Strict') throw badRequest(`error strict decoding YAML: ${request.repeatedKeys}`);
        if (request.fieldValidation === 'Warn') warnings.push(request.repeatedKeys.replace(/\n/g, ' '));
      }
      return { object: copyJson(result.object as JsonObject), warnings };
    };
    for (let attempt = 1; attempt <= APPLY_ATTEMPTS; attempt++) {
      const current = await this.storage.get(key).catch(this.storageError(name));
      if (!current) {
        // The status subresource never creates (kube's StatusREST passes forceAllowCreate=false).
        if (request.subResource === 'status') throw notFound(this.resource, name);
        const merged = merge(undefined);
        const uid = isRecord(merged.object.metadata) ? merged.object.metadata.uid : undefined;
        if (typeof uid === 'string' && uid !== '') throw conflict(this.resource, name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
        try {
          const created = await this.insert(namespace, merged.object, request, false);
          return { ...created, warnings: [...merged.warnings, ...created.warnings], created: true };
        } catch (err) {
          if (err instanceof NameTaken) continue; // created meanwhile: apply to it
          throw err;
        }
      }
      let warnings: string[] = [];
      try {
        const updated = await this.write(
          namespace,
          name,
          (live) => {
            const merged = merge(live);
            warnings = merged.warnings;
            return merged.object;
          },
          { ...request, duplicates: [], unconditional: true },
          false,
        );
        return { ...updated, warnings: [...warnings, ...updated.warnings], created: false };
      } catch (err) {
        if (err instanceof ApiError && err.code === 404 && request.subResource !== 'status') continue; // deleted meanwhile: create it
        throw err;
      }
    }
    throw conflict(this.resource, name);
  }

  /** An update; `track`: record the write in managedFields (an apply has already). */
  private async write(namespace: string | undefined, name: string, mutation: Mutation, request: UpdateRequest, track: boolean): Promise<WriteResult> {
    const key = this.key(namespace, name);
    const { subResource, unconditional } = request;
    let warnings: string[] = [];
    for (;;) {
      try {
        const result = await this.storage.guaranteedUpdate(
          key,
          async (current) => {
            const stored = current as JsonObject;
            const written = mutation(copyJson(stored));
            const storedVersion = resourceVersionOf(stored);
            const writtenVersion = resourceVersionOf(written);
            if (writtenVersion === undefined && !unconditional) {
              // Custom resources take no unconditional update (AllowUnconditionalUpdate is false).
              throw invalid({ group: this.resource.group, kind: this.resource.plural }, name, [
                { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0: must be specified for an update' },
              ]);
            }
            if (writtenVersion !== undefined && writtenVersion !== storedVersion) throw conflict(this.resource, name);
            let object: JsonObject;
            if (subResource === 'status') object = prepareForStatusUpdate(written, stored);
            else {
              object = written;
              prepareForUpdate(object, stored);
            }
            if (track) object = this.trackUpdate(object, stored, request, subResource);
            const admitted = await admit(
              this.resource,
              { operation: 'UPDATE', object, oldObject: stored, subResource, fieldValidation: request.fieldValidation, duplicates: request.duplicates, strictFailure: request.strictFailure },
              this.options.admission,
            );
            warnings = admitted.warnings;
            // kube-apiserver compares after its mutating admission: a change the defaults undo moves nothing.
            if (subResource !== 'status') settleGeneration(admitted.object, stored);
            const settled = keepTimesOfUnchangedObject(admitted.object, stored) as JsonObject;
            if (isBeingDeleted(stored) && finalizersOf(settled).length === 0) throw new EmptiedFinalizers(settled, storedVersion);
            return withoutResourceVersion(settled);
          },
          { dryRun: request.dryRun },
        );
        return { object: result.object, warnings };
      } catch (err) {
        if (err instanceof EmptiedFinalizers) {
          const deleted = await this.deleteEmptied(key, name, err, request.dryRun);
          if (deleted) return { object: deleted, warnings };
          continue;
        }
        throw this.storageError(name)(err);
      }
    }
  }

  /**
   * `object` with the managedFields kube-apiserver keeps for a write other than apply: the writer
   * (operation Update) owns what it changed. Written managedFields of the wrong JSON types are
   * refused as kube's decoder refuses them (400 for a create or PUT, 422 for a patch).
   */
  private trackUpdate(object: JsonObject, stored: JsonObject | undefined, request: Pick<WriteRequest, 'manager' | 'strictFailure'>, subResource: 'status' | undefined): JsonObject {
    const written = isRecord(object.metadata) ? object.metadata.managedFields : undefined;
    const shapeError = managedFieldsShapeError(written);
    if (shapeError !== undefined) throw request.strictFailure(shapeError);
    return trackUpdate({ live: stored, updated: object, manager: request.manager, kind: this.kindInfo, ...(subResource ? { subresource: subResource } : {}), now: this.now() }) as JsonObject;
  }

  /** The delete an update that cleared the last finalizer turns into; undefined when the object changed meanwhile. */
  private async deleteEmptied(key: string, name: string, emptied: EmptiedFinalizers, dryRun: boolean): Promise<JsonObject | undefined> {
    try {
      const last = await this.storage.delete(key, { dryRun, preconditions: { resourceVersion: emptied.resourceVersion } });
      // The answer is the object as the write left it, at the deletion's revision.
      return { ...emptied.object, metadata: { ...(emptied.object.metadata as JsonObject), resourceVersion: resourceVersionOf(last) } };
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Conflict') return undefined;
      throw this.storageError(name)(err);
    }
  }

  async delete(namespace: string | undefined, name: string, request: DeleteRequest): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
      const current = await this.get(namespace, name);
      this.checkPreconditions(name, current, request.preconditions);
      if (finalizersOf(current).length > 0) {
        if (isBeingDeleted(current)) return { object: current, deleted: false };
        try {
          const marked = await this.storage.guaranteedUpdate(
            key,
            (latest) => {
              this.checkPreconditions(name, latest as JsonObject, request.preconditions);
              if (finalizersOf(latest as JsonObject).length === 0 || isBeingDeleted(latest as JsonObject)) return NO_CHANGE;
              return withoutResourceVersion(markForDeletion(latest as JsonObject, this.now()));
            },
            { dryRun: request.dryRun },
          );
          // Its finalizers went meanwhile: delete it outright on the next round.
          if (!marked.changed && finalizersOf(marked.object).length === 0) continue;
          return { object: marked.object, deleted: false };
        } catch (err) {
          throw this.storageError(name)(err);
        }
      }
      try {
        const last = await this.storage.delete(key, {
          dryRun: request.dryRun,
          preconditions: { resourceVersion: resourceVersionOf(current) },
        });
        return { object: last, deleted: true };
      } catch (err) {
        // Written meanwhile (a finalizer added, say): judge it again.
        if (err instanceof StorageError && err.code === 'Conflict') continue;
        throw this.storageError(name)(err);
      }
    }
    throw conflict(this.resource, name);
  }

  private checkPreconditions(name: string, object: JsonObject, preconditions: Preconditions | undefined): void {
    if (!preconditions) return;
    const metadata = object.metadata as JsonObject;
    if (preconditions.uid !== undefined && preconditions.uid !== metadata.uid) {
      throw conflict(this.resource, name, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(metadata.uid ?? '')}`);
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== metadata.resourceVersion) {
      throw conflict(
        this.resource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${String(metadata.resourceVersion ?? '')}`,
      );
    }
  }

  /** Storage failures in kube's words, for the object `name`; other errors pass through. */
  storageError(name: string): (err: unknown) => never {
    return (err: unknown) => {
      if (!(err instanceof StorageError)) throw err;
      switch (err.code) {
        case 'KeyExists':
          throw alreadyExists(this.resource, name);
        case 'KeyNotFound':
          throw notFound(this.resource, name);
        case 'Conflict':
          throw conflict(this.resource, name);
        case 'Expired':
          throw expired(err.message);
        case 'TooLarge':
          throw timeout(err.message);
        default:
          throw serviceUnavailable(`storage is unavailable: ${err.message}`);
      }
    };
  }
}

export type { StoredObject };
