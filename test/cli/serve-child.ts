/** `fleetgate serve` as a process of its own, from dist/ (which npm test builds first), for the tests of what only a whole process shows. */
import { onTestFinished } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI (npm test builds it first). */
export const bin = fileURLToPath(new URL('../../dist/src/cli/bin.js', import.meta.url));
export const built = existsSync(bin);

export interface ServeChildOptions {
  /** A command run before node (setpriv, say). */
  wrap?: string[];
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts `fleetgate serve` on loopback with ports of the system's choosing, without the warm-up unless
 * `args` asks for it, in a fresh working directory (its development certificates go there), killed when
 * the test finishes. Its JSON log lines are collected as they come.
 */
export function startServe(args: string[], options: ServeChildOptions = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'fleetgate-serve-'));
  const warmUp = args.some((arg) => arg.startsWith('--warm-up')) ? [] : ['--warm-up=false'];
  const command = [...(options.wrap ?? []), process.execPath, bin, 'serve', '--bind-address', '127.0.0.1', '--port', '0', '--probe-port', '0', ...warmUp, ...args];
  const child = spawn(command[0]!, command.slice(1), { cwd, env: { ...process.env, ...options.env } });
  onTestFinished(() => void child.kill('SIGKILL'));
  const lines: any[] = [];
  let text = '';
  child.stderr.on('data', (chunk) => {
    text += chunk;
    const parts = text.split('\n');
    text = parts.pop()!;
    for (const part of parts) if (part.startsWith('{')) lines.push(JSON.parse(part));
  });
  /** Resolves with the first line whose message contains `words`, within `ms`. */
  const line = async (words: string, ms = 10_000) => {
    for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
      const found = lines.find((l) => typeof l.msg === 'string' && l.msg.includes(words));
      if (found) return found;
    }
    throw new Error(`no log line with "${words}" in ${ms} ms: ${lines.map((l) => l.msg).join(' | ')}`);
  };
  return { child, cwd, line, lines };
}
