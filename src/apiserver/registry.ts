/**
 * One resource's registry: the generic store of k8s.io/apiserver (`registry/generic/registry`) for a
 * custom resource. It turns requests into storage operations with kube-apiserver's object semantics
 * (objects.ts) and admission (admission.ts), and storage outcomes into kube's errors (status.ts).
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
  withoutResourceVersion,
} from './objects.js';
import { ApiError, alreadyExists, conflict, expired, invalid, notFound, resourceVersionOnCreate, serviceUnavailable, timeout } from './status.js';
import type { ApiResource as Resource } from './resources.js';
import { objectKey } from './keys.js';
import { copyJson, type JsonObject } from './json.js';

export interface WriteRequest {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** `duplicate field "<key>"` messages from decoding the body. */
  duplicates: readonly string[];
  /** How a strict-decoding failure is answered (see AdmissionRequest.strictFailure). */
  strictFailure: (problems: string) => ApiError;
  /** The writer, for managedFields (issue 24): `fieldManager`, or the User-Agent's product. */
  manager: string;
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

/**
 * A hook for managedFields (server-side apply, issue 24): called with every object an Update
 * writes, the stored one (absent on create) and the manager. The default leaves managedFields as
 * the client sent them.
 */
export type FieldManager = (object: JsonObject, stored: JsonObject | undefined, manager: string, subResource: string | undefined) => void;

export interface RegistryOptions {
  storage: Storage;
  admission: AdmissionContext;
  now?: () => Date;
  fieldManager?: FieldManager;
}

/** How often a create retries a name made from generateName that is taken (kube-apiserver: 8). */
const GENERATE_NAME_ATTEMPTS = 8;
/** How often a delete re-reads an object its finalizers changed under it. */
const DELETE_ATTEMPTS = 16;

/** Thrown inside a guaranteed update whose write clears the last finalizer of an object being deleted. */
class EmptiedFinalizers {
  constructor(readonly object: JsonObject, readonly resourceVersion: string | undefined) {}
}

export class Registry {
  private readonly storage: Storage;
  private readonly now: () => Date;
  private readonly fieldManager: FieldManager;

  constructor(
    readonly resource: Resource,
    private readonly options: RegistryOptions,
  ) {
    this.storage = options.storage;
    this.now = options.now ?? (() => new Date());
    this.fieldManager = options.fieldManager ?? (() => undefined);
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
      const object = copyJson(body);
      prepareForCreate(object, namespace, this.now());
      this.fieldManager(object, undefined, request.manager, undefined);
      const admitted = await admit(this.resource, { operation: 'CREATE', object, fieldValidation: request.fieldValidation, duplicates: request.duplicates, strictFailure: request.strictFailure }, this.options.admission);
      const name = nameOf(admitted.object)!;
      try {
        const created = await this.storage.create(this.key(namespace, name), withoutResourceVersion(admitted.object), { dryRun: request.dryRun });
        return { object: created, warnings: admitted.warnings };
      } catch (err) {
        if (err instanceof StorageError && err.code === 'KeyExists' && generated && attempt < GENERATE_NAME_ATTEMPTS) continue;
        throw this.storageError(name)(err);
      }
    }
  }

  /**
   * PUT (mutation = the body) and PATCH (mutation = the patch applied to the stored object), on the
   * main resource or its status. `unconditional` is for patches: a write that names no
   * resourceVersion is made against the one it read.
   */
  async update(namespace: string | undefined, name: string, mutation: Mutation, request: WriteRequest, subResource: 'status' | undefined, unconditional: boolean): Promise<WriteResult> {
    const key = this.key(namespace, name);
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
            this.fieldManager(object, stored, request.manager, subResource);
            const admitted = await admit(
              this.resource,
              { operation: 'UPDATE', object, oldObject: stored, subResource, fieldValidation: request.fieldValidation, duplicates: request.duplicates, strictFailure: request.strictFailure },
              this.options.admission,
            );
            warnings = admitted.warnings;
            if (isBeingDeleted(stored) && finalizersOf(admitted.object).length === 0) throw new EmptiedFinalizers(admitted.object, storedVersion);
            return withoutResourceVersion(admitted.object);
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
