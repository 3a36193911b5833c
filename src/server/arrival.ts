/**
 * When a review's time began, as the API server counts it. Its `?timeout=` runs from the moment
 * it starts the call, so when it opens a connection for the call, the TLS handshake is part of it;
 * on a kept-alive connection the request starts the clock. A busy process can take long over a
 * handshake (the CPU shared, its code still cold), and a budget counted from the request alone
 * would then let the answer arrive after the API server has given up.
 *
 * Only the handshake is counted, not the time from its end to the first request: Go's transport
 * (the API server's) keeps a connection it dialed for a request that another connection served
 * meanwhile, and sends a later request on it, maybe seconds later; counting that idle time would
 * cut the later request's budget short, or to nothing.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';

/** Accepted TCP sockets, with the time of their accept. */
const acceptedAt = new WeakMap<object, number>();
/** TLS sockets whose first request has not come yet, with the time their handshake took. */
const handshakeMs = new WeakMap<object, number>();
const startedAt = new WeakMap<IncomingMessage, number>();

/** Gives each request of `server` its start: its arrival, less the handshake for the first request on a connection. */
export function stampArrivals(server: Server | HttpsServer): void {
  server.on('connection', (socket: object) => acceptedAt.set(socket, Date.now()));
  server.on('secureConnection', (socket: object & { _parent?: object }) => {
    // The TLS socket wraps the accepted TCP socket, which Node keeps as `_parent` (not public
    // API: without it, no handshake is counted, as before).
    const accepted = socket._parent ? acceptedAt.get(socket._parent) : undefined;
    if (accepted !== undefined) handshakeMs.set(socket, Date.now() - accepted);
  });
  // Before the application's own listener, which reads it.
  server.prependListener('request', (req: IncomingMessage) => {
    const handshake = handshakeMs.get(req.socket) ?? 0;
    handshakeMs.delete(req.socket);
    startedAt.set(req, Date.now() - handshake);
  });
}

/** The start of `req`'s time (epoch ms), or now for a request of a server not stamped. */
export function arrivalOf(req: IncomingMessage): number {
  return startedAt.get(req) ?? Date.now();
}
