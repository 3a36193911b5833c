/**
 * What a `fleetgate validate` run found, as its three report formats (text.ts, json.ts, junit.ts)
 * read it, and the pieces of wording they share.
 */
import type { ValidationResult } from '../../decode/object.js';
import { pathOf, type Warning } from '../../engine/field.js';
import type { Operation } from '../../engine/rule.js';
import type { ReadProblem } from '../../input/problems.js';
import type { Source } from '../../input/manifests.js';

/** What the report needs of one object: its place and verdict, not the object itself. */
export interface Checked {
  source: Source;
  kind: string;
  name: string;
  namespace?: string;
  /** Undefined when the object is not fleetgate's to judge (another group's kind). */
  result?: ValidationResult;
  /** The result's warnings but those the run reports once for all objects (see RunWarning). */
  warnings?: Warning[];
  /** For an object not judged: why (what fleetgate does not serve). */
  notServed?: string;
  /** The API group it was judged in. */
  group?: string;
  patch?: unknown[];
}

/**
 * A warning that says the same of every object it concerns, because of how the run was started
 * (no --context: the context rules not checked): reported once, with the number of objects.
 */
export interface RunWarning {
  message: string;
  objects: number;
  /** Objects per file, for the JUnit report (one test suite per file). */
  byFile: Map<string, number>;
}

export const CONTEXT_HINT = 'give --context FILE|DIR to check them';

/** What a run found, for the three report formats. */
export interface Report {
  checked: Checked[];
  problems: ReadProblem[];
  /** Warnings said once for the whole run. */
  once: RunWarning[];
  summary: Summary;
  strict: boolean;
  operation: Operation;
}

export interface Summary {
  /** Whether the run passed: exit status 0. */
  passed: boolean;
  files: number;
  objects: number;
  valid: number;
  invalid: number;
  /** Objects not served by fleetgate (another API group's, whatever their kind). */
  skipped: number;
  /** The warnings reported: those of objects, and once each those said for the whole run. */
  warnings: number;
  /** Problems (unreadable files, YAML errors, ...) and, with --strict, objects not served. */
  errors: number;
}

export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
export const where = (c: Checked) => `${c.source.file}:${c.source.line}`;
/** `Cluster "m1"`, or `MultiClusterService "default/web"` so a namespaced object can be found. */
export const displayName = (c: Checked) => `${c.kind} "${c.namespace ? `${c.namespace}/` : ''}${c.name}"`;

/** `file:line: Warning: Kind "name": text`, at the line of the field the warning is about. */
export const warningLine = (c: Checked, warning: Warning): string => `${c.source.file}:${c.source.lineOf(pathOf(warning))}: Warning: ${displayName(c)}: ${warning.message}`;
