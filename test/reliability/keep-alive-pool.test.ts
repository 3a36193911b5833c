import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certDir } from '../../bench/reliability/certs.js';
import { KeepAlivePool, postBytes, type PoolTarget } from '../../bench/reliability/keep-alive-pool.js';
import { judgeAnswer, judgeAnswerBytes, Mix } from '../../bench/reliability/review-mix.js';
import { review } from '../../src/admission/review.js';

describe('KeepAlivePool', () => {
  let server: Server;
  let target: PoolTarget;
  const sockets = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    const certs = certDir();
    server = createServer({ cert: readFileSync(join(certs.dir, 'tls.crt')), key: readFileSync(join(certs.dir, 'tls.key')) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        if (req.url === '/chunked') {
          res.write('a');
          res.end('b');
        } else if (req.url === '/split') {
          res.writeHead(200, { 'content-length': 6 });
          res.flushHeaders();
          res.write('abc');
          setTimeout(() => res.end('def'), 20);
        } else if (req.url === '/reset') req.socket.destroy();
        else if (req.url === '/silent') return;
        else if (req.url === '/close') res.writeHead(200, { connection: 'close', 'content-length': 2 }).end('ok');
        else res.writeHead(201, { 'content-length': Buffer.byteLength(`${req.url} ${body}`) }).end(`${req.url} ${body}`);
      });
    });
    server.on('secureConnection', (socket: Socket) => {
      connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    target = { host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca: certs.ca };
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });

  const post = (path: string, body = '') => postBytes(`${target.host}:${target.port}`, path, Buffer.from(body));

  it('answers every request over at most its connections, queueing the rest in order', async () => {
    const before = connections;
    const pool = new KeepAlivePool(target, 2, 5_000);
    const answers = await Promise.all(Array.from({ length: 7 }, (_, i) => pool.send(post(`/echo-${i}`, `body ${i}`))));
    pool.close();
    expect(answers.map((a) => [a.status, a.body?.toString()])).toEqual(Array.from({ length: 7 }, (_, i) => [201, `/echo-${i} body ${i}`]));
    expect(connections - before).toBe(2);
  });

  it('puts together an answer that arrives in parts', async () => {
    const pool = new KeepAlivePool(target, 1, 5_000);
    const answer = await pool.send(post('/split'));
    pool.close();
    expect([answer.status, answer.body?.toString()]).toEqual([200, 'abcdef']);
  });

  it('fails an answer it cannot frame, a reset and a silent server, and keeps serving on new connections', async () => {
    const pool = new KeepAlivePool(target, 1, 300);
    expect((await pool.send(post('/chunked'))).error).toBe('an answer without Content-Length');
    expect((await pool.send(post('/reset'))).error).toMatch(/^(closed|ECONNRESET)$/);
    const started = performance.now();
    expect((await pool.send(post('/silent'))).error).toBe('deadline');
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect((await pool.send(post('/close'))).body?.toString()).toBe('ok');
    const last = await pool.send(post('/after', 'x'));
    pool.close();
    expect([last.status, last.body?.toString()]).toEqual([201, '/after x']);
  });
});

describe('judgeAnswerBytes', () => {
  const mix = new Mix();
  const answerTo = (index: number, uid: string) => {
    const request = mix.all[index]!;
    const body = JSON.parse(mix.bodyOf(request, uid));
    return JSON.stringify(review(body, { mode: request.mode }));
  };

  it('agrees with the parsing judge on every review of the mix: right, wrong uid, wrong verdict, not 200', () => {
    expect(mix.all.some((m) => m.allowed) && mix.all.some((m) => !m.allowed)).toBe(true);
    for (const [i, request] of mix.all.entries()) {
      const text = answerTo(i, 'uid-1');
      const cases = [
        { request, uid: 'uid-1', status: 200 },
        { request, uid: 'uid-2', status: 200 },
        { request: { ...request, allowed: !request.allowed }, uid: 'uid-1', status: 200 },
        { request, uid: 'uid-1', status: 500 },
      ];
      for (const c of cases) {
        const parsed = judgeAnswer(c.request, c.uid, { status: c.status, body: text, ms: 0, hung: false, sent: true, reused: false });
        const bytes = judgeAnswerBytes(c.request, c.uid, { status: c.status, body: Buffer.from(text) });
        expect(bytes, `${request.kind} ${request.mode} ${c.uid} ${c.status}`).toEqual(parsed);
      }
    }
  });

  it('fails a transport error and a body that is no AdmissionReview', () => {
    const request = mix.all[0]!;
    expect(judgeAnswerBytes(request, 'u', { error: 'closed' })).toEqual({ ok: false, error: 'closed' });
    expect(judgeAnswerBytes(request, 'u', { status: 200, body: Buffer.from('{"uid":"u","allowed":true}') }).ok).toBe(false);
  });
});
