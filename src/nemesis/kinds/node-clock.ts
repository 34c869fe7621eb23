/**
 * node-clock: the real clock a node's server reads moves (clock-warp: its processes'
 * vDSO clock_gettime, gettimeofday and time, CLOCK_REALTIME and the monotonic clocks), on
 * any backend, while it runs: a jump forward or backward, a strobe, or a drift (`rate`:
 * the clock runs at 1 + ρ, so its offset grows through the fault). Unlike `clock`, which
 * shifts Redis TTLs to the same effect on expiry, every clock the server reads moves: its
 * expiry, its leases, its timeouts. The record says what the server's clock read back,
 * before (the start's record), during and after (the stop's: read at its end, before and
 * after the true clock is back), where the backend can ask it (Redis TIME). At stop the true clock
 * is put back (a jump of its own, as an NTP step back to true time would be). A node's
 * processes are warped where its ClockWarper says: this machine's helper on a container's
 * host pids, or a host's own helper over its SSH channel.
 */
import type { BackendCapabilities } from '../../backends/backend.js';
import {
  type ClockChange,
  type ClockWarper,
  clockWarpSupport,
  localClockWarper,
  realtimeOffsetMs,
  restoreProcesses,
} from '../../cluster/clock-warp.js';
import type { NodeHandle } from '../../cluster/cluster.js';
import { errorMessage } from '../../util/errors.js';
import { monotonicNow } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { leaderUnfit, missing } from '../applicability.js';
import { bareMajorityGrant, bridgeAtItsMoment, type HeldGrant } from '../bridge.js';
import { type ClockStrobe, startClockStrobe } from '../clock-strobe.js';
import type { NemesisClients, NodeFaultContext } from '../context.js';
import { KeptHolder } from '../kept-holder.js';
import { clockMode, faultKind, heldWords, modeRate, nodesHit, RATE_MODES } from '../kind.js';
import { aboutTtlMs, type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from '../nemesis.js';
import { NODE_AIMS } from '../node-choice.js';
import { chooseNodes, whenAvailable } from '../nodes.js';

export const NODE_CLOCK_MODES = ['forward', 'backward', 'strobe', 'rate', 'while-held'] as const;
export type NodeClockMode = (typeof NODE_CLOCK_MODES)[number];

type ServerTime = NonNullable<BackendCapabilities['serverTime']>;

/** A node's clock minus true time (ms), as read, per node; a node that could not be read: why. */
type ClockReadings = Record<string, number | string>;

/** How a node's processes' clocks are warped: its own way (a host's, over its channel), or here by its host pids; none: not at all. */
export function warperOf(node: NodeHandle): ClockWarper | undefined {
  if (node.clockWarp) return node.clockWarp;
  const hostPids = node.hostPids?.bind(node);
  return hostPids ? localClockWarper(hostPids) : undefined;
}

/**
 * What the warp does, drawn: always the same draws in the same order, whatever the mode;
 * `givenRate`: a rate mode's ρ as the spec gave it (rate=<ρ>), in place of the drawn one.
 */
export function drawNodeClock(mode: NodeClockMode, ttlMs: number, rng: Rng, givenRate?: number) {
  const sizeMs = aboutTtlMs(ttlMs, rng);
  // Fast enough that the offset reaches about a TTL within a few seconds of the fault.
  const drawnRate = Math.round(rng.uniform(0.05, 0.5) * 1000) / 1000;
  const rate = givenRate ?? drawnRate;
  const periodMs = Math.round(rng.uniform(50, 250));
  // While held: past the held key's whole lease, so that the server expires it whatever
  // of its TTL was left (the holder, stopped, still holds by its own clock).
  const heldJumpMs = Math.round(ttlMs * rng.uniform(1.1, 1.5));
  if (mode === 'rate') return { change: { rate } as ClockChange, value: { rate } };
  if (mode === 'strobe') return { change: { offsetMs: sizeMs } as ClockChange, value: { offsetMs: sizeMs, periodMs } };
  if (mode === 'while-held') return { change: { jumpMs: heldJumpMs } as ClockChange, value: { jumpMs: heldJumpMs } };
  const jumpMs = mode === 'backward' ? -sizeMs : sizeMs;
  return { change: { jumpMs } as ClockChange, value: { jumpMs } };
}

export class NodeClockWarp implements Nemesis {
  readonly kind = 'node-clock';
  /** The processes warped by the fault in effect, per node, and where their clocks are warped. */
  private warped = new Map<NodeHandle, { warper: ClockWarper; pids: number[] }>();
  private strobing: ClockStrobe | undefined;
  /** While-held mode: the holder kept in its hold while its server's clock is ahead (kept-holder.ts). */
  private readonly holder?: KeptHolder;

  constructor(
    private readonly ctx: NodeFaultContext,
    private readonly aim: string,
    private readonly mode: NodeClockMode,
    private readonly serverTime?: ServerTime,
    whileHeld?: NemesisClients,
    /** The bridge aim: a grant of a bare majority held now (bridge.ts). */
    private readonly bridgeGrant: () => HeldGrant | undefined = () => undefined,
    /** A rate mode's ρ as given (rate=<ρ>); undefined: drawn. */
    private readonly givenRate?: number,
  ) {
    if (mode === 'while-held' && whileHeld) this.holder = new KeptHolder(whileHeld, ctx.timing.ttlMs);
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    // A drift moves a lease's end by its whole ρ only if it lasts the lease: a rate lasts a
    // TTL at least (a key set as it begins lives all its life on the drifting clock).
    const drawnMs = planned(plan, faultDurationMs(this.ctx.timing.nemesisIntervalS, rng));
    const durationMs = this.mode === 'rate' ? Math.max(drawnMs, this.ctx.timing.ttlMs) : drawnMs;
    // On the bridge a jump goes past the whole lease, as a held one does: its point is to
    // expire the key that completes the holder's majority.
    const onBridge = this.aim === 'bridge';
    const { change, value } = drawNodeClock(
      onBridge && this.mode === 'forward' ? 'while-held' : this.mode,
      this.ctx.timing.ttlMs,
      rng,
      this.givenRate,
    );
    // A drift on the bridge begins as a bare majority is granted: a tenth of a TTL later at most.
    const freshWithinMs = this.mode === 'rate' ? this.ctx.timing.ttlMs / 10 : undefined;
    const bridge = onBridge ? await bridgeAtItsMoment(this.ctx, this.bridgeGrant, freshWithinMs) : undefined;
    const nodes = bridge ? bridge.nodes : await chooseNodes(this.ctx, this.aim, rng);
    if (nodes.length === 0) return null;
    const before = await this.readClocks(nodes);
    // Stopped before the jump, so that it still holds when its key expires by the server's clock.
    const kept = this.holder ? await this.holder.keep(rng) : undefined;
    if (this.holder && !kept) return null;
    const inEffectFrom = monotonicNow();
    const notWarped: Record<string, string> = {};
    const pids: Record<string, number[]> = {};
    for (const node of nodes) {
      const warper = warperOf(node);
      const found = warper ? await warper.pids() : [];
      if (!warper || found.length === 0) {
        notWarped[node.name] = warper
          ? warper.noneFound
          : 'a node with no control channel: nothing reaches its processes';
        continue;
      }
      const group = await warper.warp(this.ctx.runId, found, change);
      if (group.failed.length > 0) {
        notWarped[node.name] = group.failed.map((f) => `process ${f.pid}: ${f.why}`).join('; ');
      }
      if (group.warped.length > 0) {
        this.warped.set(node, { warper, pids: group.warped });
        pids[node.name] = group.warped;
      }
    }
    if (this.mode === 'strobe' && this.warped.size > 0) {
      const period = (value as { periodMs: number }).periodMs;
      const strobed = () =>
        [...this.warped.values()].flatMap(({ warper, pids }) =>
          pids.map((pid) => ({ pid, change: (p: number, c: ClockChange) => warper.change(p, c) })),
        );
      this.strobing = startClockStrobe(strobed, change.offsetMs ?? 0, period);
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
        ...(kept ? { holder: kept } : {}),
        ...(bridge ? { bareMajorityHeld: bridge.bareMajorityHeld } : {}),
        ...(bridge?.grantAgeMs !== undefined ? { grantAgeMs: bridge.grantAgeMs } : {}),
      },
      durationMs,
      inEffectFrom,
    };
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
          const warped = this.warped.get(node);
          const pid = warped?.pids[0];
          out[node.name] = pid === undefined || !warped ? 0 : realtimeOffsetMs(await warped.warper.read(pid));
        }
      } catch (err) {
        out[node.name] = `not read: ${errorMessage(err)}`;
      }
    }
    return out;
  }

  async stop() {
    // The holder still holds: resumed once another client holds too (or its lease share is spent).
    const holder = await this.holder?.release();
    if (this.warped.size === 0 && !this.strobing) return holder ? { holder } : null;
    const strobing = this.strobing;
    this.strobing = undefined;
    const flips = strobing ? await strobing.stop() : undefined;
    const nodes = [...this.warped.keys()];
    // Before the true clock is back: what the server read during the fault (with a
    // drift, what it came to over the fault).
    const during = await this.readClocks(nodes);
    const problems: string[] = [];
    const inherited: Record<string, number[]> = {};
    for (const [node, { warper, pids }] of this.warped) {
      // A process frozen by another fault cannot be stopped by ptrace until it thaws.
      await whenAvailable(this.ctx, node);
      problems.push(
        ...(await restoreProcesses(
          this.ctx.runId,
          pids,
          (pid) => `${node.name} process ${pid}`,
          (run, pid) => warper.restore(run, pid),
        )),
      );
      // A process the warped ones started during the fault (PostgreSQL forks a backend per
      // session) was born with their clock: it is put back too.
      const born = await this.restoreBorn(node, warper, pids, problems);
      if (born.length > 0) inherited[node.name] = born;
    }
    this.warped.clear();
    const after = await this.readClocks(nodes);
    return {
      restored: nodes.map((n) => n.name),
      clock: { readBy: this.readBy(), during, after },
      ...(Object.keys(inherited).length > 0 ? { inherited } : {}),
      ...(flips === undefined ? {} : { flips }),
      ...(problems.length > 0 ? { notRestored: problems } : {}),
      ...(holder ? { holder } : {}),
    };
  }

  /** Restores the node's processes not warped by the fault that read as warped: those born of a warped one. */
  private async restoreBorn(
    node: NodeHandle,
    warper: ClockWarper,
    warped: number[],
    problems: string[],
  ): Promise<number[]> {
    const found = await warper.born(warped).catch(() => []);
    const born: number[] = [];
    for (const pid of found) {
      try {
        if (!(await warper.read(pid)).warped) continue;
        await warper.restore(this.ctx.runId, pid);
        born.push(pid);
      } catch (err) {
        // one that ended in between has nothing left to restore
        if (await warper.alive(pid)) problems.push(`${node.name} process ${pid}: ${errorMessage(err)}`);
      }
    }
    return born;
  }

  async healAll() {
    try {
      await this.stop();
    } finally {
      this.holder?.resume();
    }
  }
}

