/**
 * A host with an optional port, as URL authorities and the spec's endpoints write it: `name`,
 * `name:port`, `IP`, `IP:port`, `[IPv6]:port`. The host must be a DNS name or an IP address, the
 * port 1..65535. Go's URL parser takes any port digits and most punctuation in a host; these
 * are the spec's rules for the URL fields that name one ("hostname, hostname:port, IP or IP:port";
 * an https URL to a host).
 */
import { isIP } from 'node:net';
import { dns1123Subdomain } from './names.js';
import { memoizeVerdict } from './memo.js';
import { shortText } from '../engine/field.js';

export interface HostPort {
  /** Without brackets. */
  host: string;
  bracketed: boolean;
  /** The digits after the colon; '' for `host:`, undefined without a colon. */
  port: string | undefined;
}

export function splitHostPort(hostPort: string): HostPort {
  if (hostPort.startsWith('[')) {
    const close = hostPort.lastIndexOf(']');
    if (close >= 0) {
      const rest = hostPort.slice(close + 1);
      return { host: hostPort.slice(1, close), bracketed: true, port: rest.startsWith(':') ? rest.slice(1) : undefined };
    }
  }
  const colon = hostPort.lastIndexOf(':');
  return colon < 0 ? { host: hostPort, bracketed: false, port: undefined } : { host: hostPort.slice(0, colon), bracketed: false, port: hostPort.slice(colon + 1) };
}

/** Why `hostPort` is not a DNS name or IP address with an optional port 1..65535, or undefined. */
export const hostPortError = memoizeVerdict((hostPort: string): string | undefined => {
  const { host, bracketed, port } = splitHostPort(hostPort);
  if (bracketed ? isIP(host) !== 6 : !isHostName(host) && isIP(host) !== 4) return `host "${shortText(host)}" is neither a DNS name nor an IP address`;
  // splitHostPort finds no port in `[::1]junk`; only a colon may follow the bracket.
  if (bracketed && port === undefined && !hostPort.endsWith(']')) return `only ":<port>" may follow the bracketed address "[${shortText(host)}]"`;
  if (port !== undefined && port !== '' && !(/^\d+$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `port ${shortText(port)} must be between 1 and 65535, inclusive`;
  }
  return undefined;
});

/**
 * A DNS-1123 subdomain in any case, with an optional root dot. RFC 1123 2.1: the last label is
 * never all digits, so `10.0.0.256` is a mistyped IP address, not a name.
 */
function isHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return dns1123Subdomain(name) === undefined && !/(?:^|\.)\d+$/.test(name);
}
