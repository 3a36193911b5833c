/**
 * Which requests the warm-up sent (warm-up.ts). They run through the webhook's own app, so its very
 * closures and objects are the ones V8 compiles, but the app never counts them in its metrics nor logs
 * them. A WeakSet, not a mark on the request: a property added to only the warm-up's requests would
 * give them another hidden class than the API server's, and the code would be compiled for that one.
 */
import type { IncomingMessage } from 'node:http';

const sent = new WeakSet<IncomingMessage>();

/** Marks `req` as the warm-up's (call it before the app sees the request). */
export function markWarmUp(req: IncomingMessage): void {
  sent.add(req);
}

/** True for a request the warm-up sent. */
export function isWarmUp(req: IncomingMessage): boolean {
  return sent.has(req);
}
