/**
 * Faults on the lock service's nodes, each a Nemesis (start one fault, stop it, heal all):
 * pause (cgroup freezer), kill (SIGKILL, restart on stop), partition and packet loss
 * (iptables in the nodes' own network namespaces, every rule tagged with the run id), and
 * clock jumps on Redis nodes (applied as the same shift of every key's remaining TTL:
 * Debian's redis-server cannot run under libfaketime, and Redis expires keys by
 * wall-clock time, so a jump of J ms forward is exactly "every TTL J ms shorter").
 */
import type { ShiftTtls } from '../backends/backend.js';
import type { NodeHandle } from '../cluster/cluster.js';
import { sleep } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import { aboutTtlMs, type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from './nemesis.js';
import { describeGrudge, partitionGrudge, pickNodes } from './targets.js';

export interface NodeFaultContext {
  runId: string;
  /** The lock service's nodes (the data store is not faulted). */
  nodes: NodeHandle[];
  /** The current leader's node name, where the backend can tell. */
  leader?: () => Promise<string | undefined>;
  /** Seconds between faults; a node fault lasts 0.5-1.5x this. */
  intervalS: number;
  ttlMs: number;
  /** client-pause: pause exactly this many TTLs (undefined: drawn). */
  pauseTtl?: number;
  /** kill-node: restart Redis nodes empty. */
  loseData: boolean;
  /**
   * Nodes paused or killed right now, shared by all fault kinds of the run: composed faults
   * pick among the others (a frozen or dead container takes no `exec`), and a heal that
   * must run inside a node waits until it is back.
   */
  unavailable: Set<string>;
  /** The node both client groups reach while a clients-majorities split is in effect. */
  split?: { bridge: string };
}

const available = (ctx: NodeFaultContext) => ctx.nodes.filter((n) => !ctx.unavailable.has(n.name));

async function chooseNodes(ctx: NodeFaultContext, target: string, rng: Rng): Promise<NodeHandle[]> {
  const leader = target === 'leader' || target === 'isolate-leader' ? await ctx.leader?.() : undefined;
  const candidates = available(ctx);
  if (candidates.length === 0) return [];
  const names = pickNodes(
    target,
    candidates.map((n) => n.name),
    rng,
    leader,
  );
  return candidates.filter((n) => names.includes(n.name));
}

/** Waits until no other fault holds the node paused or dead. */
async function whenAvailable(ctx: NodeFaultContext, node: NodeHandle, deadlineMs = 60_000) {
  for (let waited = 0; ctx.unavailable.has(node.name) && waited < deadlineMs; waited += 50) await sleep(50);
}

/** Runs a command in the node's network namespace (iptables); throws unless it exits 0. */
async function mustNetExec(node: NodeHandle, command: string[]) {
  const r = await node.netExec(command);
  if (r.exitCode !== 0) throw new Error(`${node.name}: ${command.join(' ')} exited ${r.exitCode}: ${r.output.trim()}`);
  return r.output;
}

/**
 * A fault that takes whole nodes out (frozen or dead) and brings them back: the two
 * differ only in how. While out, a node is marked unavailable for the other kinds.
 */
abstract class NodeOutage implements Nemesis {
  abstract readonly kind: string;
  private out: NodeHandle[] = [];
  constructor(
    protected readonly ctx: NodeFaultContext,
    private readonly target: string,
  ) {}

  protected abstract takeDown(node: NodeHandle): Promise<void>;
  protected abstract bringBack(node: NodeHandle): Promise<void>;
  /** What the start's value adds for these nodes. */
  protected describe(_nodes: NodeHandle[]): Record<string, unknown> {
    return {};
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.intervalS, rng));
    const nodes = await chooseNodes(this.ctx, this.target, rng);
    if (nodes.length === 0) return null;
    for (const n of nodes) {
      this.ctx.unavailable.add(n.name);
      // Out from the first attempt: stop() and healAll() bring back (and mark available)
      // a node whose take-down failed half way, too.
      this.out.push(n);
      await this.takeDown(n);
    }
    return { value: { nodes: nodes.map((n) => n.name), ms: durationMs, ...this.describe(nodes) }, durationMs };
  }
  async stop() {
    const nodes = this.out;
    this.out = [];
    await Promise.all(nodes.map((n) => this.bringBack(n)));
    for (const n of nodes) this.ctx.unavailable.delete(n.name);
    return { nodes: nodes.map((n) => n.name) };
  }
  async healAll() {
    await this.stop();
  }
}

/** pause-node: the cgroup freezer stops every process of the node (docker pause). */
export class NodePause extends NodeOutage {
  readonly kind = 'pause-node';
  protected takeDown = (n: NodeHandle) => n.pause();
  protected bringBack = (n: NodeHandle) => n.resume();
}

