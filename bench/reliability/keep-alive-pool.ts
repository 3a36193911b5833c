/**
 * The soak's transport: a fixed pool of keep-alive TLS connections that speak just enough
 * HTTP/1.1 to send prepared request bytes and read an answer framed by Content-Length.
 *
 * Written by hand rather than using Node's https client (or undici) because a load generator is a
 * measuring instrument, and its own garbage was the tail it measured: the https client allocates a
 * request, a response, header objects and parser state for every request, and at 2,000 requests a
 * second its collector stopped the generator for 18–34 ms every few seconds, each pause landing in
 * the latency of the answers that arrived meanwhile. Here a request is one Buffer written to an
 * idle connection, and an answer a slice of what the socket read; wrk is written in C for the same
 * reason.
 */
import { connect, type TLSSocket } from 'node:tls';

export interface PoolTarget {
  host: string;
  port: number;
  /** The CA to trust (PEM). */
  ca: string;
  servername?: string;
}

export interface RawAnswer {
  status?: number;
  /** The answer's body, as read. */
  body?: Buffer;
  /** What went wrong before a whole answer: an error code, `closed`, `deadline`, or a framing problem. */
  error?: string;
}

interface Pending {
  bytes: Buffer;
  startedAt: number;
  done: (answer: RawAnswer) => void;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:[ \t]*chunked/i;
const CLOSE = /\r\nconnection:[ \t]*close/i;

/** One connection: at most one request in flight (no pipelining, as an API server's client). */
class Connection {
  private socket: TLSSocket | undefined;
  current: Pending | undefined;
  /** What has been read of the current answer; its body's length is -1 until its head is read. */
  private status = 0;
  private bodyLength = -1;
  private parts: Buffer[] = [];
  private received = 0;
  private closeAfter = false;

  constructor(
    private readonly target: PoolTarget,
    private readonly onFree: (connection: Connection) => void,
  ) {}

  send(pending: Pending): void {
    this.current = pending;
    this.bodyLength = -1;
    this.parts = [];
    this.received = 0;
    this.closeAfter = false;
    (this.socket ??= this.open()).write(pending.bytes);
  }

  /**
   * Ends the request in flight with `error` and drops the connection; it is free again at once
   * (a new socket is opened for its next request). An idle connection that fails is only dropped.
   */
  fail(error: string): void {
    const pending = this.current;
    this.current = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    if (!pending) return;
    pending.done({ error });
    this.onFree(this);
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): TLSSocket {
    const socket = connect({ host: this.target.host, port: this.target.port, ca: this.target.ca, servername: this.target.servername ?? 'localhost' });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => socket === this.socket && this.fail(err.code ?? err.message));
    socket.on('close', () => socket === this.socket && this.fail('closed'));
    return socket;
  }

  private read(chunk: Buffer): void {
    if (!this.current) {
      this.fail('bytes with no request in flight');
      return;
    }
    if (this.bodyLength < 0) {
      const bytes = this.parts.length ? Buffer.concat([...this.parts, chunk]) : chunk;
      const end = bytes.indexOf(HEADER_END);
      if (end < 0) {
        this.parts = [bytes];
        return;
      }
      // The head is small (a status line and a few headers): read as text, it is a short-lived string.
      const text = bytes.toString('latin1', 0, end);
      this.status = Number(text.slice(9, 12));
      const length = CONTENT_LENGTH.exec(text);
      if (!length || CHUNKED.test(text)) {
        this.fail('an answer without Content-Length');
        return;
      }
      this.bodyLength = Number(length[1]);
      this.closeAfter = CLOSE.test(text);
      this.parts = [];
      chunk = bytes.subarray(end + HEADER_END.length);
    }
    if (chunk.length) {
      this.parts.push(chunk);
      this.received += chunk.length;
    }
    if (this.received < this.bodyLength) return;
    if (this.received > this.bodyLength) {
      this.fail('more bytes than the answer announced');
      return;
    }
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    const pending = this.current;
    this.current = undefined;
    if (this.closeAfter) this.close();
    pending.done({ status: this.status, body });
    this.onFree(this);
  }
}

/**
 * Requests go to an idle connection, the one freed last first (as Node's agent with `lifo`
 * scheduling), or wait for one in order. A request unanswered after `deadlineMs` fails with
 * `deadline` and its connection is replaced (one sweep a tenth of a second, not a timer each).
 */
export class KeepAlivePool {
  private readonly idle: Connection[] = [];
  private readonly all: Connection[] = [];
  private readonly queue: Pending[] = [];
  private queueHead = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(target: PoolTarget, connections: number, deadlineMs: number) {
    for (let i = 0; i < connections; i++) {
      const connection = new Connection(target, (free) => this.onFree(free));
      this.all.push(connection);
      this.idle.push(connection);
    }
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const connection of this.all) if (connection.current && now - connection.current.startedAt > deadlineMs) connection.fail('deadline');
    }, 100);
  }

  /** Sends `bytes` (a whole HTTP/1.1 request) and resolves with the answer; never rejects. */
  send(bytes: Buffer): Promise<RawAnswer> {
    return new Promise((done) => {
      const pending: Pending = { bytes, startedAt: performance.now(), done };
      const connection = this.idle.pop();
      if (connection) connection.send(pending);
      else this.queue.push(pending);
    });
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const connection of this.all) connection.close();
  }

  private onFree(connection: Connection): void {
    if (this.queueHead < this.queue.length) {
      const next = this.queue[this.queueHead++]!;
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      next.startedAt = performance.now();
      connection.send(next);
    } else this.idle.push(connection);
  }
}

/** The bytes of a POST of `body` to `path`: what the pool sends. */
export function postBytes(host: string, path: string, body: Buffer, headers: Record<string, string> = {}): Buffer {
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${body.length}`, '', ''];
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]);
}
