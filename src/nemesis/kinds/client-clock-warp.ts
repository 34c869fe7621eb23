/**
 * client-clock-warp: the real clock a client reads moves (clock-warp on its worker and, when
 * it drives one, its client program: the vDSO clock_gettime, gettimeofday and time,
 * CLOCK_REALTIME and the monotonic clocks), whatever the language, while it runs: a jump
 * forward or backward, a strobe, a drift fast (`rate`) or `slow`. A lock library that
 * times its lease on its own clock (Redlock's validity: TTL - elapsed - drift) believes
 * what that clock says: one that runs slow counts less of its lease as spent than has
 * passed. Clients run on this machine, so it runs with `--target` too. Unlike
 * `client-clock`, which steps a Redlock client's own code clock at one point, every clock
 * the client's processes read moves, for the fault's whole length.
 */
import {
  type ClockChange,
  changeWarp,
  clockWarpSupport,
  readWarp,
  restoreProcesses,
  warpedOffsetMs,
  warpProcesses,
} from '../../cluster/clock-warp.js';
import { errorMessage } from '../../util/errors.js';
import { monotonicNow, NS_PER_MS } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { strobedBetween, type TrueTime, warpedAt } from '../../util/warped-time.js';
import { type ClockStrobe, startClockStrobe } from '../clock-strobe.js';
import { type NemesisClients, untilSomeoneHolds } from '../context.js';
import { clockMode, faultKind, RATE_MODES } from '../kind.js';
import {
  type FaultPlan,
  type FaultStart,
  type FaultTiming,
  faultDurationMs,
  type Nemesis,
  planned,
} from '../nemesis.js';
import { clockChangeWords, drawNodeClock } from './node-clock.js';

export const CLIENT_CLOCK_WARP_MODES = ['forward', 'backward', 'strobe', 'rate', 'slow'] as const;
export type ClientClockWarpMode = (typeof CLIENT_CLOCK_WARP_MODES)[number];

export const CLIENT_CLOCK_WARP_AIMS = ['holder', 'one', 'all'] as const;

/**
 * What the warp does, drawn as node-clock draws it; `slow`: its rate, backwards (the clock
 * runs at 1 - ρ); `givenRate`: a rate=<ρ> mode's ρ (negative: slow), in place of the drawn.
 */
export function drawClientClock(mode: ClientClockWarpMode, ttlMs: number, rng: Rng, givenRate?: number) {
  if (mode !== 'slow') return drawNodeClock(mode, ttlMs, rng, givenRate);
  const fast = drawNodeClock('rate', ttlMs, rng);
  const rate = -(fast.value as { rate: number }).rate;
  return { change: { rate } as ClockChange, value: { rate } };
}

interface WarpedClient {
  client: number;
  process: number;
  pids: number[];
}

export class ClientClockWarp implements Nemesis {
  readonly kind = 'client-clock-warp';
  private warped: WarpedClient[] = [];
  private strobing: ClockStrobe | undefined;

  constructor(
    private readonly runId: string,
    private readonly clients: NemesisClients,
    private readonly timing: FaultTiming,
    private readonly aim: (typeof CLIENT_CLOCK_WARP_AIMS)[number],
    private readonly mode: ClientClockWarpMode,
    /** A rate=<ρ> mode's ρ; undefined: drawn. */
    private readonly givenRate?: number,
  ) {}

