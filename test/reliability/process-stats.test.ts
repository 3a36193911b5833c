import { describe, expect, it } from 'vitest';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tcpPeerPorts } from '../../bench/reliability/process-stats.js';

const linux = process.platform === 'linux';

describe.skipIf(!linux)('tcpPeerPorts (reads /proc: Linux only)', () => {
  it("lists the remote port of each of a process's TCP connections, and drops a closed one", async () => {
    const accepted: Socket[] = [];
    const server = createServer((s) => accepted.push(s));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const clients = await Promise.all([0, 1].map(() => new Promise<Socket>((done) => { const c = connect(port, '127.0.0.1', () => done(c)); })));
    while (accepted.length < 2) await new Promise((r) => setTimeout(r, 5));
    try {
      const peers = tcpPeerPorts(process.pid);
      // Both ends are in this process: the accepted sockets' peers are the clients' ports, the clients' peer is the server's.
      for (const c of clients) expect(peers).toContain(c.localPort);
      expect(peers.filter((p) => p === port)).toHaveLength(2);
      // The listening socket has no peer.
      expect(peers).not.toContain(0);

      const gone = clients[0]!.localPort!;
      await new Promise<void>((done) => { accepted[0]!.once('close', () => done()); clients[0]!.destroy(); accepted[0]!.resume(); });
      const after = tcpPeerPorts(process.pid);
      expect(after).not.toContain(gone);
      expect(after).toContain(clients[1]!.localPort);
    } finally {
      for (const s of [...clients, ...accepted]) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
