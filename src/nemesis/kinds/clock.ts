/**
 * clock: a node's clock moves, applied as the backend declares (capabilities.clock; on
 * Redis nodes the same shift of every key's remaining TTL: Debian's redis-server cannot
 * run under libfaketime, and Redis expires keys by wall-clock time, so a jump of J ms
 * forward is exactly "every TTL J ms shorter"). A jump forward or backward, or a strobe.
 */
import type { ShiftTtls } from '../../backends/backend.js';
import type { NodeHandle } from '../../cluster/cluster.js';
import { sleep } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { missing } from '../applicability.js';
import { bareMajorityGrant, bridgeAtItsMoment, type HeldGrant } from '../bridge.js';
import type { NodeFaultContext } from '../context.js';
import { faultKind, nodesHit } from '../kind.js';
import { aboutTtlMs, type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from '../nemesis.js';
import { chooseNodes } from '../nodes.js';

/**
 * What the record says of a clock fault that moved no clock: the fallback where node-clock
 * (the server's real clock, by ptrace) cannot run, on a target's hosts or without root.
 */
export const TTL_SHIFT =
  "keys' TTLs shifted as the jump would: the server's own clock did not move (node-clock moves it)";

/**
 * clock: jumps on Redis nodes (Redlock's clock assumption). Forward expires keys early;
 * backward keeps them longer than their holders were promised (liveness, not safety). A
 * jump is instant, so there is nothing to undo at stop: the clock keeps its new time.
 */
export class ClockJump implements Nemesis {
  readonly kind = 'clock';
  constructor(
    private readonly ctx: NodeFaultContext,
    private readonly aim: string,
    private readonly direction: 'forward' | 'backward',
    private readonly shift: ShiftTtls,
    /** A grant of a bare majority of votes held now (Redlock, during a split), if any. */
    private readonly bareMajorityGrant: () => HeldGrant | undefined = () => undefined,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.timing.nemesisIntervalS, rng));
    // A jump a good part of a TTL long: enough to expire a held lock early. On the bridge
    // it is longer than the TTL: the point there is to expire the majority's shared key.
    const sign = this.direction === 'backward' ? -1 : 1;
    const jumpMs = sign * aboutTtlMs(this.ctx.timing.ttlMs, rng, this.aim === 'bridge' ? 1.0 : 0.5);
    const bridge = this.aim === 'bridge' ? await bridgeAtItsMoment(this.ctx, this.bareMajorityGrant) : undefined;
    const nodes = bridge ? bridge.nodes : await chooseNodes(this.ctx, this.aim, rng);
    if (nodes.length === 0) return null;
    const effects: Record<string, { expired: number; shifted: number }> = {};
    for (const n of nodes) {
      const [expired, shifted] = await this.shift(n, jumpMs);
      effects[n.name] = { expired, shifted };
    }
    // On the bridge, whether it jumped at its moment or after waiting for it in vain.
    const moment = bridge ? { bareMajorityHeld: bridge.bareMajorityHeld } : {};
    return { value: { nodes: nodes.map((n) => n.name), jumpMs, effects, ...moment, stands: TTL_SHIFT }, durationMs };
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
 * clock:<aim>:strobe, Jepsen's clock strobe: for the fault's duration the node's clock
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
    private readonly aim: string,
    private readonly shift: ShiftTtls,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.timing.nemesisIntervalS, rng));
    const offsetMs = aboutTtlMs(this.ctx.timing.ttlMs, rng);
    const periodMs = Math.round(rng.uniform(50, 250));
    const nodes = await chooseNodes(this.ctx, this.aim, rng);
    if (nodes.length === 0) return null;
    const state = { stopping: false };
    this.running = { state, done: this.strobe(nodes, offsetMs, periodMs, state) };
    return { value: { nodes: nodes.map((n) => n.name), offsetMs, periodMs, stands: TTL_SHIFT }, durationMs };
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

export const clock = faultKind({
  name: 'clock',
  aims: ['minority', 'one', 'majority', 'all', 'bridge'],
  modes: ['forward', 'backward', 'strobe'],
  what: "a Redis node's clock jump as its effect on keys, the fallback where node-clock cannot move the server's real clock (a target's hosts, no root): shift every key's TTL (clock:one:backward lengthens them; clock:one:strobe flips it ahead and back every 50-250 ms); bridge: the node a clients-majorities split shares",
  refuse: (s) =>
    s.aim === 'bridge' && s.mode !== 'forward'
      ? 'clock:bridge jumps forward only (its point is to expire the shared key): use clock:bridge'
      : undefined,
  fit: (s, backend) => {
    const { clock, quorum } = backend.capabilities ?? {};
    if (!clock) return missing('clock');
    if (s.aim === 'bridge' && !quorum) return missing('quorum');
    const { shift, nodes: only } = clock;
    return (ctx) => {
      // The split is read through: a partition sets it on the run's context after this.
      const on: NodeFaultContext = only
        ? {
            ...ctx,
            nodes: ctx.nodes.filter((n) => only(n.name)),
            get split() {
              return ctx.split;
            },
          }
        : ctx;
      if (s.mode === 'strobe') return new ClockStrobe(on, s.aim, shift);
      const way = s.mode === 'backward' ? 'backward' : 'forward';
      return new ClockJump(on, s.aim, way, shift, bareMajorityGrant(ctx, quorum));
    };
  },
  words: (v) => ({
    whom: nodesHit(v),
    how: typeof v.jumpMs === 'number' ? [`clock ${v.jumpMs >= 0 ? '+' : ''}${v.jumpMs} ms`] : [],
  }),
});