/** kill-node: SIGKILL to the server (PID 1), then a restart of the container. */
export class NodeKill extends NodeOutage {
  readonly kind = 'kill-node';
  /** Nodes of the current start whose data-loss marker could not be left: they keep their data. */
  private keptData: string[] = [];
  override start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    this.keptData = [];
    return super.start(rng, plan);
  }
  protected async takeDown(n: NodeHandle) {
    // The node's start command wipes its data dir at the next start when asked (node-start.ts).
    if (this.ctx.loseData) {
      const marked = await n.exec(['touch', '/data/.lose-data']).then(
        (r) => r.exitCode === 0,
        () => false,
      );
      if (!marked) this.keptData.push(n.name);
    }
    await n.signal('SIGKILL');
  }
  protected bringBack = (n: NodeHandle) => n.restart();
  /**
   * loseData as asked when every marker was left; otherwise the nodes that restart with
   * their data are named, and loseData is false if none will restart empty.
   */
  protected override describe(nodes: NodeHandle[]) {
    if (this.keptData.length === 0) return { loseData: this.ctx.loseData };
    return { loseData: this.keptData.length < nodes.length, keptData: this.keptData };
  }
}

/** iptables rules tagged with the run id, so heal removes exactly ours. */
const tag = (runId: string) => `lockchaos-${runId}`;

async function removeTaggedRules(node: NodeHandle, runId: string) {
  // iptables-save | drop our lines | iptables-restore: atomic, and leaves others' rules.
  await mustNetExec(node, ['bash', '-c', `iptables-save | grep -v -- '${tag(runId)}' | iptables-restore`]);
}

export class Partition implements Nemesis {
  readonly kind = 'partition';
  private cut = new Set<NodeHandle>();
  constructor(
    private readonly ctx: NodeFaultContext,
    private readonly shape: string,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.intervalS, rng));
    const leader = this.shape === 'isolate-leader' ? await this.ctx.leader?.() : undefined;
    const grudge = partitionGrudge(
      this.shape,
      this.ctx.nodes.map((n) => n.name),
      rng,
      leader,
    );
    // A frozen or dead node hears nothing anyway; it gets its rules when it is back.
    const byName = new Map(this.ctx.nodes.map((n) => [n.name, n]));
    for (const [name, drops] of grudge) {
      const node = byName.get(name);
      if (!node || drops.size === 0) continue;
      await whenAvailable(this.ctx, node);
      const rules = [...drops].map(
        (d) => `iptables -A INPUT -s ${byName.get(d)?.ip} -m comment --comment ${tag(this.ctx.runId)} -j DROP`,
      );
      await mustNetExec(node, ['bash', '-c', rules.join(' && ')]);
      this.cut.add(node);
    }
    return { value: { shape: this.shape, drops: describeGrudge(grudge), ms: durationMs }, durationMs };
  }
  async stop() {
    const nodes = [...this.cut];
    this.cut.clear();
    await Promise.all(
      nodes.map(async (n) => {
        await whenAvailable(this.ctx, n);
        await removeTaggedRules(n, this.ctx.runId);
      }),
    );
    return { healed: nodes.map((n) => n.name) };
  }
  async healAll() {
    await Promise.all(this.ctx.nodes.map((n) => removeTaggedRules(n, this.ctx.runId).catch(() => undefined)));
    this.cut.clear();
  }
}

export const LOSS_PROBABILITY = 0.2;

export class PacketLoss implements Nemesis {
  readonly kind = 'loss';
  private lossy = new Set<NodeHandle>();
  constructor(
    private readonly ctx: NodeFaultContext,
    private readonly target: string,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.intervalS, rng));
    const nodes = await chooseNodes(this.ctx, this.target, rng);
    if (nodes.length === 0) return null;
    for (const n of nodes) {
      await mustNetExec(n, [
        'iptables',
        '-A',
        'INPUT',
        '-m',
        'statistic',
        '--mode',
        'random',
        '--probability',
        String(LOSS_PROBABILITY),
        '-m',
        'comment',
        '--comment',
        tag(this.ctx.runId),
        '-j',
        'DROP',
      ]);
      this.lossy.add(n);
    }
    return { value: { nodes: nodes.map((n) => n.name), probability: LOSS_PROBABILITY, ms: durationMs }, durationMs };
  }
  async stop() {
    const nodes = [...this.lossy];
    this.lossy.clear();
    await Promise.all(
      nodes.map(async (n) => {
        await whenAvailable(this.ctx, n);
        await removeTaggedRules(n, this.ctx.runId);
      }),
    );
    return { nodes: nodes.map((n) => n.name) };
  }
  async healAll() {
    await Promise.all(this.ctx.nodes.map((n) => removeTaggedRules(n, this.ctx.runId).catch(() => undefined)));
    this.lossy.clear();
  }
}

/**
 * clock: jumps on Redis nodes (Redlock's clock assumption). Forward expires keys early;
 * backward keeps them longer than their holders were promised (liveness, not safety). A
 * jump is instant, so there is nothing to undo at stop: the clock keeps its new time.
 */
