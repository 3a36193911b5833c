import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningServer } from '../../src/server/serve.js';
import { runCli } from './run-cli.js';

/** Runs `fleetgate serve` in-process until it is up, then stops it; returns what it wrote. */
async function serveOnce(args: string[], stderrIsTTY: boolean): Promise<{ code: number; lines: string[]; server?: RunningServer }> {
  let server: RunningServer | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'fleetgate-log-'));
  const { code, stderr } = await runCli(['serve', '--port', '0', '--probe-port', '0', '--bind-address', '127.0.0.1', '--dev-cert-dir', join(dir, 'certs'), ...args], {
    stderrIsTTY,
    onServe: (s) => void (server = s as RunningServer),
  });
  await server?.close();
  return { code, lines: stderr.split('\n').filter(Boolean), server };
}

// ANSI colour sequences, which the text format adds on a terminal.
const plain = (line: string) => line.replace(/\u001b\[[0-9;]*m/g, '');

describe('serve log format', { timeout: 60_000 }, () => {
  it('is text on a terminal: the first line is a sentence with the URL, the CA file and the probe URL', async () => {
    const { code, lines, server } = await serveOnce([], true);
    expect(code).toBe(0);
    const first = plain(lines[0]!);
    expect(first).toMatch(
      new RegExp(
        `^\\[\\d\\d:\\d\\d:\\d\\d\\] INFO: fleetgate webhook serving https://127\\.0\\.0\\.1:${server!.port} \\(listening on 127\\.0\\.0\\.1\\); ` +
          `CA bundle at \\S+/certs/ca\\.crt \\(generated development certificates for localhost, 127\\.0\\.0\\.1, ::1\\); ` +
          `probes on http://127\\.0\\.0\\.1:${server!.probePort}/readyz, metrics on http://127\\.0\\.0\\.1:${server!.probePort}/metrics$`,
      ),
    );
    expect(lines[0]).not.toBe(first); // coloured for the terminal
  });

  it('is JSON lines when stderr is not a terminal, and text without colours when asked for', async () => {
    const json = await serveOnce([], false);
    expect(json.code).toBe(0);
    const record = JSON.parse(json.lines[0]!);
    expect(record).toMatchObject({ level: 30, port: json.server!.port, probePort: json.server!.probePort, address: '127.0.0.1' });
    expect(record.msg).toContain(`https://127.0.0.1:${json.server!.port}`);

    const text = await serveOnce(['--log-format', 'text'], false);
    expect(text.lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: fleetgate webhook serving https:\/\/127\.0\.0\.1:\d+ /);
    expect(text.lines[0]).toBe(plain(text.lines[0]!));
    expect((await serveOnce(['--log-format', 'json'], true)).lines.every((l) => l.startsWith('{'))).toBe(true);
  });

  it('refuses a format it does not know with a usage error', async () => {
    const { code, stderr } = await runCli(['serve', '--log-format', 'yaml']);
    expect(code).toBe(2);
    expect(stderr).toContain('--log-format must be text or json, got "yaml"');
  });
});

describe('serve with certificates made for other names in the development folder', { timeout: 60_000 }, () => {
  it('refuses, says what they cover and what to do, and leaves them alone', async () => {
    // The reproduction: certificates for the cluster's name, then a flag-less serve.
    const certs = join(mkdtempSync(join(tmpdir(), 'fleetgate-other-')), 'certs');
    expect((await runCli(['certs', '--dns', 'fleetgate.karmada-system.svc', '--ip', '127.0.0.1', '--out', certs])).code).toBe(0);
    const before = readFileSync(join(certs, 'tls.crt'), 'utf8');
    let served = false;
    const { code, stderr } = await runCli(['serve', '--port', '0', '--probe-port', '0', '--dev-cert-dir', certs], { onServe: () => void (served = true) });
    expect(served).toBe(false);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `fleetgate serve: ${join(certs, 'tls.crt')} is a certificate for DNS:fleetgate.karmada-system.svc, IP Address:127.0.0.1, which does not cover localhost, ::1; ` +
        `to serve it, pass --cert-dir ${certs}; for development certificates, move ${certs} away or pass --dev-cert-dir DIR\n`,
    );
    expect(readFileSync(join(certs, 'tls.crt'), 'utf8')).toBe(before);
    expect(existsSync(join(certs, 'tls.key'))).toBe(true);
  });
});
