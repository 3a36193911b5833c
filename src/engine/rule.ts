/**
 * The contract between the engine and the per-kind rule modules in rules/.
 * A rule module is pure: a schema, functions that add causes and warnings to a
 * context, optional defaulting of a copy, and optional context rules that read
 * other objects only through the injected lookups.
 */
import type { TSchema } from '@sinclair/typebox';
import { causeKey, keptWarning, sectionOfItem, warningAt, type Cause, type Field, type Warning } from './field.js';
import { isRecord } from '../util/is.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** Every admission operation, for telling one from any other string. */
export const OPERATIONS: ReadonlySet<string> = new Set<Operation>(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
export type MaybePromise<T> = T | Promise<T>;

/** A Service as far as the context rules need it. */
export interface Service {
  metadata?: { name?: string; namespace?: string };
  spec?: { type?: string; clusterIP?: string; externalName?: string; ports?: { port?: number; name?: string }[] };
}

/**
 * Reads of other objects for the two context rules. The library performs no I/O;
 * the webhook, the CLI or an embedding API server supply these.
 */
export interface Lookups {
  getService?(namespace: string, name: string): MaybePromise<Service | undefined>;
  listResourceInterpreterCustomizations?(): MaybePromise<readonly unknown[]>;
}

/** Switches for behaviour where Karmada and the spec leave a choice to the operator. */
export interface RuleOptions {
  /**
   * ClusterTaintPolicy taints with effect NoExecute. The spec lists NoExecute as a valid
   * effect, so it is allowed by default; Karmada's webhook forbids it unless started with
   * `--allow-no-execute-taint-policy`, which `false` here reproduces.
   */
  allowNoExecuteTaintPolicy?: boolean;
}

/**
 * The rule options out of a larger options object. The one place that lists them, so a
 * layer that forwards options (review, the server) cannot drop a new one.
 */
export const pickRuleOptions = ({ allowNoExecuteTaintPolicy }: RuleOptions): RuleOptions => ({ allowNoExecuteTaintPolicy });

export interface RuleContext {
  readonly operation: Operation;
  readonly oldObject: unknown;
  readonly subResource: string;
  readonly groupDomain: string;
  readonly options: RuleOptions;
  /** Add through addCause and addWarning, which stop recording at a bound. */
  readonly causes: Cause[];
  readonly warnings: Warning[];
  /** The sections (see sectionOf) of causes found past what a context records (see addCause). */
  droppedFrom?: Set<string>;
  /** The causeKey of every recorded cause, made once the first cause is dropped. */
  recordedKeys?: Set<string>;
  /**
   * On an UPDATE, whether it leaves a section as stored (but for fleetgate's defaults and
   * dropped nulls; see validate.ts): a cause there cannot refuse the write, and addCause
   * records it as the warning it ends up as.
   */
  leftAsStored?: (section: string) => boolean;
  /** Set when warnings were found past what a result can list (see addWarning). */
  warningsDropped?: boolean;
  /** The messages of the recorded warnings, made once the bound is reached to tell a repeat from a new one. */
  recordedWarnings?: Set<string>;
}

/** The most causes a result lists; an object with more is refused all the same, and the result says so. */
export const MAX_CAUSES = 1000;
/** The most warnings a result lists. The API server keeps far fewer (4,096 characters in all). */
export const MAX_WARNINGS = 1000;
/**
 * What a context records before it only notes that there was more: room for the repeats
 * finish() drops, and a bound on the time and memory a request of a million small mistakes
 * (a 7 MiB list of empty strings) can take.
 */
export const CAUSES_RECORDED = 2 * MAX_CAUSES;
/** What a report says after the causes it lists, when there were more. */
export const MORE_CAUSES = `more causes not listed: fleetgate lists the first ${MAX_CAUSES}`;
export const MORE_WARNINGS = `more warnings not listed: fleetgate lists the first ${MAX_WARNINGS}`;
const WARNINGS_RECORDED = 2 * MAX_WARNINGS;

/** In droppedFrom: causes went unrecorded whose places are not known (the schema pass stopped early). */
export const UNKNOWN_SECTION = '*';

export function addCause(ctx: RuleContext, cause: Cause): void {
  if (ctx.leftAsStored?.(sectionOfItem(cause))) recordWarning(ctx, keptWarning(cause));
  else if (ctx.causes.length < CAUSES_RECORDED) ctx.causes.push(cause);
  else noteDropped(ctx, cause);
}

/**
 * A cause past the bound: its section is noted, unless it is one already noted or the cause
 * repeats a recorded one (finish() would drop it, and "more causes" would be untrue).
 */
function noteDropped(ctx: RuleContext, cause: Cause): void {
  const section = sectionOfItem(cause);
  if (ctx.droppedFrom?.has(section)) return;
  const recorded = (ctx.recordedKeys ??= new Set(ctx.causes.map(causeKey)));
  if (!recorded.has(causeKey(cause))) (ctx.droppedFrom ??= new Set()).add(section);
}

/**
 * Adds a warning about `field` ('' for none: the object as a whole, or how it was checked); `message`
 * is the whole text, which usually starts with the field.
 */
export function addWarning(ctx: RuleContext, field: Field, message: string): void {
  recordWarning(ctx, warningAt(field, message));
}

/** A warning past the bound is noted as dropped unless it repeats a recorded one (listedWarnings drops repeats). */
export function recordWarning(ctx: RuleContext, warning: Warning): void {
  if (ctx.warnings.length < WARNINGS_RECORDED) ctx.warnings.push(warning);
  else if (!ctx.warningsDropped && !(ctx.recordedWarnings ??= new Set(ctx.warnings.map((w) => w.message))).has(warning.message)) ctx.warningsDropped = true;
}

/** The stored object an UPDATE replaces (the status subresource's included); undefined for any other operation. */
export const storedObject = (ctx: Pick<RuleContext, 'operation' | 'oldObject'>): Record<string, unknown> | undefined =>
  ctx.operation === 'UPDATE' && isRecord(ctx.oldObject) ? ctx.oldObject : undefined;

export interface DefaultContext {
  readonly operation: Operation;
  /** The time written into defaulted timestamps (Cluster NoExecute taints' timeAdded). */
  readonly now: Date;
  /**
   * A new UUID for a permanent-id label: the one value a rule module may not derive from its
   * input. Random in the webhook (crypto.randomUUID); callers that need reproducible output
   * (tests, the policy-test runner, validate()'s reading of a stored object) supply their own.
   */
  uuid(): string;
  /** Gives the field at `path` (from the object's root) the default `value`. */
  set(path: readonly (string | number)[], value: unknown): void;
  /** Removes the field at `path`, which must be present (Karmada's pruning of Work manifests). */
  remove(path: readonly (string | number)[]): void;
  /**
   * The object cannot be mutated as Karmada's webhook would mutate it (Karmada's mutator fails on
   * it): the write is refused with this cause, and nothing is patched.
   */
  refuse(cause: Cause): void;
}

export type Scope = 'Cluster' | 'Namespaced';

export interface KindRules<T = any> {
  readonly kind: string;
  /** The group's first label; the group is `<group>.<groupDomain>`. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly scope: Scope;
  /** Whether fleetgate validates writes to the `status` subresource of this kind. */
  readonly statusSubresource: boolean;
  /** The object's structure; the TypeScript type T is derived from it. */
  readonly schema: TSchema;
  /** Name syntax for metadata.name; returns the problem or undefined. Defaults to a DNS-1123 subdomain. */
  readonly nameError?: (name: string) => string | undefined;
  /** Rules on the spec and everything but status; runs for writes of the main resource. */
  validate?(object: T, ctx: RuleContext): void;
  /** Rules on status; runs for the main resource and the status subresource. */
  validateStatus?(object: T, ctx: RuleContext): void;
  /** Rules comparing the new object with the old one (UPDATE of the main resource). */
  validateUpdate?(object: T, oldObject: T, ctx: RuleContext): void;
  /** Rules that need other objects; only run when lookups are supplied. */
  validateWithLookups?(object: T, lookups: Lookups, ctx: RuleContext): MaybePromise<void>;
  /** Which lookups validateWithLookups needs, named in the warning when they are absent. */
  readonly lookupsNeeded?: string;
  /** The lookup function validateWithLookups calls; lookups without it skip the rule with a warning. */
  readonly lookupFunction?: keyof Lookups;
  /** Whether the context rules concern this object at all; absent means always. */
  lookupsApply?(object: T): boolean;
  /** States the object's defaults through `ctx.set` and `ctx.remove`; the object itself is only read. */
  defaults?(object: T, ctx: DefaultContext): void;
  /**
   * The operations defaults() runs on, which the chart's MutatingWebhookConfiguration registers;
   * absent means CREATE and UPDATE. (Karmada mutates a ClusterResourceBinding on CREATE only.)
   */
  readonly defaultOperations?: readonly DefaultOperation[];
  /**
   * The label holding the object's permanent id, which defaults() fills with `ctx.uuid()` when it
   * is missing or empty. validate() reads it to default a stored object with the id the write carries.
   */
  readonly permanentIdLabel?: string;
}

/** The domain of the API groups when none is given: `<group>.karmada.io`. */
export const DEFAULT_GROUP_DOMAIN = 'karmada.io';

/** The group domain an option gives, or the default: every entry point resolves it here. */
export const groupDomainOf = (given: string | undefined): string => given ?? DEFAULT_GROUP_DOMAIN;

/** `cluster.karmada.io`, or the group under another domain. */
export const apiGroup = (rules: Pick<KindRules, 'group'>, groupDomain = DEFAULT_GROUP_DOMAIN): string => `${rules.group}.${groupDomain}`;

/** `cluster.karmada.io/v1alpha1`; asked once per validated object, and a process serves one domain, so the last answer is kept. */
export const apiVersion = (rules: KindRules, groupDomain = DEFAULT_GROUP_DOMAIN): string => {
  const last = lastApiVersion.get(rules);
  if (last?.groupDomain === groupDomain) return last.apiVersion;
  const answer = `${apiGroup(rules, groupDomain)}/${rules.version}`;
  lastApiVersion.set(rules, { groupDomain, apiVersion: answer });
  return answer;
};
const lastApiVersion = new WeakMap<KindRules, { groupDomain: string; apiVersion: string }>();

/** The operations a mutating webhook entry can name for these kinds. */
export type DefaultOperation = 'CREATE' | 'UPDATE';

/** Where a kind's defaults() runs when its module names no operations. */
export const DEFAULT_OPERATIONS: readonly DefaultOperation[] = ['CREATE', 'UPDATE'];

/**
 * Thrown by a lookup when the control plane cannot answer (in time). review() turns it
 * into a denial that says so, instead of an internal error.
 */
export class ContextUnavailableError extends Error {
  override readonly name = 'ContextUnavailableError';
}
