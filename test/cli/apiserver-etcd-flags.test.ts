/**
 * `fleetgate apiserver`'s etcd flags: what selects the etcd backend and what is refused before
 * anything listens or connects (exit 2, the flag named).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const usage = async (args: string[]) => {
  const result = await runCli(['apiserver', ...args]);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(/^fleetgate apiserver: .*\nRun 'fleetgate apiserver --help' for usage\.\n$/s);
  return result.stderr.split('\n')[0]!.replace('fleetgate apiserver: ', '');
};

describe('fleetgate apiserver --etcd-*', () => {
  it('documents every etcd flag in its help', async () => {
    const help = await runCli(['apiserver', '--help']);
    for (const flag of ['--etcd-servers', '--etcd-prefix', '--etcd-cafile', '--etcd-certfile', '--etcd-keyfile', '--etcd-compaction-interval', '--etcd-request-timeout']) {
      expect(help.stdout).toContain(flag);
    }
  });

  it('refuses etcd flags without --etcd-servers, and the embedded store flags with it', async () => {
    expect(await usage(['--etcd-prefix', '/x'])).toBe('--etcd-prefix needs --etcd-servers');
    expect(await usage(['--etcd-cafile', 'ca.crt'])).toBe('--etcd-cafile needs --etcd-servers');
    expect(await usage(['--etcd-servers', 'http://127.0.0.1:2379', '--storage', 'memory'])).toBe('--storage has no use with --etcd-servers: etcd is the storage');
    expect(await usage(['--etcd-servers', 'http://127.0.0.1:2379', '--data-dir', 'd'])).toBe('--data-dir has no use with --etcd-servers: etcd keeps the data');
  });

  it('refuses server URLs that are not scheme://host:port, or that mix schemes', async () => {
    expect(await usage(['--etcd-servers', '127.0.0.1:2379'])).toBe('--etcd-servers: "127.0.0.1:2379" must start with http:// or https://');
    expect(await usage(['--etcd-servers', 'http://127.0.0.1'])).toBe('--etcd-servers: "http://127.0.0.1" names no port (etcd\'s client port is usually 2379)');
    expect(await usage(['--etcd-servers', 'http://127.0.0.1:2379/v3'])).toBe('--etcd-servers: "http://127.0.0.1:2379/v3" must be scheme://host:port, nothing more');
    expect(await usage(['--etcd-servers', 'http://a:2379,https://b:2379'])).toBe('--etcd-servers: every URL must use the same scheme, all http:// or all https://');
    expect(await usage(['--etcd-servers', ','])).toBe('--etcd-servers needs at least one URL');
    expect(await usage(['--etcd-servers', 'http://exa mple:2379'])).toBe('--etcd-servers: "http://exa mple:2379" is not a URL (for example http://127.0.0.1:2379)');
  });

  it('refuses TLS files over http, a certificate without its key, and bad durations or prefixes', async () => {
    expect(await usage(['--etcd-servers', 'http://127.0.0.1:2379', '--etcd-cafile', 'ca.crt'])).toBe('--etcd-cafile, --etcd-certfile and --etcd-keyfile need https:// etcd servers');
    expect(await usage(['--etcd-servers', 'https://127.0.0.1:2379', '--etcd-certfile', 'c.crt'])).toBe('--etcd-certfile and --etcd-keyfile go together');
    expect(await usage(['--etcd-servers', 'http://127.0.0.1:2379', '--etcd-compaction-interval', '5'])).toBe('--etcd-compaction-interval must be a duration such as 5m or 0, got "5"');
    expect(await usage(['--etcd-servers', 'http://127.0.0.1:2379', '--etcd-request-timeout', '0s'])).toBe('--etcd-request-timeout must be a positive duration such as 5s, got "0s"');
    expect(await usage(['--etcd-servers', 'http://127.0.0.1:2379', '--etcd-prefix', 'registry'])).toBe('--etcd-prefix must start with "/", got "registry"');
  });

  it('names a TLS file it cannot read, and exits 1', async () => {
    const result = await runCli(['apiserver', '--port', '0', '--probe-port', '0', '--etcd-servers', 'https://127.0.0.1:2379', '--etcd-cafile', '/nonexistent/ca.crt']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('fleetgate apiserver: --etcd-cafile /nonexistent/ca.crt: ENOENT');
  });
});
