import { afterEach, describe, expect, it } from 'vitest';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncStderr } from '../../src/cli/log-stream.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-log-'));
  dirs.push(dir);
  return dir;
};
/** A standard error nobody reads until read() is called, and then read as fast as it is written: Node's stream over a pipe, as far as the writer can tell. */
class StuckStderr extends Writable {
  text = '';
  private waiting: Array<() => void> = [];
  private reading = false;
  override _write(chunk: Buffer, _encoding: string, taken: () => void): void {
    this.text += chunk.toString();
    if (this.reading) taken();
    else this.waiting.push(taken);
  }
  read(): void {
    this.reading = true;
    while (this.waiting.length) this.waiting.shift()!();
  }
}

const line = (i: number) => `${JSON.stringify({ level: 30, i, msg: 'denied', pad: 'x'.repeat(200) })}\n`;

describe("the servers' log stream", () => {
  it('writes every line to a file, in order, off the event loop, and settles once they are out', async () => {
    const file = join(tempDir(), 'log');
    const fd = openSync(file, 'w');
    const log = asyncStderr({ fd });
    for (let i = 0; i < 1000; i++) log.write(line(i));
    // Nothing was written synchronously: the lines are still held when write() returns.
    expect(readFileSync(file, 'utf8').length).toBeLessThan(1000 * line(0).length);
    await log.settle();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).i)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    closeSync(fd);
  });

  it('holds what a stderr that is not read cannot take, up to its bound, then drops lines and says how many once it is read again', async () => {
    const stderr = new StuckStderr();
    const maxBytes = 100 * 1024;
    // A pipe: anything but a regular file goes to Node's own stream.
    const log = asyncStderr({ fd: -1, stream: stderr, maxBytes });
    const written = 2000; // ~450 KB: the bound's 100 KiB, and the rest dropped
    for (let i = 0; i < written; i++) log.write(line(i));
    expect(stderr.writableLength).toBeLessThanOrEqual(maxBytes);
    stderr.read();
    log.write(line(written));
    await log.settle(1000);
    const lines = stderr.text.trimEnd().split('\n').map((l) => JSON.parse(l));
    // One notice, or more when one fitted in while the lines after it still did not.
    const notices = lines.filter((l) => /log lines? dropped/.test(l.msg)).map((l) => l.msg as string);
    expect(notices.length).toBeGreaterThan(0);
    for (const msg of notices) expect(msg).toMatch(new RegExp(`^\\d+ log lines? dropped: standard error was not being read, and ${maxBytes} bytes of lines already waited$`));
    const dropped = notices.reduce((sum, msg) => sum + Number(/^(\d+)/.exec(msg)![1]), 0);
    const arrived = lines.filter((l) => typeof l.i === 'number').map((l) => l.i);
    expect(dropped).toBeGreaterThan(0);
    expect(arrived.length + dropped).toBe(written + 1);
    expect(arrived).toEqual([...arrived].sort((a, b) => a - b));
    expect(arrived.at(-1)).toBe(written);
  });

  it('says nothing when nothing was dropped', async () => {
    const stderr = new StuckStderr();
    const log = asyncStderr({ fd: -1, stream: stderr, maxBytes: 100 * 1024 });
    for (let i = 0; i < 100; i++) log.write(line(i));
    stderr.read();
    await log.settle(1000);
    expect(stderr.text.trimEnd().split('\n').map((l) => JSON.parse(l).i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });
});
