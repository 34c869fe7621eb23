/**
 * Faults on the paths from clients to servers, through per-client TCP proxies
 * (proxy.ts): `latency` delays what a client sends and receives (to the lock nodes, the
 * data store, or both: a delayed write reaches the store after its writer's lease ran
 * out), and `partition:clients` cuts some clients off from some nodes.
 */
import type { Rng } from '../util/rng.js';
import type { FaultStart, Nemesis } from './nemesis.js';
import type { TcpProxy } from './proxy.js';

export interface ProxyRoute {
  client: number;
  /** The node's name, or "store". */
  node: string;
  proxy: TcpProxy;
}

/**
 * latency:nodes delays every client's traffic to the lock nodes; latency:store delays one
 * random client's traffic to the data store (its writes land late, after its lease);
 * latency:all delays one random client everywhere.
 */
export class Latency implements Nemesis {
  readonly kind = 'latency';
  private delayed: ProxyRoute[] = [];
  constructor(
    private readonly routes: ProxyRoute[],
    private readonly target: string,
    private readonly ttlMs: number,
    private readonly intervalS: number,
  ) {}

  async start(rng: Rng): Promise<FaultStart | null> {
    const durationMs = Math.round(1000 * this.intervalS * rng.uniform(0.5, 1.5));
    // Around the TTL each way: a delay that long outlives leases.
    const delayMs = Math.round(this.ttlMs * rng.uniform(0.5, 1.5));
    const clients = [...new Set(this.routes.map((r) => r.client))];
    const client = rng.pick(clients);
    this.delayed = this.routes.filter((r) =>
      this.target === 'nodes' ? r.node !== 'store' : r.client === client && (this.target === 'all' || r.node === 'store'),
    );
    for (const r of this.delayed) r.proxy.delayMs = delayMs;
    const who = this.target === 'nodes' ? 'all clients' : `client ${client}`;
    return { value: { to: this.target, clients: who, delayMs, ms: durationMs }, durationMs };
  }
  async stop() {
    for (const r of this.delayed) r.proxy.delayMs = 0;
    const n = this.delayed.length;
    this.delayed = [];
    return { routes: n };
  }
  async healAll() {
    for (const r of this.routes) r.proxy.delayMs = 0;
    this.delayed = [];
  }
}

/** Cuts a random minority of the clients off from every lock node. */
export class ClientPartition implements Nemesis {
  readonly kind = 'partition';
  private cut: ProxyRoute[] = [];
  constructor(
    private readonly routes: ProxyRoute[],
    private readonly clients: number,
    private readonly intervalS: number,
  ) {}

  async start(rng: Rng): Promise<FaultStart | null> {
    const durationMs = Math.round(1000 * this.intervalS * rng.uniform(0.5, 1.5));
    const count = Math.max(1, Math.floor((this.clients - 1) / 2));
    const all = Array.from({ length: this.clients }, (_, i) => i);
    const chosen: number[] = [];
    while (chosen.length < count) {
      const c = all.splice(rng.int(0, all.length - 1), 1)[0] as number;
      chosen.push(c);
    }
    this.cut = this.routes.filter((r) => r.node !== 'store' && chosen.includes(r.client));
    for (const r of this.cut) r.proxy.setCut(true);
    return { value: { shape: 'clients', clients: chosen.sort(), ms: durationMs }, durationMs };
  }
  async stop() {
    for (const r of this.cut) r.proxy.setCut(false);
    const n = this.cut.length;
    this.cut = [];
    return { routes: n };
  }
  async healAll() {
    for (const r of this.routes) r.proxy.setCut(false);
    this.cut = [];
  }
}
