/**
 * ResourceInterpreterCustomization (config.<domain>/v1alpha1, cluster-scoped): Lua
 * rules that interpret one resource type. Scripts are parsed, never executed.
 */
import { Obj, Opt, RawObject, ReqStr, envelope, type Static } from './_shared/schema.js';
import { add, child, isString, list, record } from './_shared/checks.js';
import { type Cause } from '../src/engine/field.js';
import { forbidden, invalid } from '../src/engine/field-error.js';
import { luaScriptError, type LuaFunctionSpec } from '../src/checks/lua.js';
import type { KindRules, Lookups, RuleContext } from '../src/engine/rule.js';
import { isThenable } from '../src/util/is.js';
import { FieldPath } from '../src/engine/path.js';

/** Each member of spec.customizations and the global function its script must define. */
export const CUSTOMIZATION_FUNCTIONS = {
  retention: { name: 'Retain', params: ['desiredObj', 'observedObj'] },
  replicaResource: { name: 'GetReplicas', params: ['desiredObj'] },
  // Karmada's member; the spec does not list it.
  componentResource: { name: 'GetComponents', params: ['desiredObj'] },
  replicaRevision: { name: 'ReviseReplica', params: ['desiredObj', 'desiredReplica'] },
  statusReflection: { name: 'ReflectStatus', params: ['observedObj'] },
  statusAggregation: { name: 'AggregateStatus', params: ['desiredObj', 'statusItems'] },
  healthInterpretation: { name: 'InterpretHealth', params: ['observedObj'] },
  dependencyInterpretation: { name: 'GetDependencies', params: ['desiredObj'] },
} as const satisfies Record<string, LuaFunctionSpec>;

export type CustomizationMember = keyof typeof CUSTOMIZATION_FUNCTIONS;
const MEMBERS = Object.keys(CUSTOMIZATION_FUNCTIONS) as CustomizationMember[];
/** Several customizations of one target may each declare dependencies; every other member has one owner. */
const EXCLUSIVE_MEMBERS = MEMBERS.filter((m) => m !== 'dependencyInterpretation');

const LuaScript = Obj({ luaScript: ReqStr() });

const CustomizationRules = Obj({
  retention: Opt(LuaScript),
  replicaResource: Opt(LuaScript),
  componentResource: Opt(LuaScript),
  replicaRevision: Opt(LuaScript),
  statusReflection: Opt(LuaScript),
  statusAggregation: Opt(LuaScript),
  healthInterpretation: Opt(LuaScript),
  dependencyInterpretation: Opt(LuaScript),
});

const CustomizationTarget = Obj({
  apiVersion: ReqStr({ format: 'group-version' }),
  kind: ReqStr({ format: 'path-segment-name' }),
});

const ResourceInterpreterCustomizationSpec = Obj({ target: CustomizationTarget, customizations: CustomizationRules });

export const schema = Obj({ ...envelope, spec: ResourceInterpreterCustomizationSpec, status: Opt(RawObject()) });
export type ResourceInterpreterCustomization = Static<typeof schema>;

const CUSTOMIZATIONS_PATH = FieldPath.of('spec', 'customizations');

/** The non-empty script of a member, if the object sets one. */
function scriptOf(object: unknown, member: CustomizationMember): string | undefined {
  const script = record(record(record(record(object).spec).customizations)[member]).luaScript;
  return isString(script) && script !== '' ? script : undefined;
}

function validate(ric: ResourceInterpreterCustomization, ctx: RuleContext): void {
  for (const member of MEMBERS) {
    const script = scriptOf(ric, member);
    if (script === undefined) continue;
    const problem = luaScriptError(script, CUSTOMIZATION_FUNCTIONS[member]);
    if (problem) add(ctx, invalid(child(child(CUSTOMIZATIONS_PATH, member), 'luaScript'), script, problem));
  }
}

interface Target {
  apiVersion: string;
  kind: string;
}

function targetOf(object: unknown): Target | undefined {
  const target = record(record(record(object).spec).target);
  return isString(target.apiVersion) && target.apiVersion !== '' && isString(target.kind) && target.kind !== ''
    ? { apiVersion: target.apiVersion, kind: target.kind }
    : undefined;
}

/** `apps/v1, Kind=Deployment`, as Kubernetes prints a GroupVersionKind. */
const describeTarget = (t: Target): string => `${t.apiVersion}, Kind=${t.kind}`;

function conflicts(ric: ResourceInterpreterCustomization, existing: readonly unknown[]): Cause[] {
  const target = targetOf(ric);
  if (!target) return [];
  const name = record(ric.metadata).name;
  const causes: Cause[] = [];
  for (const other of existing) {
    const otherName = record(record(other).metadata).name;
    // The stored copy of the object being updated is not a rival.
    if (!isString(otherName) || otherName === name) continue;
    const otherTarget = targetOf(other);
    if (!otherTarget || otherTarget.apiVersion !== target.apiVersion || otherTarget.kind !== target.kind) continue;
    for (const member of EXCLUSIVE_MEMBERS) {
      if (scriptOf(ric, member) === undefined || scriptOf(other, member) === undefined) continue;
      causes.push(
        forbidden(
          child(CUSTOMIZATIONS_PATH, member),
          `conflicts with ResourceInterpreterCustomization "${otherName}" which already sets ${member} for ${describeTarget(target)}; only one customization may set ${member} for a resource type`,
        ),
      );
    }
  }
  return causes;
}

/** Karmada's conflict rule: one customization per target and interpreter operation (dependencies excepted). */
function validateWithLookups(ric: ResourceInterpreterCustomization, lookups: Lookups, ctx: RuleContext): void | Promise<void> {
  const existing = lookups.listResourceInterpreterCustomizations!(); // present: see lookupFunction
  const report = (items: unknown) => {
    for (const cause of conflicts(ric, list(items))) add(ctx, cause);
  };
  // Any thenable, not only this realm's Promise: a missed one would pass the rule unchecked.
  if (isThenable(existing)) return Promise.resolve(existing).then(report);
  report(existing);
}

/** Only members other than dependencyInterpretation can conflict. */
function lookupsApply(ric: ResourceInterpreterCustomization): boolean {
  return targetOf(ric) !== undefined && EXCLUSIVE_MEMBERS.some((m) => scriptOf(ric, m) !== undefined);
}

export const rules: KindRules<ResourceInterpreterCustomization> = {
  kind: 'ResourceInterpreterCustomization',
  group: 'config',
  version: 'v1alpha1',
  plural: 'resourceinterpretercustomizations',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  validate,
  validateWithLookups,
  lookupsNeeded: 'conflicts with other ResourceInterpreterCustomizations',
  lookupFunction: 'listResourceInterpreterCustomizations',
  lookupsApply,
};
