/** ClusterTaintPolicy (policy.<domain>/v1alpha1, cluster-scoped): adds and removes Cluster taints by cluster conditions. */
import { Arr, CONDITION_STATUSES, ClusterAffinity, Enum, Obj, Opt, RawObject, ReqStr, Str, TaintEffect, envelope, type Static } from './_shared/schema.js';
import { add, checkClusterAffinity, checkTaintsUnique, index, list, record } from './_shared/checks.js';
import { forbidden } from '../src/engine/field-error.js';
import type { KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_TAINTS = FieldPath.of('spec', 'taints');
const SPEC_TARGET_CLUSTERS = FieldPath.of('spec', 'targetClusters');

/** The spec shows only key, effect and value for a policy's taints (no timeAdded: the controller stamps it on the Cluster). */
const PolicyTaint = Obj({
  key: ReqStr({ format: 'qualified-name' }),
  value: Opt(Str({ format: 'label-value' })),
  effect: TaintEffect,
});

/**
 * Matches a cluster status condition, so its type and status values follow the Condition rules: a
 * CamelCase type, optionally `<domain>/`-prefixed (including types other controllers invent), and
 * status values True, False or Unknown. Anything else could never match.
 */
const MatchCondition = Obj({
  conditionType: ReqStr({ format: 'camel-case-with-domain' }),
  operator: Enum(['In', 'NotIn']),
  statusValues: Arr(Enum(CONDITION_STATUSES), { minItems: 1 }),
});

const ClusterTaintPolicySpec = Obj({
  taints: Arr(PolicyTaint, { minItems: 1 }),
  addOnConditions: Opt(Arr(MatchCondition)),
  removeOnConditions: Opt(Arr(MatchCondition)),
  targetClusters: Opt(ClusterAffinity),
});

// The spec does not show the status content.
export const schema = Obj({ ...envelope, spec: ClusterTaintPolicySpec, status: Opt(RawObject()) });
export type ClusterTaintPolicy = Static<typeof schema>;

const NO_EXECUTE_FORBIDDEN =
  'Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags';

function validate(policy: ClusterTaintPolicy, ctx: RuleContext): void {
  const spec = record(policy.spec);
  const taints = list(spec.taints);
  // Allowed unless the operator turned it off explicitly, as Karmada's --allow-no-execute-taint-policy=false does.
  if (ctx.options.allowNoExecuteTaintPolicy === false) {
    taints.forEach((taint, i) => {
      if (record(taint).effect === 'NoExecute') add(ctx, forbidden(index(SPEC_TAINTS, i), NO_EXECUTE_FORBIDDEN));
    });
  }
  checkTaintsUnique(ctx, taints, SPEC_TAINTS);
  checkClusterAffinity(ctx, spec.targetClusters, SPEC_TARGET_CLUSTERS);
}

export const rules: KindRules<ClusterTaintPolicy> = {
  kind: 'ClusterTaintPolicy',
  group: 'policy',
  version: 'v1alpha1',
  plural: 'clustertaintpolicies',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  validate,
};
