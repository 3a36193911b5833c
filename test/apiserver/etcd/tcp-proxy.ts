/**
 * A loopback TCP proxy in front of etcd, to cut one API server off from etcd while etcd and the
 * other clients go on (a network partition): partition() drops every connection and refuses new
 * ones until heal().
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: the proxy, for --etcd-servers. */
  readonly url: string;
  partition(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let partitioned = false;
  const server = createServer((client) => {
    if (partitioned) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    partition() {
      partitioned = true;
      for (const socket of sockets) socket.destroy();
    },
    heal() {
      partitioned = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
