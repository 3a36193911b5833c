/** Remedy (remedy.<domain>/v1alpha1, cluster-scoped): cluster-level actions triggered by cluster conditions. */
import { Arr, CONDITION_STATUSES, Enum, Obj, Opt, RawObject, ReqStr, StrList, envelope, type Static } from './_shared/schema.js';
import { checkUnique, index, list, record } from './_shared/checks.js';
import { duplicate } from '../src/engine/field-error.js';
import type { KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_ACTIONS = FieldPath.of('spec', 'actions');

/** Remedy's cluster affinity has only clusterNames; fieldSelector, labelSelector and exclude are unknown fields here. */
const RemedyClusterAffinity = Obj({ clusterNames: Opt(StrList()) });

/** Compared with a cluster status condition, so type and status follow the Condition rules; other values never match. */
const ClusterConditionRequirement = Obj({
  conditionType: ReqStr({ format: 'camel-case-with-domain' }),
  conditionStatus: Enum(CONDITION_STATUSES),
  operator: Enum(['Equal', 'NotEqual']),
});

// Optional in the spec and in Karmada's CRD alike.
const DecisionMatch = Obj({ clusterConditionMatch: Opt(ClusterConditionRequirement) });

const RemedySpec = Obj({
  // The permitted actions are not given (Karmada knows only TrafficControl), so any name is accepted.
  actions: Opt(StrList()),
  clusterAffinity: Opt(RemedyClusterAffinity),
  decisionMatches: Opt(Arr(DecisionMatch)),
});

// The spec does not show the status content.
export const schema = Obj({ ...envelope, spec: RemedySpec, status: Opt(RawObject()) });
export type Remedy = Static<typeof schema>;

function validate(remedy: Remedy, ctx: RuleContext): void {
  const spec = record(remedy.spec);
  checkUnique(ctx, list(spec.actions), (a) => a, (a, i) => duplicate(index(SPEC_ACTIONS, i), a));
}

export const rules: KindRules<Remedy> = {
  kind: 'Remedy',
  group: 'remedy',
  version: 'v1alpha1',
  plural: 'remedies',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  validate,
};
