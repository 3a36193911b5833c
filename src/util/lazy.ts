/**
 * CommonJS dependencies loaded on first use. The Lua parser, the cron parser, luxon
 * and node-forge each cost milliseconds of start-up and megabytes of memory that
 * many runs never need (a CLI run without CronFederatedHPAs, a server whose
 * certificates already exist).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
