import { describe, expect, it } from 'vitest';
import { hostPortError, splitHostPort } from '../../src/checks/endpoint.js';

/** The spec's "hostname, hostname:port, IP or IP:port", and the host of an https URL. */
describe('hostPortError', () => {
  const valid: [string, string][] = [
    ['a name', 'example.com'],
    ['a name and port', 'example.com:6443'],
    ['an IPv4 address and port', '10.0.0.1:6443'],
    ['a bracketed IPv6 address', '[::1]'],
    ['a bracketed IPv6 address and port', '[fd00::1]:6443'],
    ['the lowest port', 'example.com:1'],
    ['the highest port', 'example.com:65535'],
    ['the highest port after IPv6', '[::1]:65535'],
    ['an empty port (Go and RFC 3986 allow it)', 'example.com:'],
  ];
  it.each(valid)('accepts %s: %j', (_name, hostPort) => expect(hostPortError(hostPort)).toBeUndefined());

  const invalid: [string, string][] = [
    ['port 0', 'example.com:0'],
    ['port 65536', 'example.com:65536'],
    ['port 0 after IPv6', '[::1]:0'],
    ['port 65536 after IPv6', '[fd00::1]:65536'],
    ['a signed port', 'example.com:+80'],
    ['a port with an exponent', 'example.com:8e3'],
    ['a hexadecimal port', 'example.com:0x50'],
    ['IPv6 without its opening bracket', 'x::1]:443'],
    ['IPv6 without its closing bracket', '[fe80::1:443'],
    ['no host', ':443'],
    ['text after the bracketed address', '[::1]junk'],
    ['a port after the bracketed address without its colon', '[::1]443'],
  ];
  it.each(invalid)('rejects %s: %j', (_name, hostPort) => expect(hostPortError(hostPort)).toEqual(expect.any(String)));

  it('says what is wrong', () => {
    expect(hostPortError('example.com:0')).toBe('port 0 must be between 1 and 65535, inclusive');
    expect(hostPortError('[::1]:65536')).toBe('port 65536 must be between 1 and 65535, inclusive');
    expect(hostPortError(':443')).toBe('host "" is neither a DNS name nor an IP address');
    expect(hostPortError('x::1]:443')).toBe('host "x::1]" is neither a DNS name nor an IP address');
    expect(hostPortError('[::1]junk')).toBe('only ":<port>" may follow the bracketed address "[::1]"');
  });
});

describe('splitHostPort', () => {
  it.each([
    ['example.com', { host: 'example.com', bracketed: false, port: undefined }],
    ['example.com:6443', { host: 'example.com', bracketed: false, port: '6443' }],
    ['example.com:', { host: 'example.com', bracketed: false, port: '' }],
    [':443', { host: '', bracketed: false, port: '443' }],
    ['[::1]', { host: '::1', bracketed: true, port: undefined }],
    ['[::1]:443', { host: '::1', bracketed: true, port: '443' }],
    ['[::1]:', { host: '::1', bracketed: true, port: '' }],
  ])('splits %j', (hostPort, want) => expect(splitHostPort(hostPort)).toEqual(want));
});
