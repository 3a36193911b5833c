/** WorkloadRebalancer (apps.<domain>/v1alpha1): PLACEHOLDER, to be replaced by the full rule module. */
import { Obj, Opt, RawObject, envelope, type Static } from './_shared/schema.js';
import type { KindRules } from '../src/rule.js';

export const schema = Obj({ ...envelope, spec: Opt(RawObject()), status: Opt(RawObject()) });
export type WorkloadRebalancer = Static<typeof schema>;

export const rules: KindRules<WorkloadRebalancer> = {
  kind: 'WorkloadRebalancer',
  group: 'apps',
  version: 'v1alpha1',
  plural: 'workloadrebalancers',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
};
