/**
 * The harnesses' client: one request with a deadline, its body sent whole, chunked, trickled
 * or left unfinished; and raw bytes over TLS for what no HTTP client would send. Every outcome
 * is data (status, body, error, time), never a throw, so a harness counts what it sees.
 */
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { connect, type TLSSocket } from 'node:tls';

export interface Target {
  host: string;
  port: number;
  /** The CA to trust (PEM); absent for plain HTTP. */
  ca?: string;
  servername?: string;
}

export interface Outcome {
  /** The HTTP status, when an answer came. */
  status?: number;
  body?: string;
  headers?: Record<string, string | string[] | undefined>;
  /** What went wrong before an answer, if anything (an error code, or "deadline"). */
  error?: string;
  /** Milliseconds from the call to the end of the answer (or the failure). */
  ms: number;
  /** No answer and no failure within the deadline. */
  hung: boolean;
  /** Whether the request was fully written before the outcome (an answer, an error, the deadline). */
  sent: boolean;
  /** When it was fully written (performance.now()), if it was. */
  sentAt?: number;
  /** The serial number of the server's certificate, when asked for. */
  serial?: string;
  /** Whether the connection had carried an earlier request. */
  reused: boolean;
  /** On a new connection, milliseconds from the call until it was connected (TLS handshake included). */
  connectMs?: number;
}

export interface Send {
  method?: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: Buffer;
  /** `whole` (the default), or the body in `chunks` parts `gapMs` apart. */
  pace?: { chunks: number; gapMs: number };
  /** Never finish the body (or send at most `stallAfter` bytes of it): the server must give up on it. */
  stallAfter?: number;
  deadlineMs: number;
  /** false: a connection of its own; otherwise a keep-alive agent. */
  agent?: Agent | HttpAgent | false;
  /** Record the serial number of the server's certificate. */
  peerSerial?: boolean;
}

/**
 * Runs `giveUp` once the input and output already waiting have been handled. Node runs due timers
 * before it reads sockets: after this process stalled (a busy machine can stop it for seconds), a
 * deadline would fire before the answer that came meanwhile is read, and count as a server's hang.
 */
const expire = (giveUp: () => void) => setImmediate(giveUp);

export function keepAliveAgent(target: Target, maxSockets: number): Agent | HttpAgent {
  const options = { keepAlive: true, maxSockets, scheduling: 'lifo' as const };
  return target.ca ? new Agent({ ...options, ca: target.ca, servername: target.servername ?? 'localhost' }) : new HttpAgent(options);
}

export function send(target: Target, what: Send): Promise<Outcome> {
  const started = performance.now();
  return new Promise((done) => {
    let finished = false;
    let sentAt: number | undefined;
    let reused = false;
    let serial: string | undefined;
    let connectMs: number | undefined;
    const finish = (outcome: Omit<Outcome, 'ms' | 'sent' | 'reused'>) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      done({ ...outcome, ms: performance.now() - started, sent: sentAt !== undefined, sentAt, reused, ...(serial ? { serial } : {}), ...(connectMs !== undefined ? { connectMs } : {}) });
    };
    const options: RequestOptions = {
      host: target.host,
      port: target.port,
      method: what.method ?? 'POST',
      path: what.path,
      headers: what.headers,
      agent: what.agent,
      ...(target.ca ? { ca: target.ca, servername: target.servername ?? 'localhost' } : {}),
    };
    const req = (target.ca ? httpsRequest : httpRequest)(options, (res) => {
      if (what.peerSerial) serial = (res.socket as TLSSocket).getPeerCertificate?.()?.serialNumber;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => finish({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers, hung: false }));
      res.on('error', (err) => finish({ status: res.statusCode, error: (err as NodeJS.ErrnoException).code ?? err.message, hung: false }));
    });
    req.on('socket', (socket) => {
      // A socket that already carried a request has had a 'free' event; the agent marks none, so track our own.
      reused = (socket as { fleetgateUsed?: boolean }).fleetgateUsed === true;
      (socket as { fleetgateUsed?: boolean }).fleetgateUsed = true;
      if (!reused) socket.once(target.ca ? 'secureConnect' : 'connect', () => (connectMs = performance.now() - started));
    });
    req.on('finish', () => (sentAt = performance.now()));
    req.on('error', (err) => finish({ error: (err as NodeJS.ErrnoException).code ?? err.message, hung: false }));
    const deadline = setTimeout(() => expire(() => {
      finish({ error: 'deadline', hung: true });
      req.destroy();
    }), what.deadlineMs);

    const body = what.body ?? Buffer.alloc(0);
    if (what.stallAfter !== undefined) {
      req.flushHeaders();
      if (what.stallAfter > 0) req.write(body.subarray(0, what.stallAfter));
      return;
    }
    if (!what.pace || what.pace.chunks <= 1) {
      req.end(body);
      return;
    }
    const size = Math.ceil(body.length / what.pace.chunks);
    let offset = 0;
    const next = () => {
      // Written to the end even after an early answer (a 404 needs no body): a request left
      // unfinished would hold its kept-alive connection, and so a place in the agent, until the
      // server gives up on it 30 s later.
      if (req.destroyed) return;
      const part = body.subarray(offset, offset + size);
      offset += size;
      if (offset >= body.length) req.end(part);
      else {
        req.write(part);
        setTimeout(next, what.pace!.gapMs);
      }
    };
    next();
  });
}

export interface RawOutcome {
  /** The status of the first answer, if one came. */
  status?: number;
  /** The server closed the connection. */
  closed: boolean;
  error?: string;
  hung: boolean;
  ms: number;
}

export interface RawOptions {
  /** Wait for the server to close the connection, not just for an answer. */
  stall?: boolean;
  /** After `bytes`, keep writing this a second apart until the server closes. */
  trickle?: string;
  /** Close the sending side after `bytes`: the server sees the end of what it will ever get. */
  end?: boolean;
}

/**
 * Writes `bytes` on a new TLS connection, then waits for the server to answer (or, with
 * `stall`, to close the connection), up to `deadlineMs`.
 */
export function sendRaw(target: Target, bytes: Buffer, deadlineMs: number, options: RawOptions = {}): Promise<RawOutcome> {
  const started = performance.now();
  return new Promise((done) => {
    let status: number | undefined;
    let received = '';
    let finished = false;
    const socket = connect({ host: target.host, port: target.port, ca: target.ca, servername: target.servername ?? 'localhost' });
    let trickle: NodeJS.Timeout | undefined;
    const finish = (outcome: Omit<RawOutcome, 'ms' | 'status'>) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      clearInterval(trickle);
      socket.destroy();
      done({ ...outcome, status, ms: performance.now() - started });
    };
    const deadline = setTimeout(() => expire(() => finish({ closed: false, hung: true, error: 'deadline' })), deadlineMs);
    socket.once('secureConnect', () => {
      if (options.end) socket.end(bytes);
      else socket.write(bytes);
      if (options.trickle) trickle = setInterval(() => socket.writable && socket.write(options.trickle!), 1000);
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      if (match && status === undefined) status = Number(match[1]);
      // A stalled upload is done once the server answered: with 408 it closes right after.
      if (status !== undefined && !options.stall) finish({ closed: false, hung: false });
    });
    socket.on('end', () => finish({ closed: true, hung: false }));
    socket.on('close', () => finish({ closed: true, hung: false }));
    socket.on('error', (err) => finish({ closed: true, hung: false, error: (err as NodeJS.ErrnoException).code ?? err.message }));
  });
}
