import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { collectGarbageThrough, INSPECTOR_ARG, inspectorUrlIn } from '../../bench/reliability/inspector.js';

let child: ChildProcess | undefined;
afterEach(() => void child?.kill('SIGKILL'));

/**
 * A Node process with its inspector on, holding some 40 MiB of garbage in its old generation (kept
 * alive through two scavenges, then dropped), printing its heap in use every 50 ms.
 */
function processWithGarbage(): Promise<{ url: string; heapMiB: () => number }> {
  const program = `
    let kept = Array.from({ length: 400000 }, (_, i) => ({ i, s: 'x' + i }));
    setTimeout(() => { kept = undefined; setInterval(() => console.log(process.memoryUsage().heapUsed / 2 ** 20), 50); }, 100);`;
  child = spawn(process.execPath, [INSPECTOR_ARG, '-e', program], { stdio: ['ignore', 'pipe', 'pipe'] });
  let heap = Number.NaN;
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (heap = Number(text.trim().split('\n').at(-1))));
  return new Promise((resolve, reject) => {
    child!.stderr!.setEncoding('utf8').on('data', (text: string) => {
      const url = inspectorUrlIn(text);
      if (url) resolve({ url, heapMiB: () => heap });
    });
    child!.once('exit', () => reject(new Error('the process exited before its inspector listened')));
  });
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
};

describe('a full collection asked for through the inspector', () => {
  it("finds the inspector's address in Node's line, and nothing in other lines", () => {
    expect(inspectorUrlIn('Debugger listening on ws://127.0.0.1:40123/0f1e-22\n')).toBe('ws://127.0.0.1:40123/0f1e-22');
    expect(inspectorUrlIn('For help, see: https://nodejs.org/en/docs/inspector')).toBeUndefined();
  });

  it("frees the other process's garbage", async () => {
    const { url, heapMiB } = await processWithGarbage();
    await until(() => heapMiB() > 0);
    const before = heapMiB();
    expect(before).toBeGreaterThan(25);
    await collectGarbageThrough(url);
    await new Promise((r) => setTimeout(r, 150));
    expect(heapMiB()).toBeLessThan(before / 2);
  });

  it('says why when nothing answers at the address', async () => {
    await expect(collectGarbageThrough('ws://127.0.0.1:1/none', 2000)).rejects.toThrow(/ECONNREFUSED/);
  });
});
