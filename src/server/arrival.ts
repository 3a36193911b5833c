/**
 * When a review's time began, as the API server counts it. Its `?timeout=` runs from the moment
 * it starts the call, so on a new connection the TCP accept and the TLS handshake are part of it;
 * on a kept-alive connection the request starts the clock. A busy process can take long over a
 * handshake (the CPU shared, its code still cold), and a budget counted from the request alone
 * would then let the answer arrive after the API server has given up.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';

const acceptedAt = new WeakMap<object, number>();
const startedAt = new WeakMap<IncomingMessage, number>();

/**
 * Notes when each connection of `server` is accepted (an https server: before its TLS handshake),
 * and gives each request its start: the accept for the first request on a connection, else its own arrival.
 */
export function stampArrivals(server: Server | HttpsServer): void {
  server.on('connection', (socket: object) => acceptedAt.set(socket, Date.now()));
  // Before the application's own listener, which reads it.
  server.prependListener('request', (req: IncomingMessage) => {
    // An https request's socket is the TLS socket; Node keeps the accepted TCP socket it wraps as
    // `_parent` (not public API: without it, the request's own arrival counts).
    const socket = req.socket as IncomingMessage['socket'] & { _parent?: object };
    const raw = socket._parent ?? socket;
    const accepted = acceptedAt.get(raw);
    acceptedAt.delete(raw);
    startedAt.set(req, accepted ?? Date.now());
  });
}

/** The start of `req`'s time (epoch ms), or now for a request of a server not stamped. */
export function arrivalOf(req: IncomingMessage): number {
  return startedAt.get(req) ?? Date.now();
}
