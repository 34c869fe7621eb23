/**
 * Mutual exclusion while a run goes: overlapping holds counted cheaply from the op stream
 * as it arrives, for the progress line and for --stop-on-violation. The count is the
 * mutual-exclusion checker's (mutual-exclusion.ts), as far as the ops so far tell: a pair
 * of holds of different processes on one lock where the later one began before the earlier
 * one's belief ended (its release invoked, or an info); a belief not yet ended counts as
 * still held (the checker takes an unended one to the end of the run).
 *
 * Overlaps are judged on the ops' own times, not on arrival order (workers' operations can
 * arrive late): a pair (earlier start A, later start B) overlaps iff B starts before A
 * ends, and is confirmed once both of those times are known.
 */

/** Ended holds per lock kept for ops that arrive late; holds still believed are all kept. */
const RECENT_HOLDS = 64;

/** What the count needs of an op (an Op, indexed or not). */
export interface LiveOp {
  type: string;
  f: string;
  process: number | string;
  /** The op's own time (ns since the origin). */
  time: number;
  key?: string;
}

interface LiveHold {
  process: number | string;
  start: number;
  /** Undefined while believed. */
  end?: number;
  /** While it is believed: the starts of other processes' holds after its own start. */
  later: number[];
}

export class LiveOverlaps {
  /** Overlapping pairs whose earlier hold has ended: the final history has them too. */
  confirmed = 0;
  private readonly holds = new Map<string, LiveHold[]>();

  onOp(op: LiveOp): void {
    if (op.process === 'nemesis') return;
    const lock = op.key ?? '';
    if (op.f === 'acquire' && op.type === 'ok') {
      this.holdStarts(lock, op.process, op.time);
    } else if (op.f === 'release' && op.type === 'invoke') {
      this.holdEnds(lock, op.process, op.time);
    } else if (op.type === 'info') {
      // An info ends the process's belief: it never issues again.
      for (const l of this.holds.keys()) this.holdEnds(l, op.process, op.time);
    }
  }

  /** Overlapping holds so far: confirmed pairs, and later holds under a belief still held. */
  get overlaps(): number {
    let pending = 0;
    for (const list of this.holds.values()) for (const h of list) if (h.end === undefined) pending += h.later.length;
    return this.confirmed + pending;
  }

  private holdStarts(lock: string, process: number | string, start: number) {
    const list = this.holds.get(lock) ?? [];
    this.holds.set(lock, list);
    const hold: LiveHold = { process, start, later: [] };
    for (const a of list) {
      if (a.process === process) continue;
      if (a.start < start) {
        if (a.end === undefined) a.later.push(start);
        else if (start < a.end) this.confirmed++;
      } else if (a.start > start) hold.later.push(a.start); // arrived first, began later
    }
    list.push(hold);
    // Ended holds beyond the most recent are dropped, so the cost per operation stays
    // small: only an op arriving very late can then miss an overlap. Believed ones stay.
    let ended = list.filter((h) => h.end !== undefined).length;
    for (let i = 0; i < list.length && ended > RECENT_HOLDS; ) {
      if ((list[i] as LiveHold).end !== undefined) {
        list.splice(i, 1);
        ended--;
      } else i++;
    }
  }

  private holdEnds(lock: string, process: number | string, end: number) {
    const list = this.holds.get(lock) ?? [];
    const a = list.find((h) => h.process === process && h.end === undefined);
    if (!a) return;
    a.end = end;
    this.confirmed += a.later.filter((t) => t < end).length;
    a.later = [];
  }
}
