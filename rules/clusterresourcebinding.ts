/** ClusterResourceBinding (work.<domain>/v1alpha2): PLACEHOLDER, to be replaced by the full rule module. */
import { Obj, Opt, RawObject, envelope, type Static } from './_shared/schema.js';
import type { KindRules } from '../src/rule.js';

export const schema = Obj({ ...envelope, spec: Opt(RawObject()), status: Opt(RawObject()) });
export type ClusterResourceBinding = Static<typeof schema>;

export const rules: KindRules<ClusterResourceBinding> = {
  kind: 'ClusterResourceBinding',
  group: 'work',
  version: 'v1alpha2',
  plural: 'clusterresourcebindings',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
};
