#!/usr/bin/env node
import { main } from './main.js';

const SHUTDOWN_GRACE_MS = 30_000;

const code = await main(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  onServe: (server) => {
    const stop = (signal: string) => {
      process.stderr.write(`${signal}: draining in-flight reviews\n`);
      setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
      void server.close().then(() => process.exit(0));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  },
});
if (code !== 0) process.exit(code);
