/**
 * A userspace TCP proxy between one client and one server, in the runner process: the
 * kernel here has no netem, and every host client reaches the containers from the same
 * bridge address, so neither latency nor a cut between one client and one node can be
 * made with iptables. Each proxy can delay the bytes it forwards (order kept) or hold
 * them (a cut: like dropped packets that TCP retransmits once the cut heals).
 */
import net from 'node:net';
import { WireSplitter } from './wire-requests.js';

/**
 * What a wire fault does with one request a client sends (kinds/wire.ts): hold it (and
 * what follows it on the connection) until `until` resolves, drop it (the connection is
 * closed, as a lost one would be), or let it go and then call `after` (stop the client).
 */
export type WireAction = { hold: Promise<void>; answered?: () => void } | { drop: true } | { after: () => void };

/** Looks at each named request a client sends through a proxy; undefined: let it pass. */
export type WireTrap = (name: string) => WireAction | undefined;

/** One client's proxy to one server: the path client faults delay or cut. */
export interface ProxyRoute {
  client: number;
  /** The node's name, or "store". */
  node: string;
  proxy: TcpProxy;
}

interface Direction {
  /** Bytes to forward at `at`; `held` ones (and all behind them) wait until it is lifted. */
  queue: { at: number; chunk: Buffer; held?: boolean }[];
  timer?: NodeJS.Timeout;
  lastAt: number;
}

/**
 * The most request names one route tallies, and their longest: a lock library sends a
 * handful (SET, EVAL, DEL); a program that sent a new first word in every request would
 * otherwise grow the coverage table (and summary.json) without bound, as announced code
 * points did before they were capped (client-protocol.ts).
 */
export const MAX_WIRE_NAMES = 256;
export const MAX_WIRE_NAME_LENGTH = 64;

export class TcpProxy {
  private server = net.createServer((client) => this.accept(client));
  private sockets = new Set<net.Socket>();
  private pumps = new Set<() => void>();
  delayMs = 0;
  private cut = false;
  port = 0;
  /** A wire fault's trap, while one is armed (kinds/wire.ts). */
  trap?: WireTrap;
  /**
   * How many requests of each name the client sent (when `watch`): the wire points it
   * reached, at most MAX_WIRE_NAMES names of at most MAX_WIRE_NAME_LENGTH characters.
   */
  readonly seen = new Map<string, number>();
  /** Requests whose names were past those bounds: sent, and trapped as any, but not tallied. */
  untallied = 0;

  constructor(
    readonly upstreamHost: string,
    readonly upstreamPort: number,
    /** Split what the client sends into named requests (a lock node's route; wire-requests.ts). */
    private readonly watch = false,
  ) {}

  /** Counts a request by name, within the bounds a client program cannot push past. */
  private tally(name: string) {
    const n = this.seen.get(name);
    if (n !== undefined) this.seen.set(name, n + 1);
    else if (this.seen.size < MAX_WIRE_NAMES && name.length <= MAX_WIRE_NAME_LENGTH) this.seen.set(name, 1);
    else this.untallied++;
  }

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
    const server = net.connect(this.upstreamPort, this.upstreamHost);
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
    // Told when the server's next bytes reach the client (a held request's answer).
    const answers: { next?: () => void } = {};
    this.forward(client, server, this.watch ? new WireSplitter() : undefined, close, answers);
    this.forward(server, client, undefined, undefined, undefined, answers);
  }

  private forward(
    from: net.Socket,
    to: net.Socket,
    requests?: WireSplitter,
    close?: () => void,
    answersTo?: { next?: () => void },
    answersFrom?: { next?: () => void },
  ) {
    const d: Direction = { queue: [], lastAt: 0 };
    const pump = () => {
      if (d.timer) clearTimeout(d.timer);
      d.timer = undefined;
      if (this.cut) return;
      const now = Date.now();
      while (d.queue.length > 0 && (d.queue[0]?.at ?? 0) <= now && !d.queue[0]?.held) {
        const next = d.queue.shift();
        if (next && !to.destroyed) to.write(next.chunk);
        if (next && answersFrom?.next) {
          const told = answersFrom.next;
          answersFrom.next = undefined;
          told();
        }
      }
      const head = d.queue[0];
      if (head && !head.held) d.timer = setTimeout(pump, head.at - now);
    };
    this.pumps.add(pump);
    from.on('close', () => this.pumps.delete(pump));
    const enqueue = (chunk: Buffer) => {
      // Keep order when the delay changes: never release before an earlier chunk.
      const at = Math.max(Date.now() + this.delayMs, d.lastAt);
      d.lastAt = at;
      const entry: Direction['queue'][number] = { at, chunk };
      d.queue.push(entry);
      return entry;
    };
    from.on('data', (chunk: Buffer) => {
      if (!requests) {
        enqueue(chunk);
      } else {
        for (const frame of requests.push(chunk)) {
          if (frame.name === undefined) {
            enqueue(frame.bytes);
            continue;
          }
          this.tally(frame.name);
          const action = this.trap?.(frame.name);
          if (action && 'drop' in action) {
            // The request never reaches the server; the client finds its connection gone.
            close?.();
            return;
          }
          const entry = enqueue(frame.bytes);
          if (action && 'hold' in action) {
            entry.held = true;
            void action.hold.then(() => {
              if (answersTo && action.answered) answersTo.next = action.answered;
              entry.held = false;
              pump();
            });
          }
          if (action && 'after' in action) {
            // Stopped right after the request left: once it is written to the server.
            entry.at = 0;
            pump();
            action.after();
          }
        }
      }
      if (!d.timer) pump();
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
