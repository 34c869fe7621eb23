/**
 * client-pause: SIGSTOP a client worker process for a while, then SIGCONT: a GC pause, as
 * in Kleppmann's critique of Redlock. It prefers a client that holds the lock right now
 * (a pause of an idle client shows nothing), and pauses for a seeded duration around the
 * TTL, mostly longer, so that the lease expires under the paused holder.
 */
import { sleep } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import { type FaultPlan, type FaultStart, type Nemesis, type NemesisOptions, planned } from './nemesis.js';

/** What client-pause needs from the runner: the workers and who holds the lock now. */
export interface PausableClients {
  /** Client indices whose current process holds a lock (acquire ok, no release yet). */
  holders(): number[];
  pid(client: number): number | undefined;
  /** The client's current history process number. */
  process(client: number): number;
  /** The number of clients. */
  count(): number;
  /** What the client's current grant carried (the acquire's ok value), while it holds. */
  grant(client: number): unknown;
  /**
   * Has the client stop itself at a pause point, and step its own clock by clockStepMs
   * when resumed; false if it did not get there in time.
   */
  armPause(client: number, where: string, timeoutMs: number, clockStepMs?: number): Promise<boolean>;
}

/** Pause lengths as multiples of the TTL. */
export const PAUSE_TTL_FACTOR = { min: 0.8, max: 2.0 };

export class ClientPause implements Nemesis {
  readonly kind: string = 'client-pause';
  private readonly paused = new Set<number>();
  private current: { client: number; pid: number } | undefined;

  constructor(
    protected readonly clients: PausableClients,
    protected readonly opts: NemesisOptions,
    protected readonly waitForHolderMs = 2000,
    /**
     * Absent: pause a client that holds the lock. Given: stop one at this point inside its
     * acquire (the backend's declared inAcquirePausePoint, e.g. Redlock's after the votes).
     */
    private readonly inAcquirePoint?: string,
  ) {}

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
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
    process.kill(pid, 'SIGSTOP');
    this.paused.add(pid);
    this.current = { client, pid };
    return { value: { client, process: this.clients.process(client), pid, ms: durationMs }, durationMs };
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
   * Stops a client at the pause point for durationMs; its clock then steps by clockStepMs.
   * It prefers a client holding the lock now: Redlock has no queue, so the client that
   * just released is the likeliest to win the next votes, and a pause only counts there.
   */
  protected async stopInAcquire(
    rng: Rng,
    point: string,
    durationMs: number,
    clockStepMs: number,
  ): Promise<FaultStart | null> {
    const pickAt = rng.next();
    const holders = this.clients.holders();
    const client =
      holders.length > 0
        ? (holders[Math.floor(pickAt * holders.length)] as number)
        : Math.floor(pickAt * this.clients.count());
    const pid = this.clients.pid(client);
    if (pid === undefined) return null;
    if (!(await this.clients.armPause(client, point, this.waitForHolderMs * 2, clockStepMs))) return null;
    this.paused.add(pid);
    this.current = { client, pid };
    const value = { client, process: this.clients.process(client), pid, at: point, ms: durationMs };
    return { value: clockStepMs === 0 ? value : { ...value, clockStepMs }, durationMs };
  }

  async stop(): Promise<unknown> {
    const c = this.current;
    if (!c) return null;
    this.resume(c.pid);
    this.current = undefined;
    return { client: c.client, pid: c.pid };
  }

  private resume(pid: number) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
    this.paused.delete(pid);
  }

  async healAll(): Promise<void> {
    for (const pid of [...this.paused]) this.resume(pid);
    this.current = undefined;
  }
}

/**
 * client-clock: the client's own clock steps while it is stopped between Redlock's votes
 * and its elapsed-time check, as NTP stepping a wall clock during a GC pause would.
 * backward: the step takes back most of the pause (0.8-1x of it), so the check passes and
 * the client believes in a lock whose keys expired while it was stopped. forward: a short
 * stop and a step past the TTL, so the check refuses a lock that was good (liveness only).
 */
export class ClientClockStep extends ClientPause {
  override readonly kind = 'client-clock';
  constructor(
    clients: PausableClients,
    opts: NemesisOptions,
    private readonly point: string,
    private readonly direction: 'backward' | 'forward',
    waitForClientMs = 2000,
  ) {
    super(clients, opts, waitForClientMs, point);
  }

  override async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const ttl = this.opts.ttlMs;
    if (this.direction === 'forward') {
      return this.stopInAcquire(
        rng,
        this.point,
        planned(plan, Math.round(ttl * rng.uniform(0.05, 0.1))),
        Math.round(ttl * rng.uniform(1.0, 1.5)),
      );
    }
    // The step takes back most of the pause as it is (a planned one, too).
    const durationMs = planned(plan, Math.round(ttl * rng.uniform(1.2, 2.0)));
    return this.stopInAcquire(rng, this.point, durationMs, -Math.round(durationMs * rng.uniform(0.8, 1.0)));
  }
}
