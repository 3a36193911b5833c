/** CronFederatedHPA (autoscaling.<domain>/v1alpha1): PLACEHOLDER, to be replaced by the full rule module. */
import { Obj, Opt, RawObject, envelope, type Static } from './_shared/schema.js';
import type { KindRules } from '../src/rule.js';

export const schema = Obj({ ...envelope, spec: Opt(RawObject()), status: Opt(RawObject()) });
export type CronFederatedHPA = Static<typeof schema>;

export const rules: KindRules<CronFederatedHPA> = {
  kind: 'CronFederatedHPA',
  group: 'autoscaling',
  version: 'v1alpha1',
  plural: 'cronfederatedhpas',
  scope: 'Namespaced',
  statusSubresource: true,
  schema,
};
