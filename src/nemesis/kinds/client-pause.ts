/**
 * client-pause: SIGSTOP a client worker process for a while, then SIGCONT: a GC pause, as
 * in Kleppmann's critique of Redlock. It prefers a client that holds the lock right now
 * (a pause of an idle client shows nothing), and pauses for a seeded duration around the
 * TTL, mostly longer, so that the lease expires under the paused holder.
 */
import { sleep } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { missing } from '../applicability.js';
import {
  type CaughtAtPoint,
  type ClientFaultTarget,
  signalAll,
  stoppedProcesses,
  untilHandedOver,
} from '../context.js';
import { faultKind } from '../kind.js';
import { type FaultPlan, type FaultStart, type FaultTiming, type Nemesis, planned } from '../nemesis.js';

/** Pause lengths as multiples of the TTL. */
export const PAUSE_TTL_FACTOR = { min: 0.8, max: 2.0 };

export class ClientPause implements Nemesis {
  readonly kind: string = 'client-pause';
  /** The processes of each paused client, by their worker's pid. */
  private readonly paused = new Map<number, number[]>();
  private current: { client: number; pid: number } | undefined;

  constructor(
    protected readonly clients: ClientFaultTarget,
    protected readonly opts: FaultTiming,
    protected readonly waitForHolderMs = 2000,
    /**
     * Absent: pause a client that holds the lock. Given: stop one at this point inside its
     * acquire (the backend's declared inAcquirePausePoint, e.g. Redlock's after the votes).
     */
    private readonly inAcquirePoint?: string,
    /** Given: stop the first client to reach this named code point (client-pause:at=NAME). */
    private readonly atPoint?: string,
  ) {}

  /** The client stopped at a code point, while it is. */
  private atCaught?: CaughtAtPoint & { process: number; until?: string };

  /**
   * Stops the first client that reaches the code point, until another client holds the
   * lock (the lease it had has lapsed and the lock changed hands: the moment a stale
   * holder goes on) or the drawn length (1.2-2x the TTL, or --pause-ttl) is spent, whichever
   * comes first: aimed at the state, so the story plays out whatever the machine's speed.
   */
  private async startAtPoint(rng: Rng, point: string, plan?: FaultPlan): Promise<FaultStart | null> {
    const drawn = rng.uniform(1.2, 2.0);
    const durationMs = planned(plan, Math.round(this.opts.ttlMs * (this.opts.pauseTtl ?? drawn)));
    const caught = await this.catchAt(point, Math.max(4000, 2 * this.opts.ttlMs), durationMs);
    if (!caught) return null;
    const c = caught.held;
    void untilHandedOver(this.clients, c.client, Date.now() + durationMs, () => this.atCaught !== c).then((why) => {
      if (why === undefined) return;
      c.until = why;
      c.resume();
    });
    return { value: caught.value, durationMs };
  }

  /** The first client at `point`, stopped and kept as atCaught, with its record's value. */
  private async catchAt(point: string, timeoutMs: number, durationMs: number, clockStepMs?: number) {
    const caught = await this.clients.catchAtPoint(point, timeoutMs, clockStepMs);
    if (!caught) return undefined;
    const held = { ...caught, process: this.clients.process(caught.client) } as NonNullable<typeof this.atCaught>;
    this.atCaught = held;
    const value = {
      client: held.client,
      process: held.process,
      ...stoppedProcesses(held.pids),
      at: point,
      ms: durationMs,
    };
    return { held, value };
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    if (this.atPoint !== undefined) return this.startAtPoint(rng, this.atPoint, plan);
    if (this.inAcquirePoint !== undefined) return this.startInAcquire(rng, this.inAcquirePoint, plan);
    // Draw the duration first, so the schedule's numbers do not depend on who held (a
    // fixed ratio draws too, so that the rest of the schedule is the same).
    const drawn = rng.uniform(PAUSE_TTL_FACTOR.min, PAUSE_TTL_FACTOR.max);
    const durationMs = planned(plan, Math.round(this.opts.ttlMs * (this.opts.pauseTtl ?? drawn)));
    const pickAt = rng.next();
    let holders = this.clients.holders();
    for (let waited = 0; holders.length === 0 && waited < this.waitForHolderMs; waited += 5) {
      await sleep(5);
      holders = this.clients.holders();
    }
    if (holders.length === 0) return null;
    const client = holders[Math.floor(pickAt * holders.length)] as number;
    const pid = this.clients.pid(client);
    if (pid === undefined) return null;
    // A client whose processes have all exited (its worker lost) is not paused: no record of one.
    const pids = signalAll(this.clients.pids(client), 'SIGSTOP');
    if (pids.length === 0) return null;
    this.paused.set(pid, pids);
    this.current = { client, pid };
    const program = this.clients.program?.(client);
    const of = program ? { programPid: program.pid, programGroup: program.pgid } : {};
    return { value: { client, process: this.clients.process(client), pid, ...of, ms: durationMs }, durationMs };
  }

