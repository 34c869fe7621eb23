/**
 * partition: cut nodes off from each other (iptables DROP in their network namespaces, as
 * grudges: node-choice.ts), or clients off from nodes (per-client TCP proxies: the host's
 * clients all reach the containers from one bridge address, so iptables cannot tell them
 * apart).
 */

import { shellQuote } from '../../backends/node-start.js';
import { sleep } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { leaderUnfit } from '../applicability.js';
import type { NodeFaultContext } from '../context.js';
import { IptablesFault, ruleTag } from '../iptables.js';
import { faultKind, listed } from '../kind.js';
import { type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from '../nemesis.js';
import { describeGrudge, partitionGrudge } from '../node-choice.js';
import { mustNetExec, whenAvailable } from '../nodes.js';
import type { ProxyRoute } from '../proxy.js';

export const PARTITIONS = [
  'halves',
  'random-halves',
  'majorities-ring',
  'isolate-one',
  'isolate-leader',
  'bridge',
  'clients',
  'clients-majorities',
] as const;

/**
 * The rule that drops what comes from `peer` (a node's address), tagged with the run: a
 * shell line, run as root on a target's host, so the address is quoted as one word even
 * though the inventory admits only host names and IP literals.
 */
export const partitionRule = (peer: string | undefined, runId: string) =>
  `iptables -A INPUT -s ${shellQuote(String(peer))} -m comment --comment ${ruleTag(runId)} -j DROP`;

/** Where a node's peers see it come from: its own network address unless it says otherwise. */
const peerAddress = (n: { ip: string; peerIp?: string } | undefined) => n?.peerIp ?? n?.ip;

const cutsClients = (shape: string): shape is 'clients' | 'clients-majorities' => shape.startsWith('clients');

/** A partition between nodes, by shape (node-choice.ts: partitionGrudge). */
export class Partition extends IptablesFault {
  readonly kind = 'partition';
  protected readonly stopKey = 'healed';

  protected async addRules(rng: Rng, durationMs: number) {
    const leader = this.aim === 'isolate-leader' ? await this.ctx.leader?.() : undefined;
    const grudge = partitionGrudge(
      this.aim,
      this.ctx.nodes.map((n) => n.name),
      rng,
      leader,
    );
    // A frozen or dead node hears nothing anyway; it gets its rules when it is back.
    const byName = new Map(this.ctx.nodes.map((n) => [n.name, n]));
    const inPlace: Record<string, number> = {};
    for (const [name, drops] of grudge) {
      const node = byName.get(name);
      if (!node || drops.size === 0) continue;
      await whenAvailable(this.ctx, node);
      const rules = [...drops].map((d) => partitionRule(peerAddress(byName.get(d)), this.ctx.runId));
      // The count of the run's rules read back in the same command: the record shows they took.
      const count = `iptables-save | grep -c -- '${ruleTag(this.ctx.runId)}'`;
      const out = await mustNetExec(node, ['bash', '-c', [...rules, count].join(' && ')]);
      inPlace[name] = Number(out.trim().split('\n').at(-1));
      this.ruledOn(node);
    }
    return { shape: this.aim, drops: describeGrudge(grudge), rules: inPlace, ms: durationMs };
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
  /** Every client with a route, in order. */
  private readonly clients: number[];
  constructor(
    private readonly routes: ProxyRoute[],
    private readonly ctx: NodeFaultContext,
    private readonly shape: 'clients' | 'clients-majorities',
  ) {
    this.clients = [...new Set(routes.map((r) => r.client))].sort((a, b) => a - b);
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.timing.nemesisIntervalS, rng));
    const count = this.clients.length;
    const order = this.clients
      .map((c) => ({ c, k: rng.next() }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.c);
    if (this.shape === 'clients') {
      const chosen = order.slice(0, Math.max(1, Math.floor((count - 1) / 2))).sort();
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
    const groupA = order.slice(0, Math.ceil(count / 2));
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
    // A split clock:bridge jumped under a holder stands until that hold ends (bounded by two
    // TTLs): healed earlier, the other group may never ask for the expired key in time, and
    // whether it did would depend on the machine's speed, not the lock.
    const outlast = this.ctx.split?.outlast;
    const t0 = Date.now();
    const boundMs = 2 * this.ctx.timing.ttlMs;
    while (outlast?.() && Date.now() - t0 < boundMs) await sleep(10);
    const keptMs = outlast ? Date.now() - t0 : undefined;
    for (const r of this.cut) r.proxy.setCut(false);
    const n = this.cut.length;
    this.cut = [];
    this.ctx.split = undefined;
    return keptMs === undefined ? { routes: n } : { routes: n, keptForHolderMs: keptMs };
  }
  async healAll() {
    for (const r of this.routes) r.proxy.setCut(false);
    this.cut = [];
    this.ctx.split = undefined;
  }
}

export const partition = faultKind({
  name: 'partition',
  aims: PARTITIONS,
  nodeNeeds: (s) => (cutsClients(s.aim) ? [] : ['network']),
  what: 'iptables DROP between nodes; clients: cut some clients from the nodes; clients-majorities: two client groups each reach another majority, sharing one node (proxies)',
  fit: (s, backend, lockNodes) => {
    const leader = leaderUnfit(s.aim, backend);
    if (leader) return leader;
    if (s.aim === 'clients-majorities' && lockNodes < 3) {
      return { reason: `needs at least 3 nodes; ${backend.name} has ${lockNodes}` };
    }
    if (!cutsClients(s.aim) && lockNodes < 2) {
      return {
        reason: `needs at least 2 nodes (it cuts nodes off from each other); ${backend.name} has ${lockNodes}: use partition:clients (cuts clients off from the node)`,
      };
    }
    return (ctx) => (cutsClients(s.aim) ? new ClientPartition(ctx.routes, ctx, s.aim) : new Partition(ctx, s.aim));
  },
  usesProxies: (s) => cutsClients(s.aim),
  words: (v) => ({
    whom: typeof v.shape === 'string' ? v.shape : undefined,
    how: Array.isArray(v.clients) ? [`clients ${listed(v.clients)}`] : [],
  }),
});
