/**
 * V8's heap settings for the long-running webhook process. After each full collection V8 lets the
 * old generation grow to up to four times what survived before it collects again; under a steady
 * stream of reviews that headroom fills with what the young generation promoted, and a process
 * with 13 MiB live peaked at 50 MiB of old generation (150 MiB resident). A fixed growth factor
 * of 1.5 bounds that (V8 still grows by at least 8 MiB a step). This is the one heap setting a
 * running process can change: the young generation's size is fixed at start-up and can only be
 * set on the command line or in NODE_OPTIONS (`--max-semi-space-size`).
 */
import { setFlagsFromString } from 'node:v8';

export const OLD_GENERATION_GROWTH_PERCENT = 50;

/**
 * Sets the old generation's growth factor, unless the operator chose one on the command line.
 * Returns whether it did. Call it once, in the process that serves, before it takes load.
 */
export function boundOldGenerationGrowth(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  setFlags(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  return true;
}