  /**
   * Pauses a client between Redlock's votes and its elapsed-time check, for longer than the
   * TTL: the check must then refuse the lock (the pause is counted in `elapsed`).
   */
  private async startInAcquire(rng: Rng, point: string, plan?: FaultPlan): Promise<FaultStart | null> {
    const drawn = rng.uniform(1.2, 2.0);
    return this.stopInAcquire(
      rng,
      point,
      planned(plan, Math.round(this.opts.ttlMs * (this.opts.pauseTtl ?? drawn))),
      0,
    );
  }

  /**
   * Stops the first client to reach the pause point (any client: Redlock has no queue, so
   * whichever wins the votes next) for durationMs; when it goes on, its own clock has
   * stepped by clockStepMs. Aimed at the point, not at a client: one picked in advance may
   * lose every vote for as long as the fault waits.
   */
  protected async stopInAcquire(
    rng: Rng,
    point: string,
    durationMs: number,
    clockStepMs: number,
  ): Promise<FaultStart | null> {
    rng.next(); // the draw that once picked the client: the schedule's later numbers stay as they were
    const step = clockStepMs === 0 ? undefined : clockStepMs;
    const caught = await this.catchAt(point, Math.max(2 * this.waitForHolderMs, 2 * this.opts.ttlMs), durationMs, step);
    if (!caught) return null;
    return { value: step === undefined ? caught.value : { ...caught.value, clockStepMs: step }, durationMs };
  }

  async stop(): Promise<unknown> {
    const caught = this.atCaught;
    if (caught) {
      caught.resume();
      this.atCaught = undefined;
      return caught.until === undefined && this.inAcquirePoint !== undefined
        ? { client: caught.client, process: caught.process }
        : { client: caught.client, until: caught.until ?? 'the fault ended' };
    }
    const c = this.current;
    if (!c) return null;
    this.resume(c.pid);
    this.current = undefined;
    return { client: c.client, pid: c.pid };
  }

  private resume(pid: number) {
    signalAll(this.paused.get(pid) ?? [pid], 'SIGCONT');
    this.paused.delete(pid);
  }

  async healAll(): Promise<void> {
    this.atCaught?.resume();
    this.atCaught = undefined;
    for (const pid of [...this.paused.keys()]) this.resume(pid);
    this.current = undefined;
  }
}

/** A fault on a client, in words: the history process it stopped (the client, in older records). */
export const clientWords = (v: Record<string, unknown>) => ({
  whom:
    typeof v.process === 'number'
      ? `process ${v.process}`
      : typeof v.client === 'number'
        ? `client ${v.client}`
        : undefined,
});

export const clientPause = faultKind({
  name: 'client-pause',
  targets: ['holder', 'in-acquire'],
  moreTargets: {
    form: 'at=<point>',
    test: (t) => /^at=[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(t),
  },
  what: "SIGSTOP a client worker that holds the lock, for 0.8-2x the TTL; in-acquire: inside Redlock's acquire, after it won a majority of votes; at=<point>: the first client at a code point (after-grant, before-release, in-extend, or a client program's own), until another client holds the lock",
  fit: (s, backend) => {
    if (s.target.startsWith('at=')) {
      const at = s.target.slice('at='.length);
      return (ctx) => new ClientPause(ctx.clients, ctx.timing, 2000, undefined, at);
    }
    const point = s.target === 'in-acquire' ? backend.capabilities?.inAcquirePausePoint : undefined;
    if (s.target === 'in-acquire' && point === undefined) return missing('inAcquirePausePoint');
    return (ctx) => new ClientPause(ctx.clients, ctx.timing, 2000, point);
  },
  words: clientWords,
});
