/** CronFederatedHPA (autoscaling.<domain>/v1alpha1, namespaced): cron rules that scale a target or a FederatedHPA's bounds. */
import { Arr, Bool, Int32, Obj, Opt, ReqStr, Str, Time, envelope, listMap, type Static } from './_shared/schema.js';
import { add, addWarning, checkUnique, child, fingerprint, fingerprints, index, type Fingerprints, isInt32, isRecord, isString, judgedSpec, list, record } from './_shared/checks.js';
import { duplicate, forbidden, invalid, required } from '../src/engine/field-error.js';
import { renderValue, shortText } from '../src/engine/field.js';
import { pathSegmentName } from '../src/checks/names.js';
import { runsEverySecond } from '../src/checks/cron.js';
import type { DefaultContext, KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const SPEC_RULES = FieldPath.of('spec', 'rules');
const SPEC_SCALE_TARGET_REF_KIND = FieldPath.of('spec', 'scaleTargetRef', 'kind');
const STATUS_EXECUTION_HISTORIES = FieldPath.of('status', 'executionHistories');

export const DEFAULT_HISTORY_LIMIT = 3;
const FEDERATED_HPA = 'FederatedHPA';

const ScaleTargetRef = Obj({
  apiVersion: Opt(Str()),
  kind: ReqStr({ format: 'path-segment-name' }),
  name: ReqStr({ format: 'path-segment-name' }),
});

const HistoryLimit = () => Int32({ minimum: 1, maximum: 32 });

const CronFederatedHPARule = Obj({
  name: ReqStr({ maxLength: 32 }),
  schedule: ReqStr({ format: 'cron-schedule' }),
  timeZone: Opt(Str({ format: 'iana-time-zone' })),
  suspend: Opt(Bool()),
  targetReplicas: Opt(Int32()),
  targetMinReplicas: Opt(Int32()),
  targetMaxReplicas: Opt(Int32()),
  successfulHistoryLimit: Opt(HistoryLimit()),
  failedHistoryLimit: Opt(HistoryLimit()),
});

const SuccessfulExecution = Obj({
  scheduleTime: Time(),
  executionTime: Time(),
  appliedReplicas: Opt(Int32()),
  appliedMinReplicas: Opt(Int32()),
  appliedMaxReplicas: Opt(Int32()),
});

const FailedExecution = Obj({ scheduleTime: Time(), executionTime: Time(), message: Str() });

const ExecutionHistory = Obj({
  ruleName: ReqStr(),
  nextExecutionTime: Opt(Time()),
  successfulExecutions: Opt(Arr(SuccessfulExecution)),
  failedExecutions: Opt(Arr(FailedExecution)),
});

// Rules are named, and their names are unique: server-side apply merges them by name.
const CronFederatedHPASpec = Obj({ scaleTargetRef: ScaleTargetRef, rules: Arr(CronFederatedHPARule, listMap('name')) });
const CronFederatedHPAStatus = Obj({ executionHistories: Opt(Arr(ExecutionHistory)) });

export const schema = Obj({ ...envelope, spec: CronFederatedHPASpec, status: Opt(CronFederatedHPAStatus) });
export type CronFederatedHPA = Static<typeof schema>;
export type CronFederatedHPARule = Static<typeof CronFederatedHPARule>;

/** What the rules scale, which decides the replica fields they may use; unknown when the reference is itself wrong. */
type Target = 'FederatedHPA' | 'workload' | 'unknown';

/** FederatedHPA's apiVersion; asked several times per object, and a process serves one domain, so the last answer is kept. */
const fhpaApiVersion = (ctx: RuleContext): string => {
  if (lastFhpaApiVersion.groupDomain !== ctx.groupDomain) {
    lastFhpaApiVersion = { groupDomain: ctx.groupDomain, apiVersion: `autoscaling.${ctx.groupDomain}/v1alpha1` };
  }
  return lastFhpaApiVersion.apiVersion;
};
let lastFhpaApiVersion = { groupDomain: '', apiVersion: '' };

/** An int32 the schema accepted; anything else the schema already reported. */
const int32 = (v: unknown): number | undefined => (isInt32(v) ? v : undefined);

/**
 * Which kind of target the reference names. As in Karmada, only the FederatedHPA's own apiVersion
 * makes a FederatedHPA target; any other is a workload even while its kind is wrong. Under that
 * apiVersion any other kind is refused (checkScaleTargetRef, or the schema), so the target is unknown.
 */
function targetOf(ref: unknown, ctx: RuleContext): Target {
  const r = record(ref);
  if (r.apiVersion !== undefined && !isString(r.apiVersion)) return 'unknown';
  if (r.apiVersion !== fhpaApiVersion(ctx)) return 'workload';
  return r.kind === FEDERATED_HPA ? 'FederatedHPA' : 'unknown';
}

/** Karmada's rule: in the FederatedHPA's own API group only the FederatedHPA kind can be scaled. */
function checkScaleTargetRef(ref: unknown, ctx: RuleContext): void {
  const r = record(ref);
  if (r.apiVersion === fhpaApiVersion(ctx) && isString(r.kind) && r.kind !== '' && !pathSegmentName(r.kind) && r.kind !== FEDERATED_HPA) {
    add(ctx, invalid(SPEC_SCALE_TARGET_REF_KIND, r.kind, `invalid scaleTargetRef kind: ${shortText(r.kind)}, only support ${FEDERATED_HPA}`));
  }
}

function checkFederatedHPAReplicas(rule: Record<string, unknown>, path: FieldPath, ctx: RuleContext): void {
  if (rule.targetMinReplicas === undefined && rule.targetMaxReplicas === undefined) {
    add(ctx, invalid(child(path, 'targetMaxReplicas'), '', 'targetMinReplicas and targetMaxReplicas cannot be nil at the same time if you want to scale FederatedHPA'));
  }
  const min = int32(rule.targetMinReplicas);
  const max = int32(rule.targetMaxReplicas);
  if (min !== undefined && min <= 0) add(ctx, invalid(child(path, 'targetMinReplicas'), min, 'targetMinReplicas should be larger than 0'));
  if (max !== undefined && max <= 0) add(ctx, invalid(child(path, 'targetMaxReplicas'), max, 'targetMaxReplicas should be larger than 0'));
  if (min !== undefined && max !== undefined && min > 0 && max > 0 && min > max) {
    add(ctx, invalid(child(path, 'targetMinReplicas'), min, 'targetMaxReplicas should be larger than or equal to targetMinReplicas'));
  }
  if (rule.targetReplicas !== undefined) {
    add(ctx, forbidden(child(path, 'targetReplicas'), 'only for targets that are not a FederatedHPA; use targetMinReplicas and targetMaxReplicas to scale a FederatedHPA'));
  }
}

const FHPA_ONLY_FIELDS = ['targetMinReplicas', 'targetMaxReplicas'] as const;

function checkWorkloadReplicas(rule: Record<string, unknown>, path: FieldPath, ctx: RuleContext): void {
  const replicas = int32(rule.targetReplicas);
  if (rule.targetReplicas === undefined) addWarning(ctx, path, `${path}: no targetReplicas, so this rule changes nothing`);
  else if (replicas !== undefined && replicas < 0) add(ctx, invalid(child(path, 'targetReplicas'), replicas, 'targetReplicas should be larger than or equal to 0'));
  for (const field of FHPA_ONLY_FIELDS) {
    if (rule[field] !== undefined) {
      add(ctx, forbidden(child(path, field), `only for a FederatedHPA target (scaleTargetRef apiVersion "${fhpaApiVersion(ctx)}", kind "${FEDERATED_HPA}"); use targetReplicas`));
    }
  }
}

function validate(cron: CronFederatedHPA, ctx: RuleContext): void {
  const spec = record(cron.spec);
  checkScaleTargetRef(spec.scaleTargetRef, ctx);
  const target = targetOf(spec.scaleTargetRef, ctx);
  const rules = list(spec.rules);
  checkUnique(ctx, rules, (r) => record(r).name, (r, i) => duplicate(child(index(SPEC_RULES, i), 'name'), record(r).name));
  rules.forEach((rule, i) => {
    if (!isRecord(rule)) return;
    const path = index(SPEC_RULES, i);
    if (isString(rule.schedule) && runsEverySecond(rule.schedule)) {
      addWarning(ctx, child(path, 'schedule'), `${child(path, 'schedule')}: "${rule.schedule.trim()}" runs every second; the controller raises @every durations under 1s to 1s`);
    }
    if (target === 'FederatedHPA') checkFederatedHPAReplicas(rule, path, ctx);
    else if (target === 'workload') checkWorkloadReplicas(rule, path, ctx);
  });
}

/**
 * Each successful execution records what the rule set: applied* is required for every target* the rule
 * has. Only the fields the target kind uses count; the others are forbidden in the spec (or, in an object
 * stored before, were never applied), so the controller records nothing for them.
 */
const APPLIED_FIELDS: Record<Exclude<Target, 'unknown'>, readonly (readonly [string, string])[]> = {
  workload: [['targetReplicas', 'appliedReplicas']],
  FederatedHPA: [
    ['targetMinReplicas', 'appliedMinReplicas'],
    ['targetMaxReplicas', 'appliedMaxReplicas'],
  ],
};

/**
 * Whether an execution of a rule that sets one of targetMinReplicas and targetMaxReplicas holds
 * that target under the other applied name. Karmada releases whose history writer takes
 * (replicas, max, min) while its caller passes (replicas, min, max) record every execution so;
 * fleetgate does not refuse the status writes of Karmada's controllers.
 */
function recordedSwapped(rule: Record<string, unknown>, execution: Record<string, unknown>, targetField: string): boolean {
  const other = SWAPPED[targetField];
  return other !== undefined && rule[other.target] === undefined && execution[other.applied] === rule[targetField];
}

const SWAPPED: Record<string, { target: string; applied: string }> = {
  targetMinReplicas: { target: 'targetMaxReplicas', applied: 'appliedMaxReplicas' },
  targetMaxReplicas: { target: 'targetMinReplicas', applied: 'appliedMinReplicas' },
};

/**
 * The stored histories by rule name (none on CREATE). Status rules that compare with the spec judge
 * only what this write records: an execution or next time already stored was written for the rule as
 * it was then, and a spec change (a new targetMaxReplicas, suspend) must not turn it into an error.
 */
function storedHistories(ctx: RuleContext): Map<unknown, Record<string, unknown>> {
  const stored = new Map<unknown, Record<string, unknown>>();
  if (ctx.oldObject === undefined) return stored;
  for (const h of list(record(record(record(ctx.oldObject).status)).executionHistories)) {
    if (isRecord(h) && !stored.has(h.ruleName)) stored.set(h.ruleName, h);
  }
  return stored;
}

function validateStatus(cron: CronFederatedHPA, ctx: RuleContext): void {
  const spec = judgedSpec(cron, ctx);
  const histories = list(record(cron.status).executionHistories);
  const path = STATUS_EXECUTION_HISTORIES;
  checkUnique(ctx, histories, (h) => record(h).ruleName, (h, i) => duplicate(child(index(path, i), 'ruleName'), record(h).ruleName));
  const target = targetOf(spec.scaleTargetRef, ctx);
  const rulesByName = new Map<unknown, Record<string, unknown>>();
  for (const rule of list(spec.rules)) {
    if (isRecord(rule) && isString(rule.name) && !rulesByName.has(rule.name)) rulesByName.set(rule.name, rule);
  }
  const stored = storedHistories(ctx);
  // Many histories may name one rule (each a duplicate): its stored executions are read once.
  const recordedOf = new Map<Record<string, unknown>, Fingerprints>();
  const recordedExecutions = (before: Record<string, unknown> | undefined): Fingerprints => {
    if (!before) return fingerprints([]);
    let recorded = recordedOf.get(before);
    if (!recorded) recordedOf.set(before, (recorded = fingerprints(list(before.successfulExecutions))));
    return recorded;
  };
  histories.forEach((h, i) => {
    const history = record(h);
    const rule = rulesByName.get(history.ruleName);
    if (!rule) return;
    const before = stored.get(history.ruleName);
    // States and transitions: a suspended rule has no later executions, so nextExecutionTime is unset.
    if (rule.suspend === true && history.nextExecutionTime !== undefined && history.nextExecutionTime !== before?.nextExecutionTime) {
      add(ctx, forbidden(child(index(path, i), 'nextExecutionTime'), `the rule ${renderValue(history.ruleName)} is suspended, so it has no next execution`));
    }
    // While the target reference is wrong, which replica fields apply is unknown.
    if (target === 'unknown') return;
    const recorded = recordedExecutions(before);
    list(history.successfulExecutions).forEach((execution, j) => {
      if (!isRecord(execution) || (recorded.size > 0 && recorded.has(fingerprint(execution)))) return;
      for (const [targetField, appliedField] of APPLIED_FIELDS[target]) {
        if (rule[targetField] !== undefined && execution[appliedField] === undefined && !recordedSwapped(rule, execution, targetField)) {
          add(ctx, required(child(index(child(index(path, i), 'successfulExecutions'), j), appliedField), `the rule ${renderValue(history.ruleName)} sets ${targetField}`));
        }
      }
    });
  });
}

/** The spec's history limits: 3 successful and 3 failed executions kept per rule. */
function defaults(cron: CronFederatedHPA, ctx: DefaultContext): void {
  list(record(cron.spec).rules).forEach((rule, i) => {
    if (!isRecord(rule)) return;
    if (rule.successfulHistoryLimit == null) ctx.set(['spec', 'rules', i, 'successfulHistoryLimit'], DEFAULT_HISTORY_LIMIT);
    if (rule.failedHistoryLimit == null) ctx.set(['spec', 'rules', i, 'failedHistoryLimit'], DEFAULT_HISTORY_LIMIT);
  });
}

export const rules: KindRules<CronFederatedHPA> = {
  kind: 'CronFederatedHPA',
  group: 'autoscaling',
  version: 'v1alpha1',
  plural: 'cronfederatedhpas',
  scope: 'Namespaced',
  statusSubresource: true,
  schema,
  validate,
  validateStatus,
  defaults,
};
