/** Where the registry keeps a resource's objects in storage, and how kube-apiserver names the resource in errors. */
import type { ApiResource } from './resources.js';

/** The storage key of an object (see storage.ts): `/<group>/<plural>[/<namespace>]/<name>`. */
export function objectKey(resource: ApiResource, namespace: string | undefined, name: string): string {
  return resource.namespaced ? `/${resource.group}/${resource.plural}/${namespace}/${name}` : `/${resource.group}/${resource.plural}/${name}`;
}

/** The prefix a list or watch reads: one namespace's objects, or all of the resource's. */
export function collectionPrefix(resource: ApiResource, namespace: string | undefined): string {
  return namespace === undefined ? `/${resource.group}/${resource.plural}/` : `/${resource.group}/${resource.plural}/${namespace}/`;
}

/** `clusters.cluster.karmada.io`: the resource as kube-apiserver's error messages name it. */
export const qualifiedResource = (resource: ApiResource): string => `${resource.plural}.${resource.group}`;
