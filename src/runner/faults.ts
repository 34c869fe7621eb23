/**
 * A run's faults, wired to its cluster and clients: the per-client proxies when a fault
 * needs them (latency, client cuts), the nemeses of the --nemesis spec, one seeded
 * schedule each, and the heal at the end.
 */
import type { NodeAddress } from '../backends/backend.js';
import type { Cluster, NodeHandle } from '../cluster/cluster.js';
import { DATASTORE_NODE } from '../datastore/datastore.js';
import type { UnindexedOp } from '../history/recorder.js';
import { nodeFaultContext } from '../nemesis/context.js';
import {
  buildNemeses,
  type Fault,
  type Nemesis,
  type NemesisClients,
  type NemesisContext,
  needsProxies,
} from '../nemesis/index.js';
import { wirePoint } from '../nemesis/kinds/wire.js';
import { type ProxyRoute, TcpProxy } from '../nemesis/proxy.js';
import { runSchedule, type ScheduledFault } from '../nemesis/schedule.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import type { Origin } from '../util/monotonic-clock.js';
import type { Rng } from '../util/rng.js';

export class RunFaults {
  private readonly routes: ProxyRoute[] = [];
  private nemeses: Nemesis[] = [];
  private readonly applied: ScheduledFault[] = [];

  constructor(
    private readonly resolved: Pick<ResolvedRun, 'config' | 'backend' | 'faults'>,
    private readonly cluster: Cluster,
    private readonly runId: string,
    /** How the nemeses are built from the faults and the context (a test gives fakes). */
    private readonly build: (faults: readonly Fault[], ctx: NemesisContext) => Nemesis[] = buildNemeses,
  ) {}

  private get lockNodes() {
    return this.cluster.nodes.filter((n) => n.role === 'node');
  }

  /** Starts one proxy per client and server when a fault needs them, or when `always` (an exploration's baseline). */
  async openProxies(always = false): Promise<void> {
    if (!needsProxies(this.resolved.faults) && !always) return;
    for (let client = 0; client < this.resolved.config.concurrency; client++) {
      for (const node of this.cluster.nodes) {
        // A lock node's route names what the client sends (the wire points it reaches).
        const proxy = new TcpProxy(node.ip, node.port, node.role !== 'store');
        await proxy.listen();
        this.routes.push({ client, node: node.role === 'store' ? 'store' : node.name, proxy });
      }
    }
  }

  /** Where a client finds the lock nodes and the store: directly, or through its proxies. */
  addressesFor(client: number): { nodes: NodeAddress[]; store: NodeAddress } {
    const via = (n: NodeHandle): NodeAddress => {
      const route = this.routes.find((r) => r.client === client && r.node === (n.role === 'store' ? 'store' : n.name));
      return route
        ? { name: n.name, ip: '127.0.0.1', port: route.proxy.port, direct: { ip: n.ip, port: n.port } }
        : { name: n.name, ip: n.ip, port: n.port };
    };
    return { nodes: this.lockNodes.map(via), store: via(this.cluster.node(DATASTORE_NODE)) };
  }

  /**
   * Runs every fault kind until the signal, each on its own seeded schedule, or on the
   * config's given schedule; resolves when all stopped.
   */
  run(opts: {
    clients: NemesisClients;
    rng: Rng;
    origin: Origin;
    record: (op: UnindexedOp) => void;
    signal: AbortSignal;
  }) {
    const { config, backend } = this.resolved;
    this.nemeses = this.build(this.resolved.faults, {
      ...nodeFaultContext(this.runId, this.lockNodes, config, {
        leader: backend.leader ? () => backend.leader?.(this.lockNodes) ?? Promise.resolve(undefined) : undefined,
        loseData: config.loseData ?? false,
      }),
      clients: opts.clients,
      routes: this.routes,
    });
    return Promise.all(
      this.nemeses.map((nemesis) =>
        runSchedule({
          nemesis,
          rng: opts.rng.fork(`nemesis:${nemesis.kind}`),
          intervalS: config.nemesisIntervalS,
          origin: opts.origin,
          record: opts.record,
          signal: opts.signal,
          given: config.schedule?.filter((f) => f.kind === nemesis.kind),
          applied: (fault) => this.applied.push(fault),
        }),
      ),
    );
  }

  /**
   * The run's schedule as data, in order of start: the faults it drew, or the faults it
   * was given, each with what it did in this run (none: not applied, e.g. past an early stop).
   */
  schedule(): ScheduledFault[] {
    const applied = [...this.applied].sort((a, b) => a.atMs - b.atMs);
    const given = this.resolved.config.schedule;
    if (!given) return applied;
    // A given fault is known by its kind, start and seed (a long schedule: one look each).
    const id = (f: Pick<ScheduledFault, 'kind' | 'atMs' | 'seed'>) => `${f.kind}\u0000${f.atMs}\u0000${f.seed}`;
    const did = new Map<string, ScheduledFault['did']>();
    for (const a of applied) if (!did.has(id(a))) did.set(id(a), a.did);
    return given.map(({ did: _given, ...fault }) =>
      did.has(id(fault)) ? { ...fault, did: did.get(id(fault)) } : fault,
    );
  }

  /** How many requests of each name the clients sent the lock nodes (`wire:DEL`): none without proxies. */
  wireReached(): Record<string, number> {
    const reached: Record<string, number> = {};
    for (const r of this.routes) {
      if (r.node === 'store') continue;
      for (const [name, n] of r.proxy.seen) reached[wirePoint(name)] = (reached[wirePoint(name)] ?? 0) + n;
    }
    return reached;
  }

  /** Undoes every fault still in effect; idempotent. */
  async healAll(): Promise<void> {
    await Promise.all(this.nemeses.map((n) => n.healAll().catch(() => undefined)));
  }

  async close(): Promise<void> {
    await Promise.all(this.routes.map((r) => r.proxy.close()));
  }
}
