/**
 * Compaction of etcd's history, as kube-apiserver's compactor does it (apiserver
 * `storage/etcd3/compact.go`): every interval, the revision seen one interval ago is compacted,
 * so every change stays readable (lists at a revision, watches from it) for at least one
 * interval. The key `compact_rev_key` (kube's, shared by every API server on the etcd, whatever
 * its prefix) holds the revision last compacted; a transaction on its version lets only one of
 * several replicas compact per interval.
 */
import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import { describeEtcdError } from './etcd-client.js';

export const COMPACT_REVISION_KEY = 'compact_rev_key';
const key = Buffer.from(COMPACT_REVISION_KEY);

/** kube-apiserver's --etcd-compaction-interval default. */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

/**
 * One step of kube's algorithm: if `compact_rev_key` is still at `version` (nobody compacted since
 * this replica last looked), record `revision` there and compact to it. Answers the key's version
 * now and the current revision, the next step's arguments.
 */
export async function compactionStep(client: Etcd3, version: number, revision: number): Promise<{ version: number; revision: number; compacted?: number }> {
  const response = await client.kv.txn({
    compare: [{ key, target: 'Version', result: 'Equal', version }],
    success: [{ request_put: { key, value: Buffer.from(String(revision)) } }],
    failure: [{ request_range: { key } }],
  });
  const current = Number(response.header.revision);
  if (!response.succeeded) {
    const stored = response.responses[0]?.response_range?.kvs[0];
    return { version: Number(stored?.version ?? 0), revision: current };
  }
  // The first step (revision 0) only records the key: nothing was seen an interval ago.
  if (revision === 0) return { version: version + 1, revision: current };
  await client.kv.compact({ revision, physical: false });
  return { version: version + 1, revision: current, compacted: revision };
}

/** Records `revision` as the compaction point and compacts to it now (the storage's compact(), a test hook and an operator's tool). */
export async function compactNow(client: Etcd3, revision: number): Promise<void> {
  await client.kv.put({ key, value: Buffer.from(String(revision)) });
  await client.kv.compact({ revision, physical: false });
}

/** The revision `compact_rev_key` records, or undefined when nobody compacted through it. */
export async function recordedCompaction(client: Etcd3): Promise<number | undefined> {
  const response = await client.kv.range({ key });
  const value = response.kvs[0]?.value.toString('utf8');
  return value === undefined || !/^\d+$/.test(value) ? undefined : Number(value);
}

export class EtcdCompactor {
  private timer: NodeJS.Timeout | undefined;
  private version = 0;
  private revision = 0;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: Etcd3,
    private readonly intervalMs: number,
    private readonly onCompacted: (revision: number) => void,
    private readonly logger?: Logger,
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.step().finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async step(): Promise<void> {
    try {
      const next = await compactionStep(this.client, this.version, this.revision);
      this.version = next.version;
      this.revision = next.revision;
      if (next.compacted !== undefined) {
        this.logger?.info({ revision: next.compacted }, 'etcd history compacted');
        this.onCompacted(next.compacted);
      }
    } catch (error) {
      // etcd answers "compacted" when another client compacted past this revision: nothing to do.
      this.logger?.warn({ err: describeEtcdError(error) }, 'etcd compaction failed; trying again at the next interval');
    }
  }
}
