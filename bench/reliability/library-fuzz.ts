/**
 * The library fuzzer: each input through validate() (as a CREATE or UPDATE, plain or strict),
 * applyDefaults() and review() in both modes, in this thread. It counts what must never happen:
 * an exception out of any of them, a review answered with an internal error (code 500) or not
 * as an AdmissionReview, a change to Object.prototype or Array.prototype, inputs slower than
 * the deadline, and a cause message or warning longer than MAX_TEXT (a value written whole).
 * Runs synchronously; `onInput` lets a watchdog see where it is.
 */
import { validate, applyDefaults, review, type Operation, type ValidationResult } from '../../src/index.js';
import { buildReview, describeRecipe, InputStream, reviewRecipe, sweep, type ReviewRecipe } from './recipes.js';

/**
 * The longest cause message or warning a result may hold: a value is shown cut to 256 characters
 * (6 each at most once escaped), and the API server keeps 4,096 characters of warnings in all.
 */
export const MAX_TEXT = 4096;

export interface Failure {
  index: number;
  /** Which call failed, and how. */
  what: string;
  message: string;
  recipe: string;
}

export interface LibraryFigures {
  inputs: number;
  /** Inputs that were cases of the systematic sweep (wrong values at every path). */
  sweepCases: number;
  calls: number;
  exceptions: number;
  /** Reviews answered with code 500, or with something that is not an AdmissionReview response. */
  internalErrors: number;
  prototypePollution: number;
  /** Inputs that took longer than the deadline (in a worker, also those the watchdog gave up on). */
  hangs: number;
  /** Inputs whose validate() result held a cause message or warning longer than MAX_TEXT. */
  longTexts: number;
  slowest: { index: number; ms: number; recipe: string }[];
  failures: Failure[];
}

export interface LibraryFuzzOptions {
  seed: number;
  from: number;
  to: number;
  /** An input taking longer than this counts as a hang. */
  deadlineMs: number;
  /** Called before each input (a watchdog records where the run is). */
  onInput?: (index: number) => void;
  /** How many failures to keep with their recipe. */
  keepFailures?: number;
}

export function emptyLibraryFigures(): LibraryFigures {
  return { inputs: 0, sweepCases: 0, calls: 0, exceptions: 0, internalErrors: 0, prototypePollution: 0, hangs: 0, longTexts: 0, slowest: [], failures: [] };
}

/** The stream of library inputs for a seed: recipes may carry values JSON cannot (undefined, NaN, cycles). */
export const libraryInputs = (seed: number) => new InputStream<ReviewRecipe>(reviewRecipe(true), seed, sweep());

const prototypeShape = () => `${Object.getOwnPropertyNames(Object.prototype).join()}|${Object.getOwnPropertyNames(Array.prototype).join()}`;

export function fuzzLibrary(options: LibraryFuzzOptions, inputs = libraryInputs(options.seed)): LibraryFigures {
  const figures = emptyLibraryFigures();
  const keep = options.keepFailures ?? 20;
  const shape = prototypeShape();
  let polluted = false;
  const fail = (index: number, recipe: ReviewRecipe, what: string, message: string) => {
    if (figures.failures.length < keep) figures.failures.push({ index, what, message: message.slice(0, 300), recipe: describeRecipe(recipe) });
  };

  for (let index = options.from; index < options.to; index++) {
    options.onInput?.(index);
    const recipe = inputs.at(index);
    if (inputs.sweepCase(index) !== undefined) figures.sweepCases++;
    const built = buildReview(recipe, `fuzz-${index}`);
    const operation = built.operation as Operation;
    const started = performance.now();
    const call = (what: string, fn: () => unknown) => {
      figures.calls++;
      try {
        const out = fn();
        if (out instanceof Promise) throw new Error('answered with a Promise although no lookups were given');
        return out;
      } catch (err) {
        figures.exceptions++;
        fail(index, recipe, `${what} threw`, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        return undefined;
      }
    };
    const result = call('validate()', () => validate(built.object, { operation, oldObject: built.oldObject, subResource: built.subResource, strict: recipe.strict })) as ValidationResult | undefined;
    const long = result && [...result.causes.map((c) => c.message), ...result.warnings].find((text) => text.length > MAX_TEXT);
    if (long !== undefined) {
      figures.longTexts++;
      fail(index, recipe, 'validate() wrote a long text', `${long.length} characters: ${long.slice(0, 200)}`);
    }
    call('applyDefaults()', () => applyDefaults(built.object, { operation, subResource: built.subResource }));
    for (const mode of ['validate', 'mutate'] as const) {
      const answer = call(`review() in ${mode} mode`, () => review(built.review, { mode })) as { kind?: unknown; response?: { allowed?: unknown; uid?: unknown; status?: { code?: number; message?: string } } } | undefined;
      if (answer === undefined) continue;
      const response = answer.response;
      if (answer.kind !== 'AdmissionReview' || typeof response?.allowed !== 'boolean' || typeof response.uid !== 'string') {
        figures.internalErrors++;
        fail(index, recipe, `review() in ${mode} mode`, `not an AdmissionReview answer: ${describeRecipe(answer, 200)}`);
      } else if ((response.status?.code ?? 0) >= 500) {
        figures.internalErrors++;
        fail(index, recipe, `review() in ${mode} mode answered ${response.status?.code}`, response.status?.message ?? '');
      }
    }
    const ms = performance.now() - started;
    if (ms > options.deadlineMs) {
      figures.hangs++;
      fail(index, recipe, 'slower than the deadline', `${ms.toFixed(0)} ms`);
    }
    if (figures.slowest.length < 3 || ms > figures.slowest.at(-1)!.ms) {
      figures.slowest.push({ index, ms, recipe: describeRecipe(recipe, 200) });
      figures.slowest.sort((a, b) => b.ms - a.ms).splice(3);
    }
    if (!polluted && prototypeShape() !== shape) {
      polluted = true;
      figures.prototypePollution++;
      fail(index, recipe, 'prototype pollution', `Object.prototype or Array.prototype changed: ${prototypeShape()}`);
    }
    figures.inputs++;
  }
  return figures;
}

/** Adds `b` into `a` (runs split across workers). */
export function mergeLibraryFigures(a: LibraryFigures, b: LibraryFigures, keepFailures = 20): LibraryFigures {
  return {
    inputs: a.inputs + b.inputs,
    sweepCases: a.sweepCases + b.sweepCases,
    calls: a.calls + b.calls,
    exceptions: a.exceptions + b.exceptions,
    internalErrors: a.internalErrors + b.internalErrors,
    prototypePollution: a.prototypePollution + b.prototypePollution,
    hangs: a.hangs + b.hangs,
    longTexts: a.longTexts + b.longTexts,
    slowest: [...a.slowest, ...b.slowest].sort((x, y) => y.ms - x.ms).slice(0, 3),
    failures: [...a.failures, ...b.failures].slice(0, keepFailures),
  };
}
