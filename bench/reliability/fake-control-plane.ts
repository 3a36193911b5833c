/**
 * Just enough of a Kubernetes API server for `fleetgate serve --kubeconfig`: list and watch of
 * Services and ResourceInterpreterCustomizations over HTTPS, and four behaviours to switch
 * between while the webhook runs: `answer`; `hang` (connections are taken, nothing is ever
 * answered, open watches stall, and resume with what they missed once it answers again);
 * `blackhole` (as hang, but the open watches are lost for good, as when the network silently
 * drops a connection: never written to, never ended, never closed, even once it answers again);
 * `refuse` (nothing listens: connections are refused, open ones are cut). A kubeconfig pointing at it is written to a temporary folder.
 * As kube-apiserver, it ends a watch after its `timeoutSeconds`, and records every request.
 *
 * Like kube-apiserver's watch cache, it keeps every change with its resourceVersion, and a watch
 * from an older resourceVersion gets the changes since (a client that reconnects after an outage
 * resumes its watch rather than listing again, and must learn what changed meanwhile).
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, createServingCert } from '../../certs/tinyca.js';

export type PlaneMode = 'answer' | 'hang' | 'blackhole' | 'refuse';
export type Collection = 'services' | 'resourceinterpretercustomizations';

type Item = Record<string, unknown> & { metadata: Record<string, unknown> };
interface Change {
  rv: number;
  collection: Collection;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Item;
}

const keyOf = (item: Item) => `${String(item.metadata.namespace ?? '')}/${String(item.metadata.name)}`;

export class FakeControlPlane {
  private readonly items: Record<Collection, Map<string, Item>> = { services: new Map(), resourceinterpretercustomizations: new Map() };
  private readonly history: Change[] = [];
  /** Requests seen, by mode at the time. */
  readonly seen: Record<PlaneMode, number> = { answer: 0, hang: 0, blackhole: 0, refuse: 0 };
  /** Every request, in order: its path, query and whether it was a watch. */
  readonly requests: { path: string; query: URLSearchParams; watch: boolean }[] = [];
  private mode: PlaneMode = 'answer';
  private server!: Server;
  private port = 0;
  private readonly sockets = new Set<Socket>();
  /** Open watches, each with the last resourceVersion it was sent. */
  private watches: { collection: Collection; res: ServerResponse; sent: number; timer?: NodeJS.Timeout }[] = [];
  private resourceVersion = 1;

  /** Makes `items` the whole collection, as changes (each with its resourceVersion) that open watches receive at once. */
  set(collection: Collection, items: Record<string, unknown>[]): void {
    const current = this.items[collection];
    const next = new Map(items.map((item) => [keyOf(item as Item), item as Item]));
    const changes: Change[] = [];
    for (const [key, old] of current) if (!next.has(key)) changes.push({ rv: 0, collection, type: 'DELETED', object: old });
    for (const [key, item] of next) if (JSON.stringify(current.get(key)) !== JSON.stringify(item)) changes.push({ rv: 0, collection, type: current.has(key) ? 'MODIFIED' : 'ADDED', object: item });
    for (const change of changes) {
      change.rv = ++this.resourceVersion;
      change.object = { ...change.object, metadata: { ...change.object.metadata, resourceVersion: String(change.rv) } };
      if (change.type === 'DELETED') current.delete(keyOf(change.object));
      else current.set(keyOf(change.object), change.object);
      this.history.push(change);
    }
    if (this.mode === 'answer') this.flush();
  }

  /** Sends every open watch the changes it has not been sent. */
  private flush(): void {
    for (const w of this.watches) {
      for (const change of this.history) {
        if (change.collection !== w.collection || change.rv <= w.sent) continue;
        w.res.write(`${JSON.stringify({ type: change.type, object: change.object })}\n`);
        w.sent = change.rv;
      }
    }
  }

  /** Starts listening (in `mode`; `refuse` listens on nothing but keeps the port) and returns the kubeconfig's path. */
  async start(mode: PlaneMode = 'answer'): Promise<string> {
    const ca = createCA('fake control plane CA');
    const serving = createServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    this.server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => this.handle(req, res));
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await this.listen();
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-fake-plane-'));
    const file = join(dir, 'kubeconfig');
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: cp\n  cluster:\n    server: https://127.0.0.1:${this.port}\n    certificate-authority-data: ${Buffer.from(ca.certPem).toString('base64')}\nusers:\n- name: u\n  user:\n    token: harness\ncontexts:\n- name: c\n  context:\n    cluster: cp\n    user: u\ncurrent-context: c\n`,
    );
    await this.setMode(mode);
    return file;
  }

  get current(): PlaneMode {
    return this.mode;
  }

  async setMode(mode: PlaneMode): Promise<void> {
    if (mode === this.mode) return;
    if (mode === 'blackhole') {
      // The open watches are lost: kept open, never written to nor ended.
      for (const watch of this.watches) clearTimeout(watch.timer);
      this.watches = [];
    }
    if (mode === 'refuse') {
      this.mode = mode;
      const closed = new Promise<void>((done) => this.server.close(() => done()));
      for (const socket of this.sockets) socket.destroy();
      this.watches = [];
      await closed;
      return;
    }
    if (this.mode === 'refuse') await this.listen();
    this.mode = mode;
    // A control plane that hung and recovers sends its stalled watches what they missed.
    if (mode === 'answer') this.flush();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((done) => this.server.close(() => done()));
  }

  private listen(): Promise<void> {
    return new Promise((done, fail) => {
      this.server.once('error', fail);
      // The same port every time: the kubeconfig names it.
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', fail);
        this.port = (this.server.address() as AddressInfo).port;
        done();
      });
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.seen[this.mode]++;
    // A client that gives up on a request never answered resets it ('aborted'): expected here, not a failure.
    req.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'https://x');
    this.requests.push({ path: url.pathname, query: url.searchParams, watch: url.searchParams.get('watch') === 'true' });
    if (this.mode !== 'answer') return; // hang, blackhole: taken, never answered
    const collection: Collection | undefined =
      url.pathname === '/api/v1/services' ? 'services' : url.pathname.endsWith('/resourceinterpretercustomizations') ? 'resourceinterpretercustomizations' : undefined;
    if (!collection) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.searchParams.get('watch') === 'true') {
      // What changed since the version the client last saw is sent first.
      const watch: (typeof this.watches)[number] = { collection, res, sent: Number(url.searchParams.get('resourceVersion') || this.resourceVersion) };
      this.watches.push(watch);
      const timeoutSeconds = Number(url.searchParams.get('timeoutSeconds'));
      if (timeoutSeconds > 0) watch.timer = setTimeout(() => res.end(), timeoutSeconds * 1000);
      res.on('close', () => {
        clearTimeout(watch.timer);
        this.watches = this.watches.filter((w) => w !== watch);
      });
      res.flushHeaders();
      this.flush();
      return;
    }
    res.end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(this.resourceVersion) }, items: [...this.items[collection].values()] }));
  }
}
