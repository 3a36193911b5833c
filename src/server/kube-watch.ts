/**
 * The watch requests of the control-plane caches, with the timeouts client-go's reflector gives
 * them. @kubernetes/client-node's Watch (1.4) sets none: its 30 s signal is overwritten before the
 * request is sent, and it asks the server for no `timeoutSeconds`, so a connection that the
 * network silently drops (no reset: a NAT or conntrack entry gone, a dead peer) would hold a watch
 * open forever, and its cache stale, with nothing noticing. Written here because that Watch offers
 * no way to pass a timeout or an abort signal; the informer's list-and-cache logic (ListWatch) is
 * still the client's.
 *
 * Each watch asks the server to end it after a random time between 1× and 2× `minTimeoutMs`
 * (client-go: 5 to 10 minutes), so watches are renewed and spread out; a server that ends it is
 * watched again from the last resourceVersion. If nothing ends it by then plus `graceMs`, the
 * connection is given up: the watch ends as expired and the informer lists again (a 410 is the
 * only thing that makes ListWatch relist, so that is what the expiry reports to it).
 */
import { STATUS_CODES, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { createInterface } from 'node:readline';
import { isRecord } from '../util/is.js';

export interface WatchTimeouts {
  /** The server is asked to end each watch after a random time between this and twice this. */
  minTimeoutMs: number;
  /** How long after that the connection is given up when the server has not ended the watch. */
  graceMs: number;
  /** Tests: the random source (default Math.random). */
  random?: () => number;
}

/** client-go's reflector: minWatchTimeout 5 minutes; the grace is this module's. */
export const DEFAULT_WATCH_TIMEOUTS: WatchTimeouts = { minTimeoutMs: 5 * 60_000, graceMs: 30_000 };

/** The `timeoutSeconds` of the next watch: between 1× and 2× the minimum, whole seconds, at least 1. */
export function watchTimeoutSeconds(timeouts: WatchTimeouts): number {
  const random = timeouts.random ?? Math.random;
  return Math.max(1, Math.ceil((timeouts.minTimeoutMs * (1 + random())) / 1000));
}

/** What the client's KubeConfig gives: the server to call and the HTTPS options (CA, client certificate, token, proxy agent). */
export interface WatchConfig {
  getCurrentCluster(): { server: string } | null;
  applyToHTTPSOptions(options: RequestOptions): Promise<void>;
}

/** The watch function ListWatch calls: events to `callback`, and `done` once, with the reason it ended. */
export interface WatchTransport {
  watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, object: unknown, watchObject?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

/** Why a watch ended on the client's side: the server stayed silent past its timeout. */
export class WatchExpired extends Error {
  override readonly name = 'WatchExpired';
  /** ListWatch lists again only after a 410 (see the module comment). */
  readonly statusCode = 410;
}

export function expiringWatch(config: WatchConfig, timeouts: WatchTimeouts, onExpired: (path: string, afterMs: number) => void): WatchTransport {
  return {
    async watch(path, queryParams, callback, done) {
      // ListWatch's handlers are async and their promises are dropped by whoever calls them: a
      // rejection (a relist whose items cannot be cached, an event it cannot read) would be
      // unhandled and end the process. A failed ending goes back to `done` as the error that
      // restarts the cache; that call only runs the error callbacks.
      const report = (err: unknown) => {
        Promise.resolve()
          .then(() => done(err))
          .catch((failure: unknown) => Promise.resolve().then(() => done(failure)).catch(() => undefined));
      };
      const timeoutSeconds = watchTimeoutSeconds(timeouts);
      let url: URL;
      const options: RequestOptions = {};
      try {
        const cluster = config.getCurrentCluster();
        if (!cluster) throw new Error('No currently active cluster');
        url = new URL(cluster.server + path);
        url.searchParams.set('watch', 'true');
        for (const [key, value] of Object.entries(queryParams)) if (value !== undefined) url.searchParams.set(key, String(value));
        url.searchParams.set('timeoutSeconds', String(timeoutSeconds));
        await config.applyToHTTPSOptions(options);
      } catch (error) {
        // ListWatch re-watches from inside its done handler and does not catch: a rejection here would
        // be unhandled. Reported through `done` instead, after this returns, it restarts the cache.
        setImmediate(() => report(error));
        return { abort: () => undefined };
      }

      let finished = false;
      const finish = (err: unknown) => {
        if (finished) return;
        finished = true;
        clearTimeout(deadline);
        req.destroy();
        report(err);
      };
      // An event the cache could not take ends this watch with its error, so the cache lists again;
      // one that failed after the stream had ended still restarts the cache, which may lack it.
      const failed = (err: unknown) => (finished ? report(err) : finish(err));
      const onResponse = (res: IncomingMessage) => {
        if (res.statusCode !== 200) {
          res.resume();
          finish(Object.assign(new Error(STATUS_CODES[res.statusCode ?? 500] ?? 'Internal Server Error'), { statusCode: res.statusCode }));
          return;
        }
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        lines.on('line', (line) => {
          if (finished) return;
          let event: unknown;
          try {
            event = JSON.parse(line);
          } catch {
            return; // as the client's Watch: a line that is not JSON is skipped
          }
          // So is a line that is no watch event: ListWatch would read fields of what is not an object.
          if (!isWatchEvent(event)) return;
          try {
            const handled: unknown = callback(event.type, event.object, event);
            if (handled instanceof Promise) handled.catch(failed);
          } catch (err) {
            failed(err);
          }
        });
        // The server ended it (its timeoutSeconds) or the connection closed: watch again from where it was, as the client's Watch does.
        lines.on('close', () => finish(null));
        // readline re-emits its input's errors (a cut connection: 'aborted'): unheard, one would end the process.
        lines.on('error', finish);
        res.on('error', finish);
      };
      const req = url.protocol === 'http:' ? httpRequest(url, { ...options, method: 'GET' }, onResponse) : httpsRequest(url, { ...options, method: 'GET' }, onResponse);
      req.on('error', finish);
      // As the client's Watch: TCP keepalive, so a peer that is gone (not one that is silent) is noticed sooner.
      req.on('socket', (socket) => socket.setKeepAlive(true, 30_000));
      const expiresInMs = timeoutSeconds * 1000 + timeouts.graceMs;
      const deadline = setTimeout(() => {
        if (finished) return;
        onExpired(path, expiresInMs);
        finish(new WatchExpired(`the watch of ${path} was not ended by the server within ${timeoutSeconds} s and ${timeouts.graceMs} ms: given up, to list again`));
      }, expiresInMs);
      deadline.unref();
      req.end();
      return {
        abort: () => {
          finished = true;
          clearTimeout(deadline);
          req.destroy();
        },
      };
    },
  };
}

function isWatchEvent(value: unknown): value is { type: string; object: Record<string, unknown> } {
  return isRecord(value) && typeof value.type === 'string' && isRecord(value.object);
}
