/**
 * A watch stream of the API server read as client-go reads one (HTTPS, one connection of its own,
 * newline-delimited events), keeping of each event only what the harnesses check: its type, name,
 * resourceVersion, the writer's counter (label `n`) and the size of its line. A slow reader takes
 * one chunk of the socket, then waits `pauseMs` before the next, so it falls behind a fast server.
 */
import { request } from 'node:https';
import type { Target } from './client.js';

export interface SeenEvent {
  type: string;
  name: string;
  rv: number;
  /** The writer's counter (metadata.labels.n), when the object has one. */
  n?: number;
  /** Bytes of the event's line. */
  bytes: number;
  /** performance.now() when it was read. */
  at: number;
}

export interface StreamEnd {
  /** `server`: the server ended the stream (cleanly or by closing the connection); `client`: close() was called; `error`: it failed to open. */
  by: 'server' | 'client' | 'error';
  /** The connection was cut rather than ended with the chunked terminator. */
  cut: boolean;
  status?: number;
  error?: string;
  at: number;
}

export interface WatchStreamOptions {
  /** Wait this long after each chunk read (a slow client); 0 reads as fast as it can. */
  pauseMs?: number;
  onEvent?: (event: SeenEvent) => void;
}

export class WatchStream {
  readonly events: SeenEvent[] = [];
  /** Resolves when the response headers came (the status), or with 0 when the request failed. */
  readonly opened: Promise<number>;
  readonly ended: Promise<StreamEnd>;
  bytesRead = 0;
  private closing = false;
  private destroy: () => void = () => undefined;
  private pauseMs: number;
  private resume: () => void = () => undefined;

  constructor(target: Target, path: string, options: WatchStreamOptions = {}) {
    this.pauseMs = options.pauseMs ?? 0;
    let open!: (status: number) => void;
    let end!: (end: StreamEnd) => void;
    this.opened = new Promise((resolve) => (open = resolve));
    let finished = false;
    this.ended = new Promise((resolve) => (end = resolve));
    const finish = (result: Omit<StreamEnd, 'at' | 'by'> & { by?: StreamEnd['by'] }) => {
      if (finished) return;
      finished = true;
      open(result.status ?? 0);
      end({ by: this.closing ? 'client' : (result.by ?? 'server'), ...result, at: performance.now() });
    };
    const req = request({ host: target.host, port: target.port, ca: target.ca, servername: target.servername ?? 'localhost', path, agent: false }, (res) => {
      open(res.statusCode ?? 0);
      let partial = '';
      let complete = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        this.bytesRead += Buffer.byteLength(chunk);
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) if (line) this.take(line, options.onEvent);
        if (this.pauseMs) {
          res.pause();
          setTimeout(() => res.resume(), this.pauseMs).unref();
        }
      });
      this.resume = () => res.resume();
      res.on('end', () => (complete = true));
      res.on('close', () => finish({ cut: !complete, status: res.statusCode }));
    });
    req.on('error', (err) => finish({ by: this.events.length ? 'server' : 'error', cut: true, error: (err as NodeJS.ErrnoException).code ?? err.message }));
    // A paused response emits no 'close'; its request does when the connection goes.
    req.on('close', () => finish({ cut: true }));
    req.end();
    this.destroy = () => req.destroy();
  }

  /** From now on, reads as fast as it can (a slow reader taking the rest of its socket at once). */
  readFaster(): void {
    this.pauseMs = 0;
    this.resume();
  }

  close(): void {
    this.closing = true;
    this.destroy();
  }

  /** The newest resourceVersion received (0 before any event). */
  get lastRv(): number {
    return this.events.at(-1)?.rv ?? 0;
  }

  private take(line: string, onEvent?: (event: SeenEvent) => void): void {
    const parsed = JSON.parse(line) as { type: string; object: { metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> } } };
    const metadata = parsed.object.metadata ?? {};
    const n = metadata.labels?.n;
    const event: SeenEvent = {
      type: parsed.type,
      name: metadata.name ?? '',
      rv: Number(metadata.resourceVersion ?? Number.NaN),
      ...(n !== undefined ? { n: Number(n) } : {}),
      bytes: Buffer.byteLength(line) + 1,
      at: performance.now(),
    };
    this.events.push(event);
    onEvent?.(event);
  }
}

/**
 * What one watcher saw against what happened: events it missed, events it saw that did not happen
 * (or saw twice), and events out of resourceVersion order. `keyOf` names an event as the harness
 * tells events apart.
 */
export function tallyEvents(events: readonly SeenEvent[], happened: ReadonlySet<string>, keyOf: (event: SeenEvent) => string): { lost: number; extra: number; reordered: number } {
  const got = new Set(events.map(keyOf));
  let lost = 0;
  for (const key of happened) if (!got.has(key)) lost++;
  const extra = events.filter((event) => !happened.has(keyOf(event))).length + (events.length - got.size);
  let reordered = 0;
  for (let i = 1; i < events.length; i++) if (!(events[i]!.rv > events[i - 1]!.rv)) reordered++;
  return { lost, extra, reordered };
}
