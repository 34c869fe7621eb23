/**
 * latency: delay what clients send and receive, through per-client TCP proxies (the
 * kernel here has no netem): to the lock nodes, the data store (a delayed write reaches
 * the store after its writer's lease ran out), or both.
 */
import type { Rng } from '../../util/rng.js';
import { faultKind } from '../kind.js';
import {
  aboutTtlMs,
  type FaultPlan,
  type FaultStart,
  type FaultTiming,
  faultDurationMs,
  type Nemesis,
  planned,
} from '../nemesis.js';
import type { ProxyRoute } from '../proxy.js';

/**
 * latency:nodes delays every client's traffic to the lock nodes; latency:store delays one
 * client's traffic to the data store (its writes land late, after its lease);
 * latency:all delays one client everywhere. The one client is a holder of the lock when
 * there is one: a lock without a queue goes mostly to the client that just released it,
 * and delaying a client that never holds shows nothing.
 */
export class DelayTraffic implements Nemesis {
  readonly kind = 'latency';
  private delayed: ProxyRoute[] = [];
  constructor(
    private readonly routes: ProxyRoute[],
    private readonly aim: string,
    private readonly timing: FaultTiming,
    /** Clients that hold the lock now. */
    private readonly holders: () => number[] = () => [],
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.timing.nemesisIntervalS, rng));
    // Around the TTL each way: a delay that long outlives leases.
    const delayMs = aboutTtlMs(this.timing.ttlMs, rng);
    const clients = [...new Set(this.routes.map((r) => r.client))];
    const holding = this.holders().filter((c) => clients.includes(c));
    const among = holding.length > 0 ? holding : clients;
    const client = rng.pick(among);
    this.delayed = this.routes.filter((r) =>
      this.aim === 'nodes' ? r.node !== 'store' : r.client === client && (this.aim === 'all' || r.node === 'store'),
    );
    for (const r of this.delayed) r.proxy.delayMs = delayMs;
    const who = this.aim === 'nodes' ? 'all clients' : `client ${client}`;
    return { value: { to: this.aim, clients: who, delayMs, ms: durationMs }, durationMs };
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

export const latency = faultKind({
  name: 'latency',
  aims: ['nodes', 'store', 'all'],
  what: "delay traffic through per-client TCP proxies: all clients to the nodes, or one client's to the store, or all of one client's",
  usesProxies: () => true,
  fit: (s) => (ctx) => new DelayTraffic(ctx.routes, s.aim, ctx.timing, () => ctx.clients.holders()),
  words: (v) => ({
    whom: typeof v.to === 'string' ? `to ${v.to}` : undefined,
    how: typeof v.delayMs === 'number' ? [`+${v.delayMs} ms delay`] : [],
  }),
});
