import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServerProcess } from '../../bench/reliability/server-process.js';

/** A program that writes a JSON line saying it is up, a text line, then JSON lines with n = 1…count, and waits. */
const program = (count: number) =>
  `console.log(JSON.stringify({ msg: 'up', port: 1234 })); console.log('plain text'); for (let n = 1; n <= ${count}; n++) console.log(JSON.stringify({ n })); setInterval(() => {}, 1000);`;

describe('startServerProcess', () => {
  it('is ready from a parsed line, hands every line to onText as written and to onLine parsed, and keeps the last lines as written', async () => {
    const texts: string[] = [];
    const parsed: unknown[] = [];
    const server = await startServerProcess<{ port: number }>({
      args: ['-e', program(50)],
      readyWhen: (line) => (line.msg === 'up' ? { port: line.port as number } : undefined),
      onText: (text) => texts.push(text),
      onLine: (line) => parsed.push(line),
      keepLines: 5,
    });
    expect(server.ready).toEqual({ port: 1234 });
    await new Promise((done) => setTimeout(done, 200));
    expect(texts).toHaveLength(52);
    expect(texts[1]).toBe('plain text');
    expect(parsed[1]).toBe('plain text');
    expect(parsed[51]).toEqual({ n: 50 });
    expect(server.log).toEqual(['{"n":46}', '{"n":47}', '{"n":48}', '{"n":49}', '{"n":50}']);
    expect(server.logLines).toBe(52);
    await server.stop();
  });

  it('writes stderr to a file when asked, and reads only stdout', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fleetgate-test-log-')), 'server.log');
    const texts: string[] = [];
    const server = await startServerProcess<true>({
      args: ['-e', "console.error('to the file'); console.log('read'); setInterval(() => {}, 1000);"],
      readyCheck: async () => (texts.includes('read') ? true : undefined),
      onText: (text) => texts.push(text),
      stderrFile: file,
    });
    await server.stop();
    expect(texts).toEqual(['read']);
    expect(readFileSync(file, 'utf8')).toBe('to the file\n');
  });
});
