/**
 * The floor for the server benchmark: bare Node https with the same certificate,
 * reading the whole body and answering a fixed AdmissionReview of the same size as
 * fleetgate's answer. Whatever fleetgate costs above this is its own.
 */
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [certDir, port, answerFile] = process.argv.slice(2) as [string, string, string];
const answer = readFileSync(answerFile);
const server = createServer({ cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')) }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
    res.end(answer);
  });
});
server.keepAliveTimeout = 95_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('floor listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
