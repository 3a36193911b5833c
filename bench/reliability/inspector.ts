/**
 * A full garbage collection in another Node process, asked for through its inspector: memory read
 * after it counts what the process keeps, not what V8 has not collected yet. An idle server does not
 * collect on its own schedule (V8 runs a full collection when the heap grows, or its memory reducer
 * decides to), so its heap after a load can hold tens of MiB of garbage for minutes; that is
 * no leak, and a reading that includes it cannot tell one from none.
 *
 * The process must run with INSPECTOR_ARG (loopback, a port of the system's choosing); its stderr
 * says where the inspector listens (inspectorUrlIn). Only harnesses start servers so.
 */
import WebSocket from 'ws';

export const INSPECTOR_ARG = '--inspect=127.0.0.1:0';

/** The inspector's WebSocket address in Node's "Debugger listening on ws://…" line, if this is that line. */
export function inspectorUrlIn(line: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
}

/**
 * Asks the process at `url` for a full collection (`HeapProfiler.collectGarbage`, V8's
 * low-memory notification: collections until nothing more is freed) and resolves once it is done.
 */
export function collectGarbageThrough(url: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => finish(new Error(`the inspector at ${url} did not collect within ${timeoutMs} ms`)), timeoutMs);
    const finish = (err?: Error) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      if (err) reject(err);
      else resolve();
    };
    socket.on('error', (err) => finish(err));
    socket.on('open', () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
    socket.on('message', (data) => {
      const answer = JSON.parse(String(data)) as { id?: number; error?: { message: string } };
      if (answer.id !== 1) return;
      finish(answer.error ? new Error(`the inspector refused to collect: ${answer.error.message}`) : undefined);
    });
  });
}
