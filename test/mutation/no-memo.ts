/**
 * Mutation runs keep one test process across mutants, so a verdict a memo kept under one
 * mutant would answer for the next and hide it. Under Stryker every check runs uncached.
 */
import { vi } from 'vitest';

vi.mock('../../src/checks/memo.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/checks/memo.js')>()),
  memoizeVerdict: <R>(check: (value: string) => R) => check,
}));
