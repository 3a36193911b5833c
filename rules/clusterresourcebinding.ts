/**
 * ClusterResourceBinding (work.<domain>/v1alpha2, cluster-scoped): binds a cluster-scoped
 * resource to a cluster-wide propagation policy. The spec leaves ResourceBindingSpec and
 * ResourceBindingStatus "not shown", so the structure is Karmada's v1alpha2 CRD schema.
 */
import {
  Arr, Bool, ClusterAffinity, Conditions, Enum, Int32, Int64, Obj, Opt, QuantityMap, RawObject, RawValue, ReqStr, ResourceHealth, Str, StrList, StringMap, Time, envelope, MAP_ATOMIC,
  type Static,
} from './_shared/schema.js';
import { add, checkClusterAffinity, checkConditions, checkUnique, child, index, isString, list, record } from './_shared/checks.js';
import { duplicate, invalid } from '../src/engine/field-error.js';
import type { DefaultContext, KindRules, RuleContext } from '../src/engine/rule.js';
import { defaultPermanentId } from './_shared/permanent-id.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_CLUSTERS = FieldPath.of('spec', 'clusters');
const SPEC_GRACEFUL_EVICTION_TASKS = FieldPath.of('spec', 'gracefulEvictionTasks');
const SPEC_PLACEMENT = FieldPath.of('spec', 'placement');
const SPEC_REQUIRED_BY = FieldPath.of('spec', 'requiredBy');
const STATUS_AGGREGATED_STATUS = FieldPath.of('status', 'aggregatedStatus');
const STATUS_CONDITIONS = FieldPath.of('status', 'conditions');


const ObjectReference = Obj({
  apiVersion: ReqStr(),
  kind: ReqStr(),
  namespace: Opt(Str()),
  name: ReqStr(),
  uid: Opt(Str()),
  resourceVersion: Opt(Str()),
});

// Node affinity and tolerations are core Kubernetes structures the member cluster validates.
const NodeClaim = Obj({
  hardNodeAffinity: Opt(RawObject(MAP_ATOMIC)),
  nodeSelector: Opt(StringMap()),
  tolerations: Opt(Arr(RawObject())),
});

const ReplicaRequirements = Obj({
  nodeClaim: Opt(NodeClaim),
  resourceRequest: Opt(QuantityMap()),
  namespace: Opt(Str()),
  priorityClassName: Opt(Str()),
});

const Component = Obj({
  name: ReqStr({ maxLength: 32 }),
  replicas: Int32({ minimum: 0 }),
  replicaRequirements: Opt(ReplicaRequirements),
});

const TargetCluster = Obj({
  name: ReqStr({ format: 'cluster-name' }),
  replicas: Opt(Int32({ minimum: 0 })),
  components: Opt(Arr(Obj({ name: ReqStr({ maxLength: 32 }), replicas: Int32({ minimum: 0 }) }))),
});

const BindingSnapshot = Obj({
  namespace: Opt(Str()),
  name: ReqStr(),
  clusters: Opt(Arr(TargetCluster)),
});

const StatePreservation = Obj({ rules: Arr(Obj({ aliasLabelName: ReqStr(), jsonPath: ReqStr() })) });

const FailoverBehavior = Obj({
  application: Opt(
    Obj({
      decisionConditions: Obj({ tolerationSeconds: Opt(Int32()) }),
      gracePeriodSeconds: Opt(Int32()),
      purgeMode: Opt(Enum(['Directly', 'Gracefully', 'Never'])),
      statePreservation: Opt(StatePreservation),
    }),
  ),
  cluster: Opt(
    Obj({
      purgeMode: Opt(Enum(['Directly', 'Gracefully'])),
      statePreservation: Opt(StatePreservation),
    }),
  ),
});

/** A named cluster group: the ClusterAffinity fields plus a name of 1 to 32 characters. */
const namedAffinity = <P extends object>(extra: P) => Obj({ affinityName: ReqStr({ maxLength: 32 }), ...ClusterAffinity.properties, ...extra });

