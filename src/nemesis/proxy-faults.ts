/**
 * Faults on the paths from clients to servers, through per-client TCP proxies
 * (proxy.ts): `latency` delays what a client sends and receives (to the lock nodes, the
 * data store, or both: a delayed write reaches the store after its writer's lease ran
 * out), and `partition:clients` cuts some clients off from some nodes.
 */
import type { Rng } from '../util/rng.js';
import { aboutTtlMs, type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from './nemesis.js';
import type { NodeFaultContext } from './node-faults.js';
import type { TcpProxy } from './proxy.js';

export interface ProxyRoute {
  client: number;
  /** The node's name, or "store". */
  node: string;
  proxy: TcpProxy;
}

/**
 * latency:nodes delays every client's traffic to the lock nodes; latency:store delays one
 * client's traffic to the data store (its writes land late, after its lease);
 * latency:all delays one client everywhere. The one client is a holder of the lock when
 * there is one: a lock without a queue goes mostly to the client that just released it,
 * and delaying a client that never holds shows nothing.
 */
export class Latency implements Nemesis {
  readonly kind = 'latency';
  private delayed: ProxyRoute[] = [];
  constructor(
    private readonly routes: ProxyRoute[],
    private readonly target: string,
    private readonly ttlMs: number,
    private readonly intervalS: number,
    /** Clients that hold the lock now. */
    private readonly holders: () => number[] = () => [],
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.intervalS, rng));
    // Around the TTL each way: a delay that long outlives leases.
    const delayMs = aboutTtlMs(this.ttlMs, rng);
    const clients = [...new Set(this.routes.map((r) => r.client))];
    const holding = this.holders().filter((c) => clients.includes(c));
    const among = holding.length > 0 ? holding : clients;
    const client = rng.pick(among);
    this.delayed = this.routes.filter((r) =>
      this.target === 'nodes'
        ? r.node !== 'store'
        : r.client === client && (this.target === 'all' || r.node === 'store'),
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

/**
 * partition:clients cuts a random minority of the clients off from every lock node.
 * partition:clients-majorities splits the clients in two groups and the nodes so that
 * each group reaches a different majority, the two sharing one node (the bridge): the
 * setting of Kleppmann's Redlock clock story (clock:bridge then jumps that node).
 */
export class ClientPartition implements Nemesis {
  readonly kind = 'partition';
  private cut: ProxyRoute[] = [];
  constructor(
    private readonly routes: ProxyRoute[],
    private readonly clients: number,
    private readonly ctx: NodeFaultContext,
    private readonly shape: 'clients' | 'clients-majorities',
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.intervalS, rng));
    const all = Array.from({ length: this.clients }, (_, i) => i);
    const order = all
      .map((c) => ({ c, k: rng.next() }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.c);
    if (this.shape === 'clients') {
      const chosen = order.slice(0, Math.max(1, Math.floor((this.clients - 1) / 2))).sort();
      this.cut = this.routes.filter((r) => r.node !== 'store' && chosen.includes(r.client));
      for (const r of this.cut) r.proxy.setCut(true);
      return { value: { shape: this.shape, clients: chosen, ms: durationMs }, durationMs };
    }
    const nodes = this.ctx.nodes.map((n) => n.name);
    const shuffled = nodes
      .map((n) => ({ n, k: rng.next() }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.n);
    const majority = Math.floor(nodes.length / 2) + 1;
    const left = shuffled.slice(0, majority);
    const right = shuffled.slice(majority - 1);
    const bridge = shuffled[majority - 1] as string;
    const groupA = order.slice(0, Math.ceil(this.clients / 2));
    const reaches = (client: number) => (groupA.includes(client) ? left : right);
    this.cut = this.routes.filter((r) => r.node !== 'store' && !reaches(r.client).includes(r.node));
    for (const r of this.cut) r.proxy.setCut(true);
    this.ctx.split = { bridge };
    return {
      value: {
        shape: this.shape,
        groups: [
          { clients: groupA.sort(), nodes: left.sort() },
          { clients: order.slice(groupA.length).sort(), nodes: right.sort() },
        ],
        bridge,
        ms: durationMs,
      },
      durationMs,
    };
  }
  async stop() {
    for (const r of this.cut) r.proxy.setCut(false);
    const n = this.cut.length;
    this.cut = [];
    this.ctx.split = undefined;
    return { routes: n };
  }
  async healAll() {
    for (const r of this.routes) r.proxy.setCut(false);
    this.cut = [];
    this.ctx.split = undefined;
  }
}
