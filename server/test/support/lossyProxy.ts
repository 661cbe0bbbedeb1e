/**
 * A loopback TCP proxy in front of one ZooKeeper member that loses one write on purpose, so a
 * test can choose which side of "CONNECTION_LOSS is not failure" it exercises:
 *  - `reply`: the request reaches the member, which applies it; its reply never comes back;
 *  - `request`: the request never reaches the member, so nothing is applied.
 * Either way the connection then goes silent in both directions, as a member that hangs would:
 * the client gives up on it, reconnects through the proxy (which passes everything again) and,
 * for a mutation, has to read back what really happened.
 *
 * It reads ZooKeeper's framing (a 4-byte length before each packet; after the connect request,
 * each request starts with xid and op code) only to find the request to lose. Keeper's
 * connection string names the proxy alone, so every connection of its session goes through it.
 */
import net from 'node:net';

/** ZooKeeper's op codes (jute's OpCode) for the requests a test may lose. */
export const ZK_OP = { create: 1, delete: 2, setData: 5, setACL: 7, multi: 14, reconfig: 16 } as const;
export type ZkOpName = keyof typeof ZK_OP;
export type Loss = 'reply' | 'request';

interface Armed {
  op: number;
  loss: Loss;
  happened: () => void;
}

export class LossyProxy {
  private armed: Armed | null = null;
  /** Everything dropped both ways, on every connection, new ones too (a network partition): `silenceAll`, `heal`. */
  private partitioned = false;
  private readonly silencers = new Set<() => void>();
  private readonly sockets = new Set<net.Socket>();
  /** Connections accepted so far (a reconnect after a loss adds one). */
  connections = 0;
  /** Requests passed on to the member, by op code (a lost request is not counted; one whose reply is lost is). */
  private readonly passedOps = new Map<number, number>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Listens on an ephemeral loopback port and forwards to `target`. */
  static async start(target: { host: string; port: number }): Promise<LossyProxy> {
    let proxy: LossyProxy | null = null;
    const server = net.createServer((client) => proxy?.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy = new LossyProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  /** How many requests of type `op` reached the member through this proxy, on any connection. */
  passed(op: ZkOpName): number {
    return this.passedOps.get(ZK_OP[op]) ?? 0;
  }

  /** host:port, for a connection string. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /**
   * Loses the next request of type `op` on any connection (its reply, or itself), then silences
   * that connection. Resolves once it happened.
   */
  loseNext(op: ZkOpName, loss: Loss): Promise<void> {
    if (this.armed) throw new Error('lossy proxy: already waiting to lose a request');
    return new Promise((resolve) => {
      this.armed = { op: ZK_OP[op], loss, happened: resolve };
    });
  }

  /**
   * A network partition: from now on nothing passes either way, on open connections and new ones
   * (which are accepted, then hear nothing), until `heal`. The client sees its member hang, the
   * member sees its client go silent: its session expires after its timeout.
   */
  silenceAll(): void {
    this.partitioned = true;
    for (const silence of this.silencers) silence();
  }

  /** Ends the partition: connections made from now on pass everything (those opened during it stay silent). */
  heal(): void {
    this.partitioned = false;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, target: { host: string; port: number }): void {
    this.connections += 1;
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => {
        this.sockets.delete(s);
        // One side gone: the other goes too, as one TCP connection would.
        client.destroy();
        upstream.destroy();
      });
      s.on('error', () => undefined);
    }
    let silent = this.partitioned;
    const silence = () => void (silent = true);
    this.silencers.add(silence);
    client.on('close', () => this.silencers.delete(silence));
    let pending = Buffer.alloc(0);
    let packets = 0;
    upstream.on('data', (chunk) => {
      if (!silent) client.write(chunk);
    });
    client.on('data', (chunk) => {
      if (silent) return;
      pending = Buffer.concat([pending, chunk]);
      // Whole packets only: the op code is read before a packet is passed on.
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const size = 4 + pending.readInt32BE(0);
        const packet = pending.subarray(0, size);
        pending = pending.subarray(size);
        // Packet 0 is the connect request, which has no header; the others start with xid, op.
        const op = packets++ > 0 && packet.length >= 12 ? packet.readInt32BE(8) : null;
        const armed = this.armed;
        const pass = () => {
          if (op !== null) this.passedOps.set(op, (this.passedOps.get(op) ?? 0) + 1);
          upstream.write(packet);
        };
        if (armed && op === armed.op) {
          this.armed = null;
          if (armed.loss === 'reply') pass();
          silent = true;
          armed.happened();
          return;
        }
        pass();
      }
    });
  }
}