/** The placement copied from the (Cluster)PropagationPolicy, with the constraints of Karmada's CRD schema. */
const Placement = Obj({
  clusterAffinity: Opt(ClusterAffinity),
  clusterAffinities: Opt(Arr(namedAffinity({ overflowAffinities: Opt(Arr(namedAffinity({}))) }))),
  // Core Kubernetes tolerations, validated by the member cluster.
  clusterTolerations: Opt(Arr(RawObject())),
  spreadConstraints: Opt(
    Arr(
      Obj({
        spreadByField: Opt(Enum(['cluster', 'region', 'zone', 'provider'])),
        spreadByLabel: Opt(Str()),
        maxGroups: Opt(Int64()),
        minGroups: Opt(Int64()),
      }),
    ),
  ),
  replicaScheduling: Opt(
    Obj({
      replicaSchedulingType: Opt(Enum(['Duplicated', 'Divided'])),
      replicaDivisionPreference: Opt(Enum(['Aggregated', 'Weighted'])),
      weightPreference: Opt(
        Obj({
          staticWeightList: Opt(Arr(Obj({ targetCluster: ClusterAffinity, weight: Int64({ minimum: 1 }) }))),
          dynamicWeight: Opt(Enum(['AvailableReplicas'])),
        }),
      ),
    }),
  ),
  workloadAffinity: Opt(
    Obj({
      affinity: Opt(Obj({ groupByLabelKey: ReqStr({ format: 'qualified-name' }) })),
      antiAffinity: Opt(Obj({ groupByLabelKey: ReqStr({ format: 'qualified-name' }) })),
    }),
  ),
});

/** The policy's suspension, plus `scheduling`, which only bindings have (set by a third-party scheduler's webhook). */
const Suspension = Obj({ dispatching: Opt(Bool()), dispatchingOnClusters: Opt(Obj({ clusterNames: Opt(StrList()) })), scheduling: Opt(Bool()) });

const GracefulEvictionTask = Obj({
  fromCluster: ReqStr(),
  replicas: Opt(Int32()),
  reason: ReqStr({ maxLength: 32 }),
  message: Opt(Str({ maxLength: 1024 })),
  producer: ReqStr(),
  purgeMode: Opt(Enum(['Directly', 'Gracefully', 'Never'])),
  gracePeriodSeconds: Opt(Int32()),
  suppressDeletion: Opt(Bool()),
  preservedLabelState: Opt(StringMap()),
  clustersBeforeFailover: Opt(StrList()),
  creationTimestamp: Opt(Time()),
});

const ResourceBindingSpec = Obj({
  resource: ObjectReference,
  propagateDeps: Opt(Bool()),
  replicaRequirements: Opt(ReplicaRequirements),
  replicas: Opt(Int32({ minimum: 0 })),
  components: Opt(Arr(Component)),
  clusters: Opt(Arr(TargetCluster)),
  placement: Opt(Placement),
  gracefulEvictionTasks: Opt(Arr(GracefulEvictionTask)),
  requiredBy: Opt(Arr(BindingSnapshot)),
  schedulerName: Opt(Str()),
  failover: Opt(FailoverBehavior),
  conflictResolution: Opt(Enum(['Abort', 'Overwrite'])),
  rescheduleTriggeredAt: Opt(Time()),
  schedulePriority: Opt(Obj({ priority: Opt(Int32()) })),
  suspension: Opt(Suspension),
  preserveResourcesOnDeletion: Opt(Bool()),
});

const AggregatedStatusItem = Obj({
  clusterName: ReqStr(),
  status: Opt(RawValue()),
  applied: Opt(Bool()),
  appliedMessage: Opt(Str()),
  health: Opt(ResourceHealth()),
});

const ResourceBindingStatus = Obj({
  schedulerObservedGeneration: Opt(Int64({ minimum: 0 })),
  schedulerObservingAffinityName: Opt(Str()),
  lastScheduledTime: Opt(Time()),
  conditions: Opt(Conditions()),
  aggregatedStatus: Opt(Arr(AggregatedStatusItem)),
});

export const schema = Obj({ ...envelope, spec: ResourceBindingSpec, status: Opt(ResourceBindingStatus) });
export type ClusterResourceBinding = Static<typeof schema>;

