/**
 * node-clock: the real clock a node's server reads moves (clock-warp: its processes'
 * vDSO clock_gettime, gettimeofday and time, CLOCK_REALTIME and the monotonic clocks), on
 * any backend, while it runs: a jump forward or backward, a strobe, or a drift (`rate`:
 * the clock runs at 1 + ρ, so its offset grows through the fault). Unlike `clock`, which
 * shifts Redis TTLs to the same effect on expiry, every clock the server reads moves: its
 * expiry, its leases, its timeouts. The record says what the server's clock read back,
 * before (the start's record), during and after (the stop's: read at its end, before and
 * after the true clock is back), where the backend can ask it (Redis TIME). At stop the true clock
 * is put back (a jump of its own, as an NTP step back to true time would be).
 */
import type { BackendCapabilities } from '../../backends/backend.js';
import {
  type ClockChange,
  changeWarp,
  clockWarpSupport,
  readWarp,
  restoreProcess,
  warpProcess,
} from '../../cluster/clock-warp.js';
import type { NodeHandle } from '../../cluster/cluster.js';
import { errorMessage } from '../../util/errors.js';
import { sleep } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { leaderUnfit } from '../applicability.js';
import type { NodeFaultContext } from '../context.js';
import { faultKind, nodesHit } from '../kind.js';
import { aboutTtlMs, type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from '../nemesis.js';
import { NODE_AIMS } from '../node-choice.js';
import { chooseNodes, whenAvailable } from '../nodes.js';

export const NODE_CLOCK_MODES = ['forward', 'backward', 'strobe', 'rate'] as const;
export type NodeClockMode = (typeof NODE_CLOCK_MODES)[number];

type ServerTime = NonNullable<BackendCapabilities['serverTime']>;

/** A node's clock minus true time (ms), as read, per node; a node that could not be read: why. */
type ClockReadings = Record<string, number | string>;

/** What the warp does, drawn: always the same draws in the same order, whatever the mode. */
export function drawNodeClock(mode: NodeClockMode, ttlMs: number, rng: Rng) {
  const sizeMs = aboutTtlMs(ttlMs, rng);
  // Fast enough that the offset reaches about a TTL within a few seconds of the fault.
  const rate = Math.round(rng.uniform(0.05, 0.5) * 1000) / 1000;
  const periodMs = Math.round(rng.uniform(50, 250));
  if (mode === 'rate') return { change: { rate } as ClockChange, value: { rate } };
  if (mode === 'strobe') return { change: { offsetMs: sizeMs } as ClockChange, value: { offsetMs: sizeMs, periodMs } };
  const jumpMs = mode === 'backward' ? -sizeMs : sizeMs;
  return { change: { jumpMs } as ClockChange, value: { jumpMs } };
}

export class NodeClockWarp implements Nemesis {
  readonly kind = 'node-clock';
  /** The processes warped by the fault in effect, per node. */
  private warped = new Map<NodeHandle, number[]>();
  private strobing: { stopping: boolean; done: Promise<number> } | undefined;

  constructor(
    private readonly ctx: NodeFaultContext,
    private readonly aim: string,
    private readonly mode: NodeClockMode,
    private readonly serverTime?: ServerTime,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.timing.nemesisIntervalS, rng));
    const { change, value } = drawNodeClock(this.mode, this.ctx.timing.ttlMs, rng);
    const nodes = await chooseNodes(this.ctx, this.aim, rng);
    if (nodes.length === 0) return null;
    const before = await this.readClocks(nodes);
    const notWarped: Record<string, string> = {};
    const pids: Record<string, number[]> = {};
    for (const node of nodes) {
      const found = node.hostPids ? await node.hostPids() : [];
      if (found.length === 0) {
        notWarped[node.name] = node.hostPids
          ? 'its processes are not visible to this runner (another pid namespace, or it is not running)'
          : 'a node reached through a channel: clock-warp runs on the runner’s host only';
        continue;
      }
      const done: number[] = [];
      try {
        for (const pid of found) {
          await warpProcess(this.ctx.runId, pid, change);
          done.push(pid);
        }
      } catch (err) {
        notWarped[node.name] = errorMessage(err);
      }
      if (done.length > 0) {
        this.warped.set(node, done);
        pids[node.name] = done;
      }
    }
    if (this.mode === 'strobe' && this.warped.size > 0) {
      const period = (value as { periodMs: number }).periodMs;
      const state = { stopping: false, done: Promise.resolve(0) };
      state.done = this.strobe(change.offsetMs ?? 0, period, state);
      this.strobing = state;
    }
    // No reading after the warp here: the fault's window opens when start returns, and a
    // lock taken over in between would be blamed on no fault. Its clock during the fault
    // is read at stop, before the true clock is back.
    return {
      value: {
        nodes: nodes.map((n) => n.name),
        mode: this.mode,
        ...value,
        pids,
        clock: { readBy: this.readBy(), before },
        ...(Object.keys(notWarped).length > 0 ? { notWarped } : {}),
      },
      durationMs,
    };
  }

  /** Flips the warped nodes' clocks between `offsetMs` ahead and true time every `periodMs`; how many flips. */
  private async strobe(offsetMs: number, periodMs: number, state: { stopping: boolean }): Promise<number> {
    let flips = 0;
    let ahead = true; // the start put them ahead
    while (!state.stopping) {
      await sleep(periodMs);
      if (state.stopping) break;
      ahead = !ahead;
      for (const pids of this.warped.values()) {
        for (const pid of pids) await changeWarp(pid, { offsetMs: ahead ? offsetMs : 0 }).catch(() => undefined);
      }
      flips++;
    }
    return flips;
  }

  private readBy(): string {
    return this.serverTime?.how ?? "clock-warp's parameters in the process (the backend has no time command)";
  }

  /** Each node's clock minus true time, read from the server where the backend can ask it. */
  private async readClocks(nodes: NodeHandle[]): Promise<ClockReadings> {
    const out: ClockReadings = {};
    for (const node of nodes) {
      try {
        if (this.serverTime) {
          out[node.name] = Math.round((await this.serverTime.offsetMs(node)) * 10) / 10;
        } else {
          const pid = this.warped.get(node)?.[0];
          const state = pid === undefined ? undefined : await readWarp(pid);
          out[node.name] = Math.round((state?.offsetMs?.realtime ?? 0) * 10) / 10;
        }
      } catch (err) {
        out[node.name] = `not read: ${errorMessage(err)}`;
      }
    }
    return out;
  }

  async stop() {
    if (this.warped.size === 0 && !this.strobing) return null;
    const strobing = this.strobing;
    this.strobing = undefined;
    let flips: number | undefined;
    if (strobing) {
      strobing.stopping = true;
      flips = await strobing.done;
    }
    const nodes = [...this.warped.keys()];
    // Before the true clock is back: what the server read during the fault (with a
    // drift, what it came to over the fault).
    const during = await this.readClocks(nodes);
    const problems: string[] = [];
    for (const [node, pids] of this.warped) {
      // A process frozen by another fault cannot be stopped by ptrace until it thaws.
      await whenAvailable(this.ctx, node);
      for (const pid of pids) {
        try {
          await restoreProcess(this.ctx.runId, pid);
        } catch (err) {
          problems.push(`${node.name} process ${pid}: ${errorMessage(err)}`);
        }
      }
    }
    this.warped.clear();
    const after = await this.readClocks(nodes);
    return {
      restored: nodes.map((n) => n.name),
      clock: { readBy: this.readBy(), during, after },
      ...(flips === undefined ? {} : { flips }),
      ...(problems.length > 0 ? { notRestored: problems } : {}),
    };
  }

  async healAll() {
    await this.stop();
  }
}

