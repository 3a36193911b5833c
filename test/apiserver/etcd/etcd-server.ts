/**
 * Tests against a real etcd (test/fixtures/etcd-process.ts). Where the binary is absent they
 * skip with the reason in their title (FLEETGATE_ETCD_TESTS_REQUIRED=1, as CI sets it, makes
 * them fail instead).
 */
import { describe } from 'vitest';
import { ETCD_MISSING, etcdPath } from '../../fixtures/etcd-process.js';

export { startEtcd, type EtcdServer, type EtcdServerOptions } from '../../fixtures/etcd-process.js';

const required = process.env.FLEETGATE_ETCD_TESTS_REQUIRED === '1';

/** Why the etcd tests skip, or undefined when they run (never set when FLEETGATE_ETCD_TESTS_REQUIRED=1). */
export const etcdSkipReason = etcdPath || required ? undefined : ETCD_MISSING;

/** `describe`, or `describe.skip` with the reason (etcd's, or `otherSkipReason`) in the title and on the console. */
export function describeWithEtcd(title: string, body: () => void, otherSkipReason?: string): void {
  const reason = etcdSkipReason ?? otherSkipReason;
  if (reason) {
    console.warn(`[${title}] SKIPPED: ${reason}`);
    describe.skip(`${title} — SKIPPED: ${reason}`, body);
  } else describe(title, body);
}
