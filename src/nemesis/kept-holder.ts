/**
 * A holder kept in its hold while a node fault is in effect (`kill-node:<aim>:while-held`,
 * `pause-node:<aim>:while-held`): the fault waits for a client that holds the lock,
 * stops it (SIGSTOP) so that it is still holding when the node comes back, and resumes it
 * once another client holds the lock too, or when its lease is nearly spent.
 *
 * Why: a story such as "the node restarts empty while the lock is held" must not depend on
 * how fast this machine restarts a container (on a loaded runner a restart took 2.6 s, and
 * a 5 s hold ended before the node came back). The stop never outlives the holder's lease
 * (LEASE_SHARE of the TTL from its grant), so a lock that keeps its promise keeps every
 * other client out for all of it: an overlap is the lock's doing, not the stop's.
 *
 * At a code point (`pause-node:<aim>:at=<point>`): the first client to reach the point
 * is stopped there instead (it may hold the lock or not), and kept so for as long.
 */
import type { Rng } from '../util/rng.js';
import { type NemesisClients, signalAll, untilHandedOver, untilSomeoneHolds } from './context.js';

/** How much of the holder's lease, from its grant, it may spend stopped. */
export const LEASE_SHARE = 0.8;

export interface KeptHolderRecord {
  client: number;
  process: number;
  /** The code point it was kept at, when the fault aimed at one. */
  at?: string;
}

export class KeptHolder {
  private kept?: {
    client: number;
    pids: number[];
    process: number;
    at: number;
    until: number;
    /** How it goes on: SIGCONT, or the point's go. */
    resume: () => void;
    /** Settles when it went on: another client held the lock, or its lease share was spent. */
    let?: Promise<{ anotherHeld: boolean; wentOnAt: number }>;
    /** Resumed already (a point's go is given once). */
    wentOn?: true;
  };

  constructor(
    private readonly clients: NemesisClients,
    private readonly ttlMs: number,
    /** How long to wait for a holder before the fault is skipped (nothing to aim at). */
    private readonly waitForHolderMs = 5000,
    /** Given: keep the first client at this code point instead of a holder. */
    private readonly atPoint?: string,
  ) {}

  /** Stops a client that holds the lock now (waiting for one a while); undefined: none held. */
  async keep(rng: Rng): Promise<KeptHolderRecord | undefined> {
    const pickAt = rng.next();
    if (this.atPoint !== undefined) return this.keepAtPoint(this.atPoint);
    const holders = await untilSomeoneHolds(this.clients, Date.now() + this.waitForHolderMs);
    const client = holders[Math.floor(pickAt * holders.length)];
    if (client === undefined) return undefined;
    const at = Date.now();
    const grantedAt = this.clients.grantedAt(client) ?? at;
    // Only a holder that was really stopped is kept (its processes may have exited).
    const pids = signalAll(this.clients.pids(client), 'SIGSTOP');
    if (pids.length === 0) return undefined;
    const record = { client, process: this.clients.process(client) };
    const resume = () => signalAll(pids, 'SIGCONT');
    this.hold({ ...record, pids, at, until: grantedAt + LEASE_SHARE * this.ttlMs, resume });
    return record;
  }

  /**
   * Keeps `kept` until another client holds the lock too, or its lease share is spent,
   * whichever comes first, whether the fault is still in effect or not: a node out longer
   * than the lease (a restart slower than it) does not keep it past its lease, or the
   * overlap after would be the stop's doing, not the lock's. resume() (the heal) lets it
   * go sooner.
   */
  private hold(kept: NonNullable<KeptHolder['kept']>): void {
    this.kept = kept;
    const gone = () => this.kept !== kept;
    kept.let = untilHandedOver(this.clients, kept.client, kept.until, gone).then((handOver) => {
      if (handOver !== undefined) goOn(kept);
      return { anotherHeld: handOver !== undefined && handOver !== 'its length was spent', wentOnAt: Date.now() };
    });
  }

  /**
   * Stops the first client at `point` (waiting as a client pause at a point waits), kept no
   * longer than LEASE_SHARE of a lease from its grant, or from now when it holds none.
   */
  private async keepAtPoint(point: string): Promise<KeptHolderRecord | undefined> {
    const caught = await this.clients.catchAtPoint(point, Math.max(4000, 2 * this.ttlMs));
    if (!caught) return undefined;
    const at = Date.now();
    const { client } = caught;
    const grantedAt = this.clients.holders().includes(client) ? (this.clients.grantedAt(client) ?? at) : at;
    const record = { client, process: this.clients.process(client), at: point };
    this.hold({
      client,
      process: record.process,
      pids: caught.pids,
      at,
      until: grantedAt + LEASE_SHARE * this.ttlMs,
      resume: () => caught.resume(),
    });
    return record;
  }

  /**
   * Waits until the kept holder went on (another client held the lock, or its lease share
   * was spent: hold()); what happened, for the fault's stop record.
   */
  async release(): Promise<{ client: number; anotherHeld: boolean; keptMs: number } | undefined> {
    const kept = this.kept;
    if (!kept?.let) return undefined;
    const { anotherHeld, wentOnAt } = await kept.let;
    this.kept = undefined;
    return { client: kept.client, anotherHeld, keptMs: wentOnAt - kept.at };
  }

  /** Resumes the kept holder now, if it has not gone on yet (the heal at the end; idempotent). */
  resume(): void {
    const kept = this.kept;
    this.kept = undefined;
    // Its watch (hold()) sees it gone and resumes nothing more.
    if (kept) goOn(kept);
  }
}

/** Lets a kept client go on, once. */
function goOn(kept: { resume: () => void; wentOn?: true }): void {
  if (kept.wentOn) return;
  kept.wentOn = true;
  kept.resume();
}
