/**
 * The first counted violation while a run goes, for --stop-on-violation: a violation that
 * the run's own checkers will count in the final history too, found from the op stream as
 * it arrives, so that a run whose verdict is already decided can stop, heal and check.
 *
 * What it watches, each counted only where its checker counts:
 * - overlapping holds (mutual-exclusion, unfenced): LiveOverlaps, confirmed pairs only;
 * - the fencing rules (fencing on, off): a stale token the store accepted, a grant whose
 *   token did not grow (a token granted twice is one), a grant that outranked a holder whose
 *   lease stood. Judged by the fencing checker itself on the history so far, at most once
 *   per CHECK_EVERY_NS of op time: the first two name a pair of completed operations, which
 *   operations that arrive later cannot undo; an outranking counts once the holder's hold
 *   has ended (a release that arrives late can end it before the newcomer's grant);
 * - an acknowledged add missing from a read (lost-updates): an element whose write was
 *   acknowledged before a read was invoked, absent from that read's set. The store was
 *   overwritten by a write that did not have it: the lock-set workload adds one element per
 *   write to the set it read, so the element comes back only if a client that read it
 *   before the overwrite writes again, which loses the overwriting write's own element.
 */
import type { Op } from '../src/history/op.js';
import { checkFencing, type Outranking, outrankings, outrankingWords } from './fencing.js';
import { LiveOverlaps } from './live-overlaps.js';
import { holdsOf } from './mutual-exclusion.js';
import { decodeWrite } from './op-values.js';
import { secs } from './seconds.js';

/** How often (in op time) the fencing checker runs on the history so far: 0.5 s at most ... */
const CHECK_EVERY_NS = 500_000_000;
/**
 * ... and only once the history has grown by this share since it last ran: each run reads
 * the whole history, so a long run's checks cost a few times one check of its end, not one
 * per half second.
 */
const GROWTH_BETWEEN_CHECKS = 0.1;

export interface LiveViolationsOptions {
  fencing: boolean;
  /** The store key of a workload that uses the store; undefined: no store to watch. */
  storeKey?: string;
  /**
   * The ops recorded so far, in arrival order: each process's in its own order, which is
   * all the fencing checker's pairing needs (its rules compare the ops' own times).
   */
  historySoFar: () => readonly Op[];
  /**
   * The run's live overlap count (the progress line's), fed here: one count per op. Its
   * overlaps are violations only unfenced.
   */
  overlaps?: LiveOverlaps;
  /** How often (in op time, ns) the fencing checker runs at most (default 0.5 s). */
  checkEveryNs?: number;
}

interface Acknowledged {
  element: number;
  process: Op['process'];
  /** The write's completion time. */
  at: number;
}

export class LiveViolations {
  /** The first violation, in words; undefined while there is none. */
  first: string | undefined;
  private readonly overlaps: LiveOverlaps;
  private readonly pending = new Map<Op['process'], Op>();
  private readonly acknowledged: Acknowledged[] = [];
  private lastFencingCheck = Number.NEGATIVE_INFINITY;
  /** The history's length when the fencing checker last ran. */
  private checkedLength = 0;
  /** A grant or an accepted write arrived since the fencing checker last ran. */
  private fencingDue = false;

  constructor(private readonly opts: LiveViolationsOptions) {
    this.overlaps = opts.overlaps ?? new LiveOverlaps();
  }

  onOp(op: Op): void {
    this.overlaps.onOp(op);
    if (this.first !== undefined || op.process === 'nemesis') return;
    if (!this.opts.fencing && this.overlaps.confirmed > 0)
      this.first = 'two clients held the lock at once (overlapping holds)';
    if (op.type === 'invoke') {
      this.pending.set(op.process, op);
      return;
    }
    const invoke = this.pending.get(op.process);
    this.pending.delete(op.process);
    if (!invoke || op.type !== 'ok') return;
    if (this.opts.fencing && (op.f === 'acquire' || op.f === 'write')) this.fencingDue = true;
    if (this.opts.storeKey !== undefined && op.key === this.opts.storeKey) this.onStoreOp(invoke, op);
    if (this.fencingDue && op.time - this.lastFencingCheck >= (this.opts.checkEveryNs ?? CHECK_EVERY_NS))
      this.checkFencing(op.time);
  }

  private onStoreOp(invoke: Op, completion: Op) {
    if (invoke.f === 'write') {
      const element = decodeWrite(invoke.value).set.at(-1);
      if (typeof element === 'number')
        this.acknowledged.push({ element, process: invoke.process, at: completion.time });
      return;
    }
    if (invoke.f !== 'read' || this.first !== undefined) return;
    const read = new Set(Array.isArray(completion.value) ? (completion.value as unknown[]) : []);
    const lost = this.acknowledged.find((a) => a.at < invoke.time && !read.has(a.element));
    if (lost) {
      this.first = `an acknowledged add was missing from a read: element ${lost.element}, acknowledged to process ${lost.process} at ${secs(lost.at)}, not in process ${completion.process}'s read invoked at ${secs(invoke.time)}`;
    }
  }

  private checkFencing(now: number) {
    const history = this.opts.historySoFar();
    if (history.length - this.checkedLength < GROWTH_BETWEEN_CHECKS * this.checkedLength) return;
    this.lastFencingCheck = now;
    this.checkedLength = history.length;
    this.fencingDue = false;
    const result = checkFencing(history, { storeKey: this.opts.storeKey ?? '', fencing: true });
    const details = result.details;
    if (result.valid !== false || result.counts === false || !details) return;
    // An outranking comes first in the checker's words. A grant outranks a holder only while
    // the holder's hold lasts, and a hold whose end has not arrived yet (its release recorded,
    // not yet sent: a loaded worker) counts as lasting to the end: only an outranking of a
    // holder whose hold has ended here is settled.
    const outranked = Array.isArray(details.outranked) ? details.outranked.length : (details.outranked ?? 0);
    const settled = outranked > 0 ? settledOutranking(history) : undefined;
    // The other rules each name two completed operations: ops that arrive later cannot undo them.
    const [other] = (details.first ?? []).slice(outranked > 0 ? 1 : 0);
    const words = settled ? outrankingWords(settled) : other;
    // Op numbers of a history still arriving are not the final history's: times only.
    if (words !== undefined) this.first = `fencing: ${words.replace(/ \((op|release) #\d+\)/g, '')}`;
  }
}

/** The first outranking of a holder whose hold has ended in `history`. */
function settledOutranking(history: readonly Op[]): Outranking | undefined {
  const ended = new Set(holdsOf(history).flatMap((h) => (Number.isFinite(h.end) ? [h.acquireIndex] : [])));
  return outrankings(history).find((o) => ended.has(o.holder.index));
}