export class ClockJump implements Nemesis {
  readonly kind = 'clock';
  constructor(
    private readonly ctx: NodeFaultContext,
    private readonly target: string,
    private readonly direction: 'forward' | 'backward',
    private readonly shift: ShiftTtls,
    /** Whether a client holds a grant of a bare majority of votes (Redlock, during a split). */
    private readonly bareMajorityHeld: () => boolean = () => false,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.intervalS, rng));
    // A jump a good part of a TTL long: enough to expire a held lock early. On the bridge
    // it is longer than the TTL: the point there is to expire the majority's shared key.
    const sign = this.direction === 'backward' ? -1 : 1;
    const jumpMs = sign * aboutTtlMs(this.ctx.ttlMs, rng, this.target === 'bridge' ? 1.0 : 0.5);
    const bridge = this.target === 'bridge' ? await this.bridgeNode() : undefined;
    const nodes = bridge ? bridge.nodes : await chooseNodes(this.ctx, this.target, rng);
    if (nodes.length === 0) return null;
    const effects: Record<string, { expired: number; shifted: number }> = {};
    for (const n of nodes) {
      const [expired, shifted] = await this.shift(n, jumpMs);
      effects[n.name] = { expired, shifted };
    }
    // On the bridge, whether it jumped at its moment or after waiting for it in vain.
    const moment = bridge ? { bareMajorityHeld: bridge.bareMajorityHeld } : {};
    return { value: { nodes: nodes.map((n) => n.name), jumpMs, effects, ...moment }, durationMs };
  }
  /**
   * clock:bridge jumps the node a client split shares, at the moment it matters: while a
   * client holds a lock with a bare majority of votes, which the bridge's key completes
   * (Kleppmann's story: A, B, C held; C's clock jumps; C, D, E granted to another).
   */
  private async bridgeNode(): Promise<{ nodes: NodeHandle[]; bareMajorityHeld: boolean }> {
    const now = () => this.ctx.split !== undefined && this.bareMajorityHeld();
    for (let waited = 0; !now() && waited < 4000; waited += 10) await sleep(10);
    const bareMajorityHeld = now();
    const bridge = this.ctx.nodes.find((n) => n.name === this.ctx.split?.bridge);
    const nodes = bridge && !this.ctx.unavailable.has(bridge.name) ? [bridge] : [];
    return { nodes, bareMajorityHeld };
  }
  async stop() {
    return null;
  }
  async healAll() {}
}

/** What a strobe did, recorded as its stop's value; leftAhead: nodes it could not bring back. */
interface StrobeEnd {
  flips: number;
  expired: number;
  missed: number;
  leftAhead?: string[];
}

/**
 * clock:<target>:strobe, Jepsen's clock strobe: for the fault's duration the node's clock
 * flips between now and `offsetMs` ahead, every `periodMs`. Redis keeps absolute expiry
 * times, so each flip ahead expires early what it overtakes, and each flip back lengthens
 * every TTL again: a key set while ahead outlives its TTL by the offset. The flips are the
 * same TTL shifts as ClockJump's. The strobe always ends with the clock back where it was.
 */
export class ClockStrobe implements Nemesis {
  readonly kind = 'clock';
  private running: { state: { stopping: boolean }; done: Promise<StrobeEnd> } | undefined;

  constructor(
    private readonly ctx: NodeFaultContext,
    private readonly target: string,
    private readonly shift: ShiftTtls,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.intervalS, rng));
    const offsetMs = aboutTtlMs(this.ctx.ttlMs, rng);
    const periodMs = Math.round(rng.uniform(50, 250));
    const nodes = await chooseNodes(this.ctx, this.target, rng);
    if (nodes.length === 0) return null;
    const state = { stopping: false };
    this.running = { state, done: this.strobe(nodes, offsetMs, periodMs, state) };
    return { value: { nodes: nodes.map((n) => n.name), offsetMs, periodMs }, durationMs };
  }

  private async strobe(
    nodes: NodeHandle[],
    offsetMs: number,
    periodMs: number,
    state: { stopping: boolean },
  ): Promise<StrobeEnd> {
    let flips = 0;
    let expired = 0;
    // A node another fault took down misses a flip. One that missed going ahead is not
    // brought back; one that missed coming back is brought back on a later flip.
    let missed = 0;
    const ahead = new Set<NodeHandle>();
    const flip = async (forward: boolean) => {
      for (const n of nodes) {
        if (ahead.has(n) === forward) continue;
        try {
          expired += (await this.shift(n, forward ? offsetMs : -offsetMs))[0];
          if (forward) ahead.add(n);
          else ahead.delete(n);
        } catch {
          missed++;
        }
      }
      flips++;
    };
    while (!state.stopping) {
      await flip(true);
      await sleep(periodMs);
      await flip(false);
      if (!state.stopping) await sleep(periodMs);
    }
    if (ahead.size > 0) await flip(false); // one last try
    const leftAhead = [...ahead].map((n) => n.name);
    return { flips, expired, missed, ...(leftAhead.length > 0 ? { leftAhead } : {}) };
  }

  async stop() {
    const running = this.running;
    if (!running) return null;
    running.state.stopping = true;
    this.running = undefined;
    return await running.done;
  }

  async healAll() {
    await this.stop();
  }
}
