/**
 * Ratcheting: an UPDATE is not refused for what it leaves as stored. Karmada stored objects under
 * rules looser than fleetgate's; a controller removing its finalizer, or adding a label, must not
 * be stopped by a rule the stored object predates. Kubernetes' CRD validation ratchets unchanged
 * values the same way. Three grains, all here:
 *
 * - a section (spec, status, an interpreter webhook configuration's webhooks) left as stored:
 *   every cause there becomes a warning (sectionsLeftAsStored, read by addCause through
 *   RuleContext.leftAsStored, and by the schema pass through sectionRoles);
 * - a value left as stored: the schema pass keeps its cause as a warning (SchemaResult.kept), and
 *   a rule on one value alone says so with addUnlessStored;
 * - a status left as stored: its rules do not run at all (statusLeftAsStored).
 *
 * The warning that replaces a cause is keptWarning (field.ts), so every grain words it alike.
 */
import { keptWarning, type Cause } from './field.js';
import { addCause, recordWarning, storedObject, type RuleContext } from './rule.js';
import { sameJson } from '../util/json-equal.js';

/** Sections every write is judged on, whatever it leaves as stored. */
export const ALWAYS_JUDGED: ReadonlySet<string> = new Set(['', 'apiVersion', 'kind', 'metadata']);

/**
 * Whether an UPDATE leaves a section as stored. Judged per section, not per value: a rule that
 * relates values (a duplicate, a sum) may blame one the write left alone for a change elsewhere
 * in the section.
 *
 * fleetgate's mutating webhook fills its defaults into the write first (as the API server fills a
 * CRD's defaults into both objects): a section that differs from the stored one only by them is
 * left as stored too. `storedWithDefaults` gives that copy; it is asked on the first section
 * that differs, once.
 */
export function sectionsLeftAsStored(
  object: Record<string, unknown>,
  stored: Record<string, unknown>,
  storedWithDefaults: () => Record<string, unknown>,
): (section: string) => boolean {
  const asStored = new Map<string, boolean>();
  let storedDefaulted: Record<string, unknown> | undefined;
  const isAsStored = (section: string): boolean => {
    if (!Object.hasOwn(stored, section)) return false;
    // A null, where the API server would have dropped it (a rule's timeZone: null), changes nothing.
    if (sameJson(object[section], stored[section], true)) return true;
    storedDefaulted ??= storedWithDefaults();
    return Object.hasOwn(storedDefaulted, section) && sameJson(object[section], storedDefaulted[section], true);
  };
  return (section) => {
    if (ALWAYS_JUDGED.has(section)) return false;
    let same = asStored.get(section);
    if (same === undefined) asStored.set(section, (same = isAsStored(section)));
    return same;
  };
}

/**
 * What a section's mistakes do to a write: refuse it (`decides`), become warnings (`kept`: an
 * UPDATE leaves the section as stored), or nothing (`ignored`: outside what a status write judges).
 */
export type SectionRole = 'decides' | 'kept' | 'ignored';

/** What each section's mistakes do to this write; undefined when every section decides. */
export function sectionRoles(statusOnly: boolean, leftAsStored: ((section: string) => boolean) | undefined): ((section: string) => SectionRole) | undefined {
  return statusOnly || leftAsStored ? rolesOf(statusOnly, leftAsStored) : undefined;
}

/**
 * sectionRoles' answer where a section may not decide. Apart, so that a write where every section
 * decides (every CREATE) allocates no context for a closure it does not make.
 */
function rolesOf(statusOnly: boolean, leftAsStored: ((section: string) => boolean) | undefined): (section: string) => SectionRole {
  return (section) => {
    if (statusOnly && section !== 'status' && !ALWAYS_JUDGED.has(section)) return 'ignored';
    return leftAsStored?.(section) ? 'kept' : 'decides';
  };
}

/**
 * Whether a write leaves the status as stored: every main-resource write of a kind with a status
 * subresource (the API server restores it before webhooks see it). Its rules are not run then.
 */
export const statusLeftAsStored = (object: Record<string, unknown>, stored: Record<string, unknown> | undefined): boolean =>
  stored !== undefined && sameJson(object.status, stored.status);

/** Whether the schema pass keeps a value's cause as a warning: the value is exactly as stored. */
export const valueLeftAsStored = (value: unknown, storedValue: unknown): boolean => sameJson(value, storedValue);

/**
 * For a check that depends on one value alone: on an UPDATE that leaves that value as stored,
 * the cause is a warning, as the schema pass ratchets unchanged values (see checkSchema).
 */
export function addUnlessStored(ctx: RuleContext, cause: Cause, value: unknown, storedValue: (old: Record<string, unknown>) => unknown): void {
  const stored = storedObject(ctx);
  if (stored && storedValue(stored) === value) recordWarning(ctx, keptWarning(cause));
  else addCause(ctx, cause);
}
