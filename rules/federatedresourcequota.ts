/** FederatedResourceQuota (policy.<domain>/v1alpha1): PLACEHOLDER, to be replaced by the full rule module. */
import { Obj, Opt, RawObject, envelope, type Static } from './_shared/schema.js';
import type { KindRules } from '../src/rule.js';

export const schema = Obj({ ...envelope, spec: Opt(RawObject()), status: Opt(RawObject()) });
export type FederatedResourceQuota = Static<typeof schema>;

export const rules: KindRules<FederatedResourceQuota> = {
  kind: 'FederatedResourceQuota',
  group: 'policy',
  version: 'v1alpha1',
  plural: 'federatedresourcequotas',
  scope: 'Namespaced',
  statusSubresource: true,
  schema,
};
