/**
 * The floors for the server benchmark, both answering a fixed AdmissionReview of the same
 * size as fleetgate's answer, with the same certificate, after reading and parsing the body:
 *
 * - `bare`: Node's https server alone. Whatever fleetgate costs above this is its own.
 * - `koa`: the same through Koa, @koa/router with the registry's webhook paths and
 *   raw-body, the stack fleetgate is built on. The gap between the two floors is the
 *   framework's; the gap between this one and fleetgate is fleetgate's own code.
 * - `koa-exact`: Koa as fleetgate now uses it for a review: one middleware, an exact-path
 *   lookup, fleetgate's own body reader (src/server/body.ts), no router. fleetgate's path is
 *   leaner than the `koa` floor's, so this is the floor its own cost is measured against.
 *
 * Usage: floor.js CERT_DIR PORT ANSWER_FILE bare
 *        floor.js CERT_DIR PORT ANSWER_FILE koa|koa-exact WEBHOOK_PATH...
 *
 * The Koa stack is imported only for the Koa floor, and the paths come from the caller, so
 * each floor's memory is its stack's alone.
 */
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

const [certDir, port, answerFile, framework = 'bare', ...webhookPaths] = process.argv.slice(2) as [string, string, string, string?, ...string[]];
const answer = readFileSync(answerFile);

function bare(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
    res.end(answer);
  });
}

async function koa(): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
  const { default: Koa } = await import('koa');
  const { default: Router } = await import('@koa/router');
  const { default: getRawBody } = await import('raw-body');
  const app = new Koa();
  const router = new Router();
  const answerFixed = async (ctx: Koa.Context) => {
    JSON.parse((await getRawBody(ctx.req, { limit: 7 * 1024 * 1024, length: ctx.get('content-length') || undefined })).toString('utf8'));
    ctx.type = 'application/json';
    ctx.body = answer;
  };
  for (const path of webhookPaths) router.post(path, answerFixed);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app.callback();
}

async function koaExact(): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
  const { default: Koa } = await import('koa');
  const { readBody } = await import('../src/server/body.js');
  const app = new Koa();
  const paths = new Set(webhookPaths);
  app.use(async (ctx) => {
    if (ctx.method !== 'POST' || !paths.has(ctx.path)) return;
    const read = await readBody(ctx.req, 7 * 1024 * 1024);
    if ('body' in read) JSON.parse(read.body.toString('utf8'));
    ctx.type = 'application/json';
    ctx.body = answer;
  });
  return app.callback();
}

const handler = framework === 'koa' ? await koa() : framework === 'koa-exact' ? await koaExact() : bare;
const server = createServer({ cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')) }, handler);
server.keepAliveTimeout = 95_000;
// The port as a JSON line, for callers that pass port 0 (bench/reliability/soak.ts).
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ msg: 'floor listening', port: (server.address() as AddressInfo).port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
