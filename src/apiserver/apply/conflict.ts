/**
 * The 409 an apply answers when it would change fields other managers own, worded as
 * kube-apiserver words it (managedfields/internal/conflict.go): kubectl prints the message, and
 * users know it.
 */
import type { FieldSet } from './field-set.js';
import { compareStrings, goQuote } from './go-text.js';
import { identityOf } from './managed-fields.js';
import { pathText } from './path-element.js';

export interface StatusCause {
  /** The cause type: `FieldManagerConflict`, `FieldValueRequired`… */
  reason: string;
  message: string;
  field: string;
}

/** A metav1.Status as kube-apiserver writes it. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  /** Absent for a plain error (kube's StatusReasonUnknown). */
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
  code: number;
}

/** How a manager is named in a conflict: `"m"`, `"m" with subresource "status"`, `… using <apiVersion>` for an updater. */
export function managerText(identifier: string): string {
  const id = identityOf(identifier);
  let text = goQuote(id.manager);
  if (id.subresource) text += ` with subresource ${goQuote(id.subresource)}`;
  if (id.operation === 'Update') text += ` using ${id.apiVersion ?? ''}`;
  return text;
}

export interface Conflict {
  readonly manager: string;
  readonly path: string;
}

/** One conflict per owned path, managers in identifier order, each manager's paths in set order. */
export function listConflicts(byManager: ReadonlyMap<string, FieldSet>): Conflict[] {
  return [...byManager.keys()]
    .sort(compareStrings)
    .flatMap((manager) => byManager.get(manager)!.paths().map((p) => ({ manager, path: pathText(p) })));
}

export function conflictStatus(conflicts: readonly Conflict[]): KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: conflictMessage(conflicts),
    reason: 'Conflict',
    details: { causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${managerText(c.manager)}`, field: c.path })) },
    code: 409,
  };
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${managerText(conflicts[0]!.manager)}: ${conflicts[0]!.path}`;
  const lines: string[] = [];
  let current: string | undefined;
  for (const c of conflicts) {
    if (c.manager !== current) {
      lines.push(`conflicts with ${managerText(c.manager)}:`);
      current = c.manager;
    }
    lines.push(`- ${c.path}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
