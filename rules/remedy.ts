/** Remedy (remedy.<domain>/v1alpha1): PLACEHOLDER, to be replaced by the full rule module. */
import { Obj, Opt, RawObject, envelope, type Static } from './_shared/schema.js';
import type { KindRules } from '../src/rule.js';

export const schema = Obj({ ...envelope, spec: Opt(RawObject()), status: Opt(RawObject()) });
export type Remedy = Static<typeof schema>;

export const rules: KindRules<Remedy> = {
  kind: 'Remedy',
  group: 'remedy',
  version: 'v1alpha1',
  plural: 'remedies',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
};
