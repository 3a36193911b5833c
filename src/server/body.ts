/**
 * A request body, read whole up to a limit. Written here rather than taken from raw-body: a
 * review body is one or two chunks, and raw-body's per-request machinery (an async resource,
 * five listeners, error objects built with http-errors, its decoder set-up) cost more than
 * reading them; it also pulls iconv-lite's tables into memory, which a JSON body never needs.
 */
import type { IncomingMessage } from 'node:http';

export type BodyRead = { body: Buffer } | { problem: 'too-large' | 'unreadable' };

const TOO_LARGE: BodyRead = { problem: 'too-large' };
const UNREADABLE: BodyRead = { problem: 'unreadable' };

/**
 * Reads `req`'s body. A declared length above `limit` is refused before anything is read, and
 * so is a body that grows past it; a body that ends short of its declared length, or whose
 * connection fails or closes first, is unreadable. On a problem the stream is left paused, as
 * raw-body leaves it: the answer goes out and Node closes or drains the connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const header = req.headers['content-length'];
  const declared = header === undefined || header === '' ? undefined : Number(header);
  if (declared !== undefined && declared > limit) {
    req.pause();
    return Promise.resolve(TOO_LARGE);
  }
  if (!req.readable) return Promise.resolve(UNREADABLE);
  return new Promise((settle) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: BodyRead) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('close', onFailure);
      if ('problem' in outcome) req.pause();
      settle(outcome);
    };
    function onData(chunk: Buffer) {
      received += chunk.length;
      if (received > limit) finish(TOO_LARGE);
      else chunks.push(chunk);
    }
    function onEnd() {
      if (declared !== undefined && received !== declared) finish(UNREADABLE);
      else finish({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received) });
    }
    // An aborted request errors, then closes; a close before the end is a body that never came whole.
    function onFailure() {
      finish(UNREADABLE);
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
    req.on('close', onFailure);
  });
}
