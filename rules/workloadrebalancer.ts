/** WorkloadRebalancer (apps.<domain>/v1alpha1, cluster-scoped): a job that reschedules the listed workloads. */
import { Arr, Int32, Int64, Obj, Opt, ReqStr, Str, Time, envelope, type Static } from './_shared/schema.js';
import { add, checkUnique, child, index, isRecord, isString, list, record } from './_shared/checks.js';
import { duplicate, invalid, required } from '../src/engine/field-error.js';
import { dns1123Label } from '../src/checks/names.js';
import type { KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_WORKLOADS = FieldPath.of('spec', 'workloads');
const STATUS_OBSERVED_WORKLOADS = FieldPath.of('status', 'observedWorkloads');

/** A workload by apiVersion, kind, name and (for namespaced kinds) namespace. */
const ObjectReference = Obj({
  apiVersion: ReqStr({ format: 'group-version' }),
  kind: ReqStr(),
  name: ReqStr({ format: 'path-segment-name' }),
  // Empty means a cluster-scoped workload, so the DNS-label check is in checkNamespace, not a format.
  namespace: Opt(Str()),
});
type ObjectReference = Static<typeof ObjectReference>;

/** `workloads:` with no value is null in YAML: the schema pass reports it as the missing list it is (errors #7: nil or empty). */
const Workloads = Arr(ObjectReference, { minItems: 1 });

const WorkloadRebalancerSpec = Obj({
  workloads: Workloads,
  ttlSecondsAfterFinished: Opt(Int32({ minimum: 0 })),
});

const ObservedWorkload = Obj({ workload: ObjectReference, result: Opt(Str()), reason: Opt(Str()) });

const WorkloadRebalancerStatus = Obj({
  finishTime: Opt(Time()),
  observedGeneration: Opt(Int64({ minimum: 0 })),
  observedWorkloads: Opt(Arr(ObservedWorkload)),
});

export const schema = Obj({ ...envelope, spec: WorkloadRebalancerSpec, status: Opt(WorkloadRebalancerStatus) });
export type WorkloadRebalancer = Static<typeof schema>;

function checkNamespace(ctx: RuleContext, reference: unknown, path: FieldPath): void {
  const namespace = record(reference).namespace;
  if (!isString(namespace) || namespace === '') return;
  const problem = dns1123Label(namespace);
  if (problem) add(ctx, invalid(child(path, 'namespace'), namespace, problem));
}

/** The identity of a referenced workload; undefined until apiVersion, kind and name are all given. */
function workloadKey(reference: unknown): string[] | undefined {
  const { apiVersion, kind, name, namespace } = record(reference);
  if (!isString(apiVersion) || !isString(kind) || !isString(name) || apiVersion === '' || kind === '' || name === '') return undefined;
  return [apiVersion, kind, isString(namespace) ? namespace : '', name];
}

function validate(rebalancer: WorkloadRebalancer, ctx: RuleContext): void {
  const spec = record(rebalancer.spec);
  const path = SPEC_WORKLOADS;
  // null (`workloads:` with no value) is reported by the schema pass as Required.
  const workloads = list(spec.workloads);
  workloads.forEach((w, i) => checkNamespace(ctx, w, index(path, i)));
  checkUnique(ctx, workloads, workloadKey, (w, i) => duplicate(index(path, i), w, 'each workload may be listed only once'));
}

/** The per-workload end results; other values (the spec leaves them open) mean the workload has not ended. */
const END_RESULTS = ['Successful', 'Failed'];

function validateStatus(rebalancer: WorkloadRebalancer, ctx: RuleContext): void {
  const status = record(rebalancer.status);
  // States and transitions: the rebalancer finishes (finishTime is set) once every workload has ended.
  // Judged when this write sets or changes finishTime. Karmada's controller keeps a stored
  // finishTime while it retries a workload added since (its result still empty), and that
  // write must not be refused.
  const finishing = status.finishTime !== undefined && status.finishTime !== null && status.finishTime !== storedFinishTime(ctx);
  list(status.observedWorkloads).forEach((o, i) => {
    const path = index(STATUS_OBSERVED_WORKLOADS, i);
    checkNamespace(ctx, record(o).workload, child(path, 'workload'));
    if (finishing && isRecord(o)) checkEnded(ctx, o.result, child(path, 'result'));
  });
}

const storedFinishTime = (ctx: RuleContext): unknown =>
  ctx.oldObject === undefined ? undefined : record(record(ctx.oldObject).status).finishTime;

function checkEnded(ctx: RuleContext, result: unknown, path: FieldPath): void {
  const why = 'status.finishTime is set by this write, so every workload must have ended Successful or Failed';
  if (result === undefined || result === '') add(ctx, required(path, why));
  else if (isString(result) && !END_RESULTS.includes(result)) add(ctx, invalid(path, result, why));
}

export const rules: KindRules<WorkloadRebalancer> = {
  kind: 'WorkloadRebalancer',
  group: 'apps',
  version: 'v1alpha1',
  plural: 'workloadrebalancers',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  validate,
  validateStatus,
};
