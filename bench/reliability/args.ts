/** Command-line flags of the reliability harnesses: `--name value`, numbers checked. */
import { parseArgs } from 'node:util';

export function numberFlags<T extends Record<string, number>>(defaults: T, extra: Record<string, 'string' | 'boolean'> = {}): { numbers: T; strings: Record<string, string | boolean | undefined> } {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of Object.keys(defaults)) options[name] = { type: 'string' };
  for (const [name, type] of Object.entries(extra)) options[name] = { type };
  const { values } = parseArgs({ args: process.argv.slice(2), options, strict: true });
  const numbers = { ...defaults };
  for (const name of Object.keys(defaults)) {
    const given = values[name];
    if (given === undefined) continue;
    const n = Number(given);
    if (typeof given !== 'string' || given.trim() === '' || !Number.isFinite(n)) throw new Error(`--${name} must be a number, got "${String(given)}"`);
    (numbers as Record<string, number>)[name] = n;
  }
  const strings: Record<string, string | boolean | undefined> = {};
  for (const name of Object.keys(extra)) strings[name] = values[name] as string | boolean | undefined;
  return { numbers, strings };
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A random 31-bit seed, for runs not given one. */
export const freshSeed = () => Math.floor(Math.random() * 0x7fffffff);
