#!/usr/bin/env node
import { main } from './main.js';
import { readStdin } from '../input/text.js';
import type { RunningService } from './io.js';
import { asyncStderr } from './log-stream.js';

const SHUTDOWN_GRACE_MS = 30_000;
const argv = process.argv.slice(2);

// Only the servers drain on a signal. Every other command keeps Node's default, so a
// cancelled `validate` in CI ends by its signal and never looks like a pass.
let running: RunningService | undefined;
const server = argv[0] === 'serve' || argv[0] === 'apiserver';
// A server's log lines must never make it wait for its stderr (log-stream.ts).
const serverLog = server ? asyncStderr() : undefined;
if (server) {
  // Installed before the server starts, so a signal during start-up is handled too.
  let draining = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // once() has removed this listener: re-raising gets Node's default action.
      if (!running) return void process.kill(process.pid, signal);
      if (draining) return;
      draining = true;
      setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
      void running
        .close(signal)
        .then(() => serverLog?.settle())
        .then(() => process.exit(0));
    });
  }
}

const code = await main(argv, {
  stdout: (t) => process.stdout.write(t),
  stderr: serverLog ? (t) => serverLog.write(t) : (t) => process.stderr.write(t),
  stdin: readStdin,
  stderrIsTTY: process.stderr.isTTY === true,
  onServe: (server) => {
    running = server;
  },
});
/** Resolves once everything written to `stream` so far has been handed to the OS. */
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((done) => stream.write('', () => done()));

if (code !== 0 || !running) {
  // Writes to a pipe are asynchronous: exiting at once would cut a large report at 64 KiB.
  await Promise.all([flushed(process.stdout), flushed(process.stderr), serverLog?.settle()]);
  process.exit(code);
}
