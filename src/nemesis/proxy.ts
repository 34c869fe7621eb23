/**
 * A userspace TCP proxy between one client and one server, in the runner process: the
 * kernel here has no netem, and every host client reaches the containers from the same
 * bridge address, so neither latency nor a cut between one client and one node can be
 * made with iptables. Each proxy can delay the bytes it forwards (order kept) or hold
 * them (a cut: like dropped packets that TCP retransmits once the cut heals).
 */
import net from 'node:net';

/** One client's proxy to one server: the path client faults delay or cut. */
export interface ProxyRoute {
  client: number;
  /** The node's name, or "store". */
  node: string;
  proxy: TcpProxy;
}

interface Direction {
  queue: { at: number; chunk: Buffer }[];
  timer?: NodeJS.Timeout;
  lastAt: number;
}

export class TcpProxy {
  private server = net.createServer((client) => this.accept(client));
  private sockets = new Set<net.Socket>();
  private pumps = new Set<() => void>();
  delayMs = 0;
  private cut = false;
  port = 0;

  constructor(
    readonly targetHost: string,
    readonly targetPort: number,
  ) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  setCut(cut: boolean) {
    this.cut = cut;
    if (!cut) for (const pump of this.pumps) pump();
  }

  private accept(client: net.Socket) {
    const server = net.connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(server);
    const close = () => {
      client.destroy();
      server.destroy();
      this.sockets.delete(client);
      this.sockets.delete(server);
    };
    client.on('error', close).on('close', close);
    server.on('error', close).on('close', close);
    this.forward(client, server);
    this.forward(server, client);
  }

  private forward(from: net.Socket, to: net.Socket) {
    const d: Direction = { queue: [], lastAt: 0 };
    const pump = () => {
      if (d.timer) clearTimeout(d.timer);
      d.timer = undefined;
      if (this.cut) return;
      const now = Date.now();
      while (d.queue.length > 0 && (d.queue[0]?.at ?? 0) <= now) {
        const next = d.queue.shift();
        if (next && !to.destroyed) to.write(next.chunk);
      }
      const head = d.queue[0];
      if (head) d.timer = setTimeout(pump, head.at - now);
    };
    this.pumps.add(pump);
    from.on('close', () => this.pumps.delete(pump));
    from.on('data', (chunk: Buffer) => {
      // Keep order when the delay changes: never release before an earlier chunk.
      const at = Math.max(Date.now() + this.delayMs, d.lastAt);
      d.lastAt = at;
      d.queue.push({ at, chunk });
      if (!d.timer) pump();
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
