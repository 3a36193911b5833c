#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { main } from './main.js';
import type { RunningServer } from '../server/serve.js';

const SHUTDOWN_GRACE_MS = 30_000;

// Handlers go in before anything starts, so a signal during start-up is not the default kill.
let running: RunningServer | undefined;
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  if (!running) process.exit(0);
  process.stderr.write(`${signal}: draining in-flight reviews\n`);
  setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
  void running.close().then(() => process.exit(0));
};
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));

const code = await main(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  stdin: () => readFileSync(0, 'utf8'),
  stderrIsTTY: process.stderr.isTTY === true,
  onServe: (server) => {
    running = server;
    if (stopping) {
      stopping = false;
      stop('SIGTERM');
    }
  },
});
if (code !== 0 || !running) process.exit(code);