/** Karmada's CRD pattern for eviction reasons (the metav1.Condition reason pattern). */
const EVICTION_REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const EVICTION_REASON_MESSAGE =
  "should match '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$': a letter, then letters, digits, '_', ',' or ':', ending in a letter, digit or '_' (e.g. 'ApplicationFailure')";

function checkClusterNamesUnique(ctx: RuleContext, clusters: unknown, path: FieldPath): void {
  checkUnique(ctx, list(clusters), (c) => record(c).name, (c, i) =>
    duplicate(child(index(path, i), 'name'), record(c).name, 'a cluster may appear once'),
  );
}

/** Every cluster affinity of a placement gets the same checks as ClusterTaintPolicy's and ResourceRegistry's. */
function checkPlacementAffinities(ctx: RuleContext, placement: unknown, path: FieldPath): void {
  const p = record(placement);
  if (p.clusterAffinity !== undefined) checkClusterAffinity(ctx, p.clusterAffinity, child(path, 'clusterAffinity'));
  list(p.clusterAffinities).forEach((affinity, i) => {
    const at = index(child(path, 'clusterAffinities'), i);
    checkClusterAffinity(ctx, affinity, at);
    list(record(affinity).overflowAffinities).forEach((overflow, j) => checkClusterAffinity(ctx, overflow, index(child(at, 'overflowAffinities'), j)));
  });
  const weights = child(path, 'replicaScheduling.weightPreference.staticWeightList');
  list(record(record(p.replicaScheduling).weightPreference).staticWeightList).forEach((weight, i) => {
    checkClusterAffinity(ctx, record(weight).targetCluster, child(index(weights, i), 'targetCluster'));
  });
}

function validate(binding: ClusterResourceBinding, ctx: RuleContext): void {
  const spec = record(binding.spec);
  checkPlacementAffinities(ctx, spec.placement, SPEC_PLACEMENT);
  checkClusterNamesUnique(ctx, spec.clusters, SPEC_CLUSTERS);
  list(spec.requiredBy).forEach((snapshot, i) => {
    checkClusterNamesUnique(ctx, record(snapshot).clusters, child(index(SPEC_REQUIRED_BY, i), 'clusters'));
  });
  list(spec.gracefulEvictionTasks).forEach((task, i) => {
    const reason = record(task).reason;
    if (isString(reason) && reason !== '' && !EVICTION_REASON.test(reason)) {
      add(ctx, invalid(child(index(SPEC_GRACEFUL_EVICTION_TASKS, i), 'reason'), reason, EVICTION_REASON_MESSAGE));
    }
  });
}

function validateStatus(binding: ClusterResourceBinding, ctx: RuleContext): void {
  const status = record(binding.status);
  checkConditions(ctx, status.conditions, STATUS_CONDITIONS);
  checkUnique(ctx, list(status.aggregatedStatus), (s) => record(s).clusterName, (s, i) =>
    duplicate(child(index(STATUS_AGGREGATED_STATUS, i), 'clusterName'), record(s).clusterName, 'each cluster has one aggregated status'),
  );
}

/** Karmada's controllers label the Works of a binding with this id, and find them by it. */
export const PERMANENT_ID_LABEL = 'clusterresourcebinding.karmada.io/permanent-id';

/** Only the id: the CRD's schema defaults (conflictResolution and the like) are the API server's to write. */
function defaults(binding: ClusterResourceBinding, ctx: DefaultContext): void {
  defaultPermanentId(binding, PERMANENT_ID_LABEL, ctx);
}

export const rules: KindRules<ClusterResourceBinding> = {
  kind: 'ClusterResourceBinding',
  group: 'work',
  version: 'v1alpha2',
  plural: 'clusterresourcebindings',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  validate,
  validateStatus,
  defaults,
  // Karmada's webhook configuration registers this mutation for CREATE only: an UPDATE may remove
  // or change the label, and it stays so.
  defaultOperations: ['CREATE'],
  permanentIdLabel: PERMANENT_ID_LABEL,
};