/** The fault's change in words, from its recorded start. */
function howWords(v: Record<string, unknown>): string[] {
  if (typeof v.jumpMs === 'number') return [`clock ${v.jumpMs >= 0 ? '+' : ''}${v.jumpMs} ms`];
  if (typeof v.rate === 'number') return [`clock rate ×${1 + v.rate}`];
  if (typeof v.offsetMs === 'number') return [`clock strobe +${v.offsetMs} ms`];
  return [];
}

export const nodeClock = faultKind({
  name: 'node-clock',
  aims: NODE_AIMS,
  modes: NODE_CLOCK_MODES,
  notOnTargets:
    "node-clock warps processes of this machine's containers only (clock-warp over a target's channel is not built yet): choose clock (Redis TTLs) or a client-side fault",
  what: "move the real clock a node's server reads (its processes' vDSO clocks, by ptrace): a jump forward or backward, a strobe every 50-250 ms, or rate: running 5-50% fast; true time again at stop",
  fit: (s, backend) => {
    const support = clockWarpSupport();
    if (!support.ok) return { reason: support.why };
    return (
      leaderUnfit(s.aim, backend) ??
      ((ctx) => new NodeClockWarp(ctx, s.aim, s.mode as NodeClockMode, backend.capabilities?.serverTime))
    );
  },
  words: (v) => ({ whom: nodesHit(v), how: howWords(v) }),
});