  /** The clients the fault moves: a holder (waited for a while), one at random, or all. */
  private async choose(rng: Rng): Promise<number[]> {
    const pick = rng.next(); // drawn whoever is chosen, so the schedule's later numbers stay the same
    const all = Array.from({ length: this.clients.count() }, (_, i) => i);
    if (this.aim === 'all') return all;
    if (this.aim === 'one') return all.length === 0 ? [] : [all[Math.floor(pick * all.length)] as number];
    const holders = await untilSomeoneHolds(this.clients, Date.now() + Math.max(2000, 2 * this.timing.ttlMs));
    return holders.length === 0 ? [] : [holders[Math.floor(pick * holders.length)] as number];
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.timing.nemesisIntervalS, rng));
    const { change, value } = drawClientClock(this.mode, this.timing.ttlMs, rng, this.givenRate);
    const chosen = await this.choose(rng);
    const notWarped: Record<string, string> = {};
    const inEffectFrom = monotonicNow();
    for (const client of chosen) {
      const process = this.clients.process(client);
      // Before its clock moves: what it records from now is put back on true time (runner/restamp.ts).
      this.clients.clockWarped?.(client, true);
      const group = await warpProcesses(this.runId, this.clients.pids(client), change);
      const worker = this.clients.pid(client);
      if (group.warped.length === 0) this.clients.clockWarped?.(client, false);
      else if (worker !== undefined && group.warped.includes(worker)) {
        this.clients.clockWarped?.(client, true, await this.trueTimeOf(worker, change));
      }
      if (group.failed.length > 0)
        notWarped[`process ${process}`] = group.failed.map((f) => `pid ${f.pid}: ${f.why}`).join('; ');
      if (group.warped.length > 0) this.warped.push({ client, process, pids: group.warped });
    }
    if (this.warped.length === 0 && Object.keys(notWarped).length === 0) return null;
    if (this.mode === 'strobe' && this.warped.length > 0) {
      const period = (value as { periodMs: number }).periodMs;
      this.strobing = startClockStrobe(
        () => this.warped.flatMap((w) => w.pids.map((pid) => ({ pid, change: changeWarp }))),
        change.offsetMs ?? 0,
        period,
      );
    }
    return {
      value: {
        clients: this.warped.map(({ client, process, pids }) => ({ client, process, pids })),
        mode: this.mode,
        ...value,
        ...(Object.keys(notWarped).length > 0 ? { notWarped } : {}),
      },
      durationMs,
      inEffectFrom,
    };
  }

  /**
   * How the worker's warped stamps map back to true time: a strobe's two offsets, or the
   * offset and rate read back from the worker itself; undefined when it could not be read
   * (its operations are then stamped as they arrive).
   */
  private async trueTimeOf(worker: number, change: ClockChange): Promise<TrueTime | undefined> {
    if (this.mode === 'strobe') return strobedBetween([(change.offsetMs ?? 0) * NS_PER_MS, 0]);
    try {
      const state = await readWarp(worker);
      // Where the helper read the offset, not when its answer came (its exec, under load,
      // can take 100 ms: ρ times that would be the stamps' error).
      const anchor = state.atMonotonicNs ?? Number(monotonicNow());
      if (!state.offsetMs || state.rate === undefined) return undefined;
      return warpedAt(state.offsetMs.monotonic * NS_PER_MS, state.rate, anchor);
    } catch {
      return undefined;
    }
  }

  /** Each warped client's clock minus true time (ms), as its first process reads it (the helper reads its warp). */
  private async readClocks(): Promise<Record<string, number | string>> {
    const out: Record<string, number | string> = {};
    for (const w of this.warped) {
      try {
        out[`process ${w.process}`] = await warpedOffsetMs(w.pids[0] as number);
      } catch (err) {
        out[`process ${w.process}`] = `not read: ${errorMessage(err)}`;
      }
    }
    return out;
  }

  async stop() {
    if (this.warped.length === 0) return null;
    const strobing = this.strobing;
    this.strobing = undefined;
    const flips = strobing ? await strobing.stop() : undefined;
    // Before the true clock is back: what the clock came to (with a drift, over the fault).
    const during = await this.readClocks();
    const problems: string[] = [];
    for (const w of this.warped) {
      problems.push(...(await restoreProcesses(this.runId, w.pids, (pid) => `process ${w.process} pid ${pid}`)));
    }
    const restored = this.warped.map((w) => w.process);
    for (const w of this.warped) this.clients.clockWarped?.(w.client, false);
    this.warped = [];
    return {
      restored,
      clock: { readBy: "clock-warp's reading of the process's warp", during },
      ...(flips === undefined ? {} : { flips }),
      ...(problems.length > 0 ? { notRestored: problems } : {}),
    };
  }

  async healAll() {
    await this.stop();
  }
}

/** The clients a fault moved, as words. */
function whom(v: Record<string, unknown>): string | undefined {
  if (!Array.isArray(v.clients)) return undefined;
  const processes = v.clients.map((c: { process?: unknown }) => c?.process).filter((p) => typeof p === 'number');
  return processes.length === 0 ? undefined : `process ${processes.join(', ')}`;
}

export const clientClockWarp = faultKind({
  name: 'client-clock-warp',
  aims: CLIENT_CLOCK_WARP_AIMS,
  modes: CLIENT_CLOCK_WARP_MODES,
  moreModes: RATE_MODES,
  what: "move the real clock a client reads (its worker's and its client program's vDSO clocks, by ptrace, any language): holder (a client that holds the lock), one or all; a jump forward or backward, a strobe every 50-250 ms, rate: running 5-50% fast, or slow: 5-50% slow (rate=<ρ>: at 1 + ρ, ρ from -0.9 to 10, negative: slow); true time again at stop",
  fit: (s) => {
    const support = clockWarpSupport();
    if (!support.ok) return { reason: support.why };
    const aim = s.aim as (typeof CLIENT_CLOCK_WARP_AIMS)[number];
    const { mode, rate } = clockMode<ClientClockWarpMode>(s, 'forward');
    return (ctx) => new ClientClockWarp(ctx.runId, ctx.clients, ctx.timing, aim, mode, rate);
  },
  words: (v) => ({ whom: whom(v), how: clockChangeWords(v) }),
});
