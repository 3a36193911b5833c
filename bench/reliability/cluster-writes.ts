/**
 * Writers whose every write can be checked afterwards, for the API server's crash and etcd
 * harnesses. Each writer owns its keys (Clusters), so the writes to a key are sequential and the
 * state each acknowledged write left is known exactly. Every field a write sets carries the write's
 * counter `n` (a label, two annotations, one of them a pad whose length varies with n, and
 * spec.region), so an object that is not wholly one write's shows as fields that disagree.
 *
 * A write's outcome is `acked` (2xx: it happened, at the resourceVersion answered), `refused` (an
 * answer that says nothing was written: 400, 404, 409, 422…) or `unknown` (a 5xx, a reset
 * connection, no answer: it may or may not have happened). A key with an unknown write is not
 * written again until it is resolved by a read; at any time a key may therefore be in its last
 * known state or in the state its one unknown write would leave.
 */
import { cluster } from '../../test/fixtures/cluster.js';
import type { Answer, ApiClient } from './apiserver-process.js';

export const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
export const WRITER_LABEL = 'reliability.fleetgate.dev/writer';

export type WriteKind = 'create' | 'update' | 'delete';
export type KeyState = { exists: false; rv?: number } | { exists: true; n: number; rv: number };

export interface Write {
  writer: number;
  name: string;
  kind: WriteKind;
  n: number;
  sentAt: number;
  answeredAt?: number;
  outcome?: 'acked' | 'refused' | 'unknown';
  /**
   * The resourceVersion an acknowledged create or update answered. A delete is answered with a
   * Status, as kube-apiserver answers it for custom resources: its revision is learned from the log, if at all.
   */
  rv?: number;
  /** For a delete: the counter of the state it removed (what its DELETED event carries). */
  prevN?: number;
  status?: number;
  error?: string;
}

const pad = (n: number) => 'x'.repeat(100 + ((n * 37) % 1500));

/** The Cluster as write `n` leaves it (what a create sends; an update sends the fields that carry n). */
export function clusterFor(name: string, n: number, writer: number): Record<string, unknown> {
  const { status: _, ...template } = structuredClone(cluster) as Record<string, any>;
  return {
    ...template,
    metadata: { name, labels: { ...template.metadata.labels, [WRITER_LABEL]: String(writer), n: String(n) }, annotations: carriers(n) },
    spec: { ...template.spec, region: `region-${n}` },
  };
}

function carriers(n: number): Record<string, string> {
  return { 'reliability.fleetgate.dev/n': String(n), 'reliability.fleetgate.dev/pad': pad(n) };
}

function updateFor(n: number): Record<string, unknown> {
  return { metadata: { labels: { n: String(n) }, annotations: carriers(n) }, spec: { region: `region-${n}` } };
}

/** The write `n` an object holds, or a description of how it is not wholly one write's. */
export function writeOf(object: any): { n: number } | { torn: string } {
  const n = Number(object?.metadata?.labels?.n);
  const annotations = object?.metadata?.annotations ?? {};
  if (!Number.isInteger(n)) return { torn: `no counter label: ${JSON.stringify(object?.metadata?.labels)}` };
  if (annotations['reliability.fleetgate.dev/n'] !== String(n)) return { torn: `label n=${n}, annotation n=${annotations['reliability.fleetgate.dev/n']}` };
  if (annotations['reliability.fleetgate.dev/pad'] !== pad(n)) return { torn: `label n=${n}, pad of ${String(annotations['reliability.fleetgate.dev/pad']).length} characters` };
  if (object?.spec?.region !== `region-${n}`) return { torn: `label n=${n}, spec.region=${object?.spec?.region}` };
  if (object?.spec?.apiEndpoint !== cluster.spec.apiEndpoint) return { torn: `spec.apiEndpoint=${object?.spec?.apiEndpoint}` };
  return { n };
}

/** What the server answered means for the key: the state after an acknowledged write, or whether it is known not to have happened. */
function classify(write: Write, answer: Answer): void {
  write.answeredAt = performance.now();
  write.status = answer.status;
  if (answer.error) write.error = answer.error;
  const status = answer.status ?? 0;
  if (status >= 200 && status < 300) {
    write.outcome = 'acked';
    if (write.kind !== 'delete') write.rv = Number(answer.json?.metadata?.resourceVersion);
  } else if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    write.outcome = 'refused';
  } else {
    write.outcome = 'unknown';
  }
}

export class KeyModel {
  /** The last acknowledged (or read) state. */
  known: KeyState = { exists: false };
  /** A write after `known` whose outcome is not known. */
  unknown: Write | undefined;
  /** The counter of the last write sent. */
  counter = 0;
  busy = false;

  constructor(
    readonly name: string,
    readonly writer: number,
  ) {}

  /** The states the key may be in now. */
  candidates(): KeyState[] {
    const states: KeyState[] = [this.known];
    const write = this.unknown;
    if (write) states.push(write.kind === 'delete' ? { exists: false } : { exists: true, n: write.n, rv: Number.NaN });
    return states;
  }

