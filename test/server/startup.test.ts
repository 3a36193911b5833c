import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createCA } from '../../certs/tinyca.js';
import { serve } from '../../src/server/serve.js';
import { runCli } from '../cli/run-cli.js';
import { servingCertDir } from './cert-dir.js';

const silent = pino({ level: 'silent' });

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

const accepts = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });

describe('serve start-up', () => {
  it.each([
    [['--port', 'http'], '--port must be a port number'],
    [['--probe-port', '70000'], '--probe-port must be a port number'],
    // Number() reads these as 0 (a random port), 8000 and 1000: a port is written in decimal digits.
    [['--port', ''], '--port must be a port number'],
    [['--probe-port', '0x1F40'], '--probe-port must be a port number'],
    [['--port', '1e3'], '--port must be a port number'],
    [['--tls-min-version', '1.1'], '--tls-min-version must be 1.2 or 1.3'],
    [['--log-level', 'loud'], '--log-level must be'],
    [['--context-failure-policy', 'maybe'], '--context-failure-policy must be fail or ignore'],
    [['--background-threads', 'lowest'], '--background-threads must be adaptive, low or normal, got "lowest"'],
    [['--group-domain', ''], '--group-domain "": '],
    [['--group-domain', 'Bad Domain!'], '--group-domain "Bad Domain!": '],
  ])('answers the usage error %j with exit 2', async (args, message) => {
    const { code, stderr } = await runCli(['serve', ...args]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('rejects two sources of lookups before writing any certificate', async () => {
    const devCertDir = join(mkdtempSync(join(tmpdir(), 'fleetgate-nocerts-')), 'certs');
    await expect(serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', devCertDir, contextPaths: ['x'], inCluster: true, logger: silent })).rejects.toThrow(
      /one source of lookups/,
    );
    expect(existsSync(devCertDir)).toBe(false);
  });

  it('leaves nothing listening when a port is taken', async () => {
    const webhookPort = await freePort();
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    const probePort = (taken.address() as { port: number }).port;
    try {
      await expect(serve({ port: webhookPort, probePort, bindAddress: '127.0.0.1', certDir: servingCertDir(createCA()), logger: silent })).rejects.toThrow(/EADDRINUSE/);
      expect(await accepts(webhookPort)).toBe(false);
    } finally {
      taken.close();
    }
  });
});
