/**
 * Where the servers (`serve`, `apiserver`) write their logs: standard error, without ever making a
 * review wait for it, and without holding more than a bound when nobody reads it.
 *
 * - A regular file: Node writes it synchronously, so each log line waited for the disk, and every
 *   review in flight with it (with its log on an ext4 disk, the soak's server stalled 100-200 ms in
 *   some runs, an append waiting on the journal; on tmpfs never). Lines go through sonic-boom, pino's
 *   own asynchronous destination: libuv's thread pool writes them, several at a time when several wait.
 * - A pipe (a container runtime's) or a terminal: Node's own stream, which writes a pipe as it becomes
 *   writable and keeps what it cannot take yet in memory, without a bound. (sonic-boom on a pipe
 *   would wait 100 ms after each time it is full: at most 640 KiB/s once the reader falls behind.)
 *
 * Either way, once `maxBytes` wait, lines are dropped and counted, and a line says how many once
 * what waited is out. The servers settle() it before they exit; a process that dies otherwise loses
 * what is still held (sonic-boom's synchronous flush retries a closed pipe forever, so it is not
 * called on the way out).
 */
import { fstatSync } from 'node:fs';
import type { Writable } from 'node:stream';
import sonicBoom from 'sonic-boom';

// A CommonJS module: Node's ESM loader sees only its default export (the constructor, which carries itself as SonicBoom).
const { SonicBoom } = sonicBoom;

/** What a server may hold for a standard error that takes nothing: about 20,000 denial lines. */
export const LOG_BUFFER_BYTES = 8 * 2 ** 20;

export interface AsyncStderr {
  write(text: string): void;
  /** Resolves once every line written so far is out, or after `ms`: call it before exiting. */
  settle(ms?: number): Promise<void>;
}

/** A destination that takes lines without waiting for the write, and says when all it holds is out. */
interface Sink {
  /** False when the line was dropped: `maxBytes` already wait. */
  write(text: string): boolean;
  /** Calls `then` once everything written so far is out. */
  drained(then: () => void): void;
  /** Calls `then` each time what waited is all out, after a write had to wait. */
  onDrain(then: () => void): void;
}

export interface AsyncStderrOptions {
  /** The file descriptor (default 2); a regular file is written through sonic-boom. */
  fd?: number;
  /** The stream for anything else (default process.stderr). */
  stream?: Writable;
  maxBytes?: number;
}

export function asyncStderr(options: AsyncStderrOptions = {}): AsyncStderr {
  const fd = options.fd ?? 2;
  const maxBytes = options.maxBytes ?? LOG_BUFFER_BYTES;
  const sink = isRegularFile(fd) ? fileSink(fd, maxBytes) : streamSink(options.stream ?? process.stderr, maxBytes);
  let dropped = 0;
  const notice = (count: number) =>
    `${JSON.stringify({ level: 40, time: Date.now(), msg: `${count} log line${count === 1 ? '' : 's'} dropped: standard error was not being read, and ${maxBytes} bytes of lines already waited` })}\n`;
  const say = () => {
    const count = dropped;
    dropped = 0;
    // Still full: say it all next time.
    if (!sink.write(notice(count))) dropped = count;
  };
  // Everything held is out: say what was lost, even if no line comes after.
  sink.onDrain(() => dropped && say());
  return {
    write(text) {
      if (dropped) say();
      if (!sink.write(text)) dropped++;
    },
    settle(ms = 2000) {
      return new Promise<void>((done) => {
        const timer = setTimeout(done, ms);
        sink.drained(() => {
          clearTimeout(timer);
          done();
        });
      });
    },
  };
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

function fileSink(fd: number, maxBytes: number): Sink {
  const sonic = new SonicBoom({ fd, sync: false, maxLength: maxBytes });
  let accepted = true;
  let pending = false;
  sonic.on('drop', () => (accepted = false));
  // A log must not take the server down (a full disk, say): what failed is lost.
  sonic.on('error', () => undefined);
  sonic.on('drain', () => (pending = false));
  return {
    write(text) {
      accepted = true;
      pending = true;
      sonic.write(text);
      return accepted;
    },
    drained(then) {
      if (pending) sonic.once('drain', then);
      else then();
    },
    onDrain(then) {
      sonic.on('drain', then);
    },
  };
}

function streamSink(stream: Writable, maxBytes: number): Sink {
  // EPIPE once the reader is gone: nobody is left to tell, and a log must not take the server down.
  stream.on('error', () => undefined);
  return {
    write(text) {
      if (stream.writableLength + text.length > maxBytes) return false;
      stream.write(text);
      return true;
    },
    drained(then) {
      stream.write('', () => then());
    },
    onDrain(then) {
      stream.on('drain', then);
    },
  };
}