  /**
   * Checks an observed state (absent, or an object) against the candidates; answers what is wrong,
   * or undefined. An acknowledged state must match exactly, resourceVersion included.
   */
  check(observed: any | undefined): string | undefined {
    if (observed !== undefined) {
      const whole = writeOf(observed);
      if ('torn' in whole) return `${this.name} is not wholly one write's: ${whole.torn}`;
    }
    const n = observed === undefined ? undefined : Number(observed.metadata.labels.n);
    const rv = observed === undefined ? undefined : Number(observed.metadata.resourceVersion);
    for (const state of this.candidates()) {
      if (!state.exists && observed === undefined) return undefined;
      if (state.exists && observed !== undefined && state.n === n && (Number.isNaN(state.rv) || state.rv === rv)) {
        if (Number.isNaN(state.rv) && this.known.rv !== undefined && rv! <= this.known.rv) return `${this.name} holds write ${n} at resourceVersion ${rv}, not after the acknowledged ${this.known.rv}`;
        return undefined;
      }
    }
    const seen = observed === undefined ? 'absent' : `write ${n} at resourceVersion ${rv}`;
    const expected = this.candidates().map((state) => (state.exists ? `write ${state.n}${Number.isNaN(state.rv) ? '' : ` at ${state.rv}`}` : 'absent')).join(' or ');
    return `${this.name} is ${seen}; expected ${expected}${this.unknown ? ` (the last write's outcome unknown: ${this.unknown.error ?? this.unknown.status})` : ''}`;
  }

  /** Takes an observed state as known (after check()): the unknown write is resolved. */
  settle(observed: any | undefined): void {
    this.known = observed === undefined ? { exists: false } : { exists: true, n: Number(observed.metadata.labels.n), rv: Number(observed.metadata.resourceVersion) };
    this.counter = Math.max(this.counter, this.known.exists ? this.known.n : 0);
    this.unknown = undefined;
  }

  /** Sends the next write (create when absent; else update, or delete one time in `deleteEvery`), and records its outcome. */
  async write(client: ApiClient, deleteEvery: number, random: () => number): Promise<Write> {
    const n = ++this.counter;
    const kind: WriteKind = !this.known.exists ? 'create' : random() * deleteEvery < 1 ? 'delete' : 'update';
    const write: Write = { writer: this.writer, name: this.name, kind, n, sentAt: performance.now(), ...(kind === 'delete' && this.known.exists ? { prevN: this.known.n } : {}) };
    const path = `${CLUSTERS}/${this.name}`;
    const answer =
      kind === 'create'
        ? await client.call('POST', CLUSTERS, clusterFor(this.name, n, this.writer))
        : kind === 'update'
          ? await client.call('PATCH', path, updateFor(n))
          : await client.call('DELETE', path);
    classify(write, answer);
    if (write.outcome === 'acked') {
      this.known = kind === 'delete' ? { exists: false } : { exists: true, n, rv: write.rv! };
    } else if (write.outcome === 'unknown') {
      this.unknown = write;
    }
    return write;
  }

  /** Reads the key to resolve an unknown write: the check's complaint, if any; undefined when resolved or unreadable now. */
  async resolve(client: ApiClient): Promise<{ resolved: boolean; problem?: string }> {
    const answer = await client.call('GET', `${CLUSTERS}/${this.name}`, undefined, 10_000);
    if (answer.status !== 200 && answer.status !== 404) return { resolved: false };
    const observed = answer.status === 200 ? answer.json : undefined;
    const problem = this.check(observed);
    this.settle(observed);
    return { resolved: true, ...(problem ? { problem } : {}) };
  }
}

/**
 * Acknowledged writes in real-time order: one acknowledged before another was sent must have the
 * smaller resourceVersion. Answers the violations (pairs), at most `limit` of them described.
 */
export function realTimeOrderViolations(writes: readonly Write[], limit = 5): { count: number; examples: string[] } {
  const acked = writes.filter((write) => write.outcome === 'acked' && Number.isFinite(write.rv));
  const byAnswer = [...acked].sort((a, b) => a.answeredAt! - b.answeredAt!);
  const bySend = [...acked].sort((a, b) => a.sentAt - b.sentAt);
  let count = 0;
  const examples: string[] = [];
  let highest: Write | undefined;
  let next = 0;
  for (const write of bySend) {
    while (next < byAnswer.length && byAnswer[next]!.answeredAt! < write.sentAt) {
      const done = byAnswer[next++]!;
      if (!highest || done.rv! > highest.rv!) highest = done;
    }
    if (highest && highest.rv! >= write.rv!) {
      count++;
      if (examples.length < limit) examples.push(`${write.kind} ${write.name} #${write.n} at ${write.rv}, sent after ${highest.kind} ${highest.name} #${highest.n} was acknowledged at ${highest.rv}`);
    }
  }
  return { count, examples };
}

export { seeded } from '../../test/seeded.js';