/** A clock warp's change in words, from its recorded start (node-clock's, client-clock-warp's). */
export function clockChangeWords(v: Record<string, unknown>): string[] {
  if (typeof v.jumpMs === 'number') return [`clock ${v.jumpMs >= 0 ? '+' : ''}${v.jumpMs} ms`];
  if (typeof v.rate === 'number') return [`clock rate ×${Math.round((1 + v.rate) * 1000) / 1000}`];
  if (typeof v.offsetMs === 'number') return [`clock strobe +${v.offsetMs} ms`];
  return [];
}

export const nodeClock = faultKind({
  name: 'node-clock',
  aims: [...NODE_AIMS, 'bridge'],
  modes: NODE_CLOCK_MODES,
  moreModes: RATE_MODES,
  refuse: (s) =>
    s.aim === 'bridge' && s.mode !== 'forward' && s.mode !== 'rate' && !((modeRate(s) ?? 0) > 0)
      ? 'node-clock:bridge moves the shared master’s clock ahead, by a jump or a drift (its point is to expire the shared key): use node-clock:bridge, node-clock:bridge:rate or node-clock:bridge:rate=<ρ> (ρ > 0)'
      : undefined,
  // On a host over SSH its helper runs there; a container of this engine is warped from here.
  nodeNeeds: () => ['process', 'clock'] as const,
  what: "move the real clock a node's server reads (its processes' vDSO clocks, by ptrace): a jump forward or backward, a strobe every 50-250 ms, or rate: running 5-50% fast (rate=<ρ>: at 1 + ρ, ρ from -0.9 to 10); bridge: the master a clients-majorities split shares, while a bare majority is held (forward: past the lease, or rate); while-held: a jump forward past the lease while a client holds the lock, kept holding until another client holds it too; true time again at stop",
  fit: (s, backend, _lockNodes, viaChannels) => {
    // Nodes reached through channels are checked by theirs (nodeNeeds' 'clock').
    const support = viaChannels ? { ok: true as const } : clockWarpSupport();
    if (!support.ok) return { reason: support.why };
    const quorum = backend.capabilities?.quorum;
    if (s.aim === 'bridge' && !quorum) return missing('quorum');
    const { mode, rate } = clockMode<NodeClockMode>(s, 'forward');
    return (
      leaderUnfit(s.aim, backend) ??
      ((ctx) =>
        new NodeClockWarp(
          ctx,
          s.aim,
          mode,
          backend.capabilities?.serverTime,
          ctx.clients,
          bareMajorityGrant(ctx, quorum),
          rate,
        ))
    );
  },
  words: (v) => ({ whom: nodesHit(v), how: [...clockChangeWords(v), ...heldWords(v)] }),
});
