import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody, type BodyRead } from '../../src/server/body.js';
import { createApp } from '../../src/server/app.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? (server.close(() => done()), server.closeAllConnections()) : done())));

/** A plain-HTTP server that hands each request's body read to `seen`, and answers 204 once read. */
async function reader(limit: number, seen: (read: BodyRead) => void): Promise<number> {
  server = createServer((req: IncomingMessage, res) => {
    void readBody(req, limit).then((read) => {
      seen(read);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

/** Sends `parts` a few milliseconds apart, with a Content-Length unless `chunked`. */
function send(port: number, path: string, parts: (string | Buffer)[], options: { chunked?: boolean; abortAfter?: number; type?: string } = {}): Promise<{ status: number; text: string } | 'aborted'> {
  const total = parts.reduce((n, p) => n + Buffer.byteLength(p), 0);
  return new Promise((done, fail) => {
    const headers: Record<string, string | number> = { 'content-type': options.type ?? 'application/json', ...(options.chunked ? {} : { 'content-length': total }) };
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (err) => (options.abortAfter !== undefined ? done('aborted') : fail(err)));
    let i = 0;
    const next = () => {
      if (options.abortAfter !== undefined && i === options.abortAfter) return void req.destroy();
      if (i === parts.length) return void req.end();
      req.write(parts[i++]);
      setTimeout(next, 5);
    };
    next();
  });
}

describe('readBody', () => {
  it('reads a body that arrives in pieces, byte for byte, multi-byte characters split across them', async () => {
    const reads: BodyRead[] = [];
    const port = await reader(1024, (r) => reads.push(r));
    const euro = Buffer.from('{"a":"€"}');
    await send(port, '/', [euro.subarray(0, 7), euro.subarray(7)]);
    await send(port, '/', ['{"a":', '"b"', '}']);
    expect(reads.slice(0, 2).map((r) => ('body' in r ? r.body.toString('utf8') : r.problem))).toEqual(['{"a":"€"}', '{"a":"b"}']);
    await send(port, '/', []);
    expect(reads[2]).toEqual({ body: Buffer.alloc(0) });
  });

  it('refuses a declared length above the limit before reading, and a chunked body once it grows past it', async () => {
    const reads: BodyRead[] = [];
    const port = await reader(10, (r) => reads.push(r));
    await send(port, '/', ['01234567890']);
    await send(port, '/', ['0123456', '7890'], { chunked: true });
    await send(port, '/', ['0123456', '789'], { chunked: true });
    expect(reads.map((r) => ('body' in r ? r.body.toString() : r.problem))).toEqual(['too-large', 'too-large', '0123456789']);
  });

  it('answers unreadable, not never, for a body whose sender goes away half-way', async () => {
    const reads: BodyRead[] = [];
    const port = await reader(1024, (r) => reads.push(r));
    expect(await send(port, '/', ['{"a":', '"b"}'], { abortAfter: 1 })).toBe('aborted');
    for (let i = 0; i < 200 && reads.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reads).toEqual([{ problem: 'unreadable' }]);
  });
});

describe('the webhook body limit', () => {
  it('answers 413 for a chunked body that grows past the limit, and keeps serving', async () => {
    server = createServer(createApp({ maxBodyBytes: 64 }).callback());
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    const port = (server.address() as AddressInfo).port;
    const big = await send(port, '/validate', ['{"apiVersion":"admission.k8s.io/v1",', '"kind":"AdmissionReview","request":{"uid":"u"}}'], { chunked: true });
    expect(big).toMatchObject({ status: 413 });
    expect(JSON.parse((big as { text: string }).text)).toMatchObject({ kind: 'Status', code: 413, message: 'request entity is too large; limit is 64 bytes' });
    const small = await send(port, '/validate', ['{"kind":"Pod"}']);
    expect(small).toMatchObject({ status: 400 });
    expect((small as { text: string }).text).toContain('not an AdmissionReview');
  });
});
