/** What a listening server says about itself: the addresses it accepts, and a URL that reaches it. */
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** The addresses, in words: "every IPv6 and IPv4 address", "127.0.0.1". */
  addresses: string;
  /** scheme://host:port, with a host that reaches the server from this machine. */
  url: string;
}

export function listening(address: AddressInfo, scheme: 'https' | 'http'): Listening {
  const { address: ip, port } = address;
  // An unspecified address is not a place to connect to; localhost reaches it from this machine.
  if (ip === '::') return { addresses: 'every IPv6 and IPv4 address', url: `${scheme}://localhost:${port}` };
  if (ip === '0.0.0.0') return { addresses: 'every IPv4 address', url: `${scheme}://localhost:${port}` };
  return { addresses: ip, url: `${scheme}://${ip.includes(':') ? `[${ip}]` : ip}:${port}` };
}
