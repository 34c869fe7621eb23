/**
 * client-pause: SIGSTOP a client worker process for a while, then SIGCONT: a GC pause, as
 * in Kleppmann's critique of Redlock. It stops a client that holds the lock: the next one
 * to begin its hold, at the standard point in-hold (lock-set: read, not yet written). A
 * pause of an idle client shows nothing, and one aimed at whoever held a moment ago lands,
 * on a busy machine, as often as not after its release was sent. It pauses for a seeded
 * duration around the TTL, mostly longer, so that the lease expires under the paused holder.
 */
import type { Rng } from '../../util/rng.js';
import { missing } from '../applicability.js';
import { type CaughtAtPoint, type NemesisClients, stoppedProcesses, untilHandedOver } from '../context.js';
import { type AimedPoint, type FaultSpec, faultKind } from '../kind.js';
import { type FaultPlan, type FaultStart, type FaultTiming, type Nemesis, planned } from '../nemesis.js';

/** Pause lengths as multiples of the TTL. */
export const PAUSE_TTL_FACTOR = { min: 0.8, max: 2.0 };

/** The standard point where a holder pause stops its client: its hold begins (workloads/workload.ts STANDARD_POINTS). */
export const HOLDER_POINT = 'in-hold';

/** A client stopped at a code point, as the fault keeps it: its process number, its worker's pid, and why it was let go. */
interface HeldAtPoint extends CaughtAtPoint {
  process: number;
  worker: number;
  until?: string;
  /** When it was caught, and let go (Date.now()): how long it was held there. */
  caughtAt: number;
  releasedAt?: number;
}

export class ClientPause implements Nemesis {
  readonly kind: string = 'client-pause';

  constructor(
    protected readonly clients: NemesisClients,
    protected readonly opts: FaultTiming,
    /** How long a fault waits for a client to reach its point (doubled, at least 2 TTLs). */
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
  private atCaught?: HeldAtPoint;

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
      c.releasedAt = Date.now();
      c.resume();
    });
    return { value: caught.value, durationMs };
  }

  /**
   * The first client at `point`, stopped and kept as atCaught, with its record's value: its
   * worker's pid and, when it drives one, its program's. A client whose worker could not be
   * stopped (it had exited) is let go: no record of a pause.
   */
  private async catchAt(point: string, timeoutMs: number, durationMs: number, clockStepMs?: number) {
    const caught = await this.clients.catchAtPoint(point, timeoutMs, clockStepMs);
    if (!caught) return undefined;
    const worker = this.clients.pid(caught.client);
    if (worker === undefined || !caught.pids.includes(worker)) {
      caught.resume();
      return undefined;
    }
    const held: HeldAtPoint = { ...caught, process: this.clients.process(caught.client), worker, caughtAt: Date.now() };
    this.atCaught = held;
    const program = this.clients.program?.(held.client);
    const value = {
      client: held.client,
      process: held.process,
      ...stoppedProcesses(held.pids, worker),
      ...(program ? { programPid: program.pid, programGroup: program.pgid } : {}),
      at: point,
      ms: durationMs,
    };
    return { held, value };
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    if (this.atPoint !== undefined) return this.startAtPoint(rng, this.atPoint, plan);
    if (this.inAcquirePoint !== undefined) return this.startInAcquire(rng, this.inAcquirePoint, plan);
    return this.startInHold(rng, plan);
  }

  /**
   * Stops the next client to begin its hold (the standard point in-hold), for the drawn
   * length: a holder for certain, whatever the machine's speed. Picking whoever held a
   * moment before, a SIGSTOP that reached it 60 ms later under load found it releasing
   * (a hold of 100 ms): a paused releaser, whose lease lapsing shows nothing (a CI run of
   * etcd3-lock-gc-pause, 12 s, whose pauses all missed so).
   */
  private async startInHold(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    // Draw the duration first, so the schedule's numbers do not depend on who held (a
    // fixed ratio draws too, so that the rest of the schedule is the same).
    const drawn = rng.uniform(PAUSE_TTL_FACTOR.min, PAUSE_TTL_FACTOR.max);
    const durationMs = planned(plan, Math.round(this.opts.ttlMs * (this.opts.pauseTtl ?? drawn)));
    rng.next(); // the draw that once picked among the holders: the schedule's later numbers stay as they were
    const caught = await this.catchAt(
      HOLDER_POINT,
      Math.max(2 * this.waitForHolderMs, 2 * this.opts.ttlMs),
      durationMs,
    );
    return caught ? { value: caught.value, durationMs } : null;
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
    if (!caught) return null;
    caught.resume();
    this.atCaught = undefined;
    if (this.atPoint !== undefined) {
      const heldMs = (caught.releasedAt ?? Date.now()) - caught.caughtAt;
      return { client: caught.client, until: caught.until ?? 'the fault ended', heldMs };
    }
    if (this.inAcquirePoint !== undefined) return { client: caught.client, process: caught.process };
    return { client: caught.client, pid: caught.worker };
  }

  async healAll(): Promise<void> {
    this.atCaught?.resume();
    this.atCaught = undefined;
  }
}

/**
 * Where a fault on a client aims (client-pause, client-kill): the point named by `at=`, or
 * a holder, caught where its hold begins (HOLDER_POINT: a run where it never hit there is
 * not unknown for it, so its row does not count).
 */
export const atClient = (s: FaultSpec): AimedPoint | undefined =>
  s.aim.startsWith('at=')
    ? { point: s.aim.slice('at='.length) }
    : s.aim === 'holder'
      ? { point: HOLDER_POINT, counts: false }
      : undefined;

/** Where a fault inside the backend's acquire aims (client-pause:in-acquire, client-clock): the backend's point. */
export const atInAcquire = (inAcquirePoint: string | undefined): AimedPoint | undefined =>
  inAcquirePoint === undefined ? undefined : { point: inAcquirePoint };

/** A fault on a client, in words: the history process it stopped (the client, in older records). */
export const clientWords = (v: Record<string, unknown>) => ({
  whom:
    typeof v.process === 'number'
      ? `process ${v.process}`
      : typeof v.client === 'number'
        ? `client ${v.client}`
        : undefined,
});

/** A fault aimed at a code point, in words: whom, and the point it caught them at (`at in-extend`). */
export const atPointWords = (v: Record<string, unknown>) => ({
  ...clientWords(v),
  how: typeof v.at === 'string' ? [`at ${v.at}`] : [],
});

export const clientPause = faultKind({
  name: 'client-pause',
  aims: ['holder', 'in-acquire'],
  moreAims: {
    form: 'at=<point>',
    test: (t) => /^at=[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(t),
  },
  what: "SIGSTOP a client that holds the lock (its worker and program), the next to begin its hold (in-hold), for 0.8-2x the TTL; in-acquire: inside Redlock's acquire, after it won a majority of votes; at=<point>: the first client at a code point (after-grant, in-hold, before-release, in-extend, or a client program's own), until another client holds the lock",
  fit: (s, backend) => {
    if (s.aim.startsWith('at=')) {
      const at = s.aim.slice('at='.length);
      return (ctx) => new ClientPause(ctx.clients, ctx.timing, 2000, undefined, at);
    }
    const point = s.aim === 'in-acquire' ? backend.capabilities?.inAcquirePausePoint : undefined;
    if (s.aim === 'in-acquire' && point === undefined) return missing('inAcquirePausePoint');
    return (ctx) => new ClientPause(ctx.clients, ctx.timing, 2000, point);
  },
  aimsAt: (s, inAcquirePoint) => (s.aim === 'in-acquire' ? atInAcquire(inAcquirePoint) : atClient(s)),
  words: atPointWords,
});
