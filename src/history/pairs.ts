/**
 * From a history of events to operations: each invocation paired with its completion, with
 * Jepsen's rules enforced.
 *
 * - `fail` operations certainly did not happen: they are removed (counted).
 * - `info`, or an invocation that never completes, may have happened at any time after its
 *   invocation, or never: its outcome is `info` or `pending` and it has no return.
 * - Nemesis operations are ignored; an `info` with no outstanding invocation (Jepsen logs
 *   some) is skipped.
 * - A process has at most one operation outstanding, and never issues again after an `info`:
 *   either is an error in the history, named by op index, since a checker cannot know which
 *   invocation a completion belongs to.
 *
 * Real-time order is the history's order (as in Jepsen): `call` and `ret` are positions in
 * the history array, not the `time` fields.
 *
 * pairLeniently is the same pairing for the data checkers and the report, which must read
 * whatever a run left (a cut file, a stray completion): it never throws, keeps failed
 * operations (outcome `fail`), and skips a completion that has no invocation to end.
 */
import { HistoryError } from './errors.js';
import { OP_TYPES, type Op } from './op.js';

/** How a strictly paired operation ended: ok, info, or pending (never completed). */
export type PairedOutcome = 'ok' | 'info' | 'pending';

/** How a leniently paired operation ended: PairedOutcome, or fail (kept, not removed). */
export type LenientOutcome = PairedOutcome | 'fail';

export interface PairedOp {
  process: number;
  f: string;
  key?: string;
  invoke: Op;
  /** The ok or info completion (also fail, leniently); none when it never completed. */
  completion?: Op;
  outcome: PairedOutcome;
  /** Position of the invocation in the history array. */
  call: number;
  /** Position of the ok completion (leniently, of the fail too); Infinity for info and pending operations. */
  ret: number;
}

export interface Pairing {
  /** Completed (ok), info and pending operations, in invocation order. */
  ops: PairedOp[];
  failed: number;
  nemesis: number;
  /** info completions with no outstanding invocation, skipped. */
  strayInfo: number;
}

/** A leniently paired operation: a failed one is kept, with outcome `fail`. */
export type LenientOp = Omit<PairedOp, 'outcome'> & { outcome: LenientOutcome };

/** A history paired leniently (see the top of this file), with what the pairing counted. */
export interface LenientPairing {
  /** Every client invocation with its completion, if any, in invocation order. */
  ops: readonly LenientOp[];
  failed: number;
  nemesis: number;
  strayInfo: number;
  /** The info completions counted in strayInfo. */
  stray: readonly Op[];
  /**
   * Breaks of Jepsen's rules read past (a strict pairing would have refused the history): 0
   * means the strict pairing of the same history is `ops` without the failed ones.
   */
  problems: number;
}

/** The last lenient pairing of each history array, and the length it had then. */
const lenientPairings = new WeakMap<readonly Op[], { length: number; pairing: LenientPairing }>();

/**
 * The lenient pairing of a history. A run's checkers and its report each need it: it is
 * made once and kept with the array (made again if the array has grown since), so the
 * result is shared: read-only.
 */
export function pairHistory(history: readonly Op[]): LenientPairing {
  const kept = lenientPairings.get(history);
  if (kept && kept.length === history.length) return kept.pairing;
  const ops: LenientOp[] = [];
  const pairing = { ops, ...pair(history, true, (op) => ops.push(op)) };
  lenientPairings.set(history, { length: history.length, pairing });
  return pairing;
}

/** Every client invocation with its completion, if any: pairHistory's ops. */
export function pairLeniently(history: readonly Op[]): readonly LenientOp[] {
  return pairHistory(history).ops;
}

export function pairOperations(history: readonly Op[]): Pairing {
  const ops: PairedOp[] = [];
  const counts = visitOperations(history, (op) => ops.push(op));
  return { ops, ...counts };
}

/**
 * pairOperations, each operation handed to `visit` instead of kept: in invocation order, as
 * soon as it and every operation invoked before it have ended (those that never do, at the
 * end). A caller that keeps less than the operations (the linearizability checker keeps
 * columns) then never has a million of them alive at once, only those in flight.
 */
export function visitOperations(history: readonly Op[], visit: (op: PairedOp) => void): Omit<Pairing, 'ops'> {
  const { failed, nemesis, strayInfo } = pair(history, false, (op) => {
    // Strictly, a failed operation certainly did not happen: it is not an operation at all.
    if (op.outcome !== 'fail') visit(op as PairedOp);
  });
  return { failed, nemesis, strayInfo };
}

/**
 * What pairOperations would answer for `history.filter((op) => op.process === 'nemesis' ||
 * keep(op))`, taken from the lenient pairing of the whole history instead of pairing again
 * (a run checks its lock's operations and its store's apart, from one pairing). `call` and
 * `ret` stay positions in the whole history: they order the operations exactly as positions
 * in the filtered one would. Undefined when the answers could differ: the history breaks
 * Jepsen's rules (pairOperations then names the break), or an operation's invocation and its
 * completion fall on different sides of `keep`.
 */
export function strictSubset(pairing: LenientPairing, keep: (op: Op) => boolean): Pairing | undefined {
  if (pairing.problems > 0) return undefined;
  const ops: PairedOp[] = [];
  let failed = 0;
  for (const o of pairing.ops) {
    const kept = keep(o.invoke);
    if (o.completion !== undefined && keep(o.completion) !== kept) return undefined;
    if (!kept) continue;
    if (o.outcome === 'fail') failed++;
    else ops.push(o as PairedOp);
  }
  return { ops, failed, nemesis: pairing.nemesis, strayInfo: pairing.stray.filter(keep).length };
}

/**
 * A value per process. Processes are small non-negative integers nearly always (Jepsen's
 * grow by the concurrency with each crash), and an array indexed by them is several times
 * faster than a Map, which was most of the time a million operations took to pair.
 */
class PerProcess<T> {
  private readonly small: (T | undefined)[] = [];
  private readonly other = new Map<number, T>();

  private static isSmall(p: number): boolean {
    return Number.isInteger(p) && p >= 0 && p < 1 << 16;
  }

  get(p: number): T | undefined {
    return PerProcess.isSmall(p) ? this.small[p] : this.other.get(p);
  }

  set(p: number, value: T): void {
    if (!PerProcess.isSmall(p)) this.other.set(p, value);
    else {
      // Filled up to p first, so that the array stays packed (holes make every access slower).
      while (this.small.length < p) this.small.push(undefined);
      this.small[p] = value;
    }
  }

  delete(p: number): void {
    if (PerProcess.isSmall(p)) {
      if (p < this.small.length) this.small[p] = undefined;
    } else this.other.delete(p);
  }
}

/**
 * The pairing itself, for both: every operation to `visit`, in invocation order, once it and
 * those before it have ended (see visitOperations).
 */
function pair(history: readonly Op[], lenient: boolean, visit: (op: LenientOp) => void): Omit<LenientPairing, 'ops'> {
  let problems = 0;
  /** Throws in strict mode; leniently, counted, and the caller goes on as the comment at its call says. */
  const problem = (message: string) => {
    if (!lenient) throw new HistoryError(message);
    problems++;
  };
  /** Operations invoked and not yet visited, in invocation order, from `head` on. */
  const waiting: LenientOp[] = [];
  let head = 0;
  const visitEnded = () => {
    while (head < waiting.length && waiting[head].outcome !== 'pending') visit(waiting[head++]);
    // Amortized: the visited ones go once they are most of the array.
    if (head >= 1024 && head * 2 >= waiting.length) {
      waiting.splice(0, head);
      head = 0;
    }
  };
  const outstanding = new PerProcess<LenientOp>();
  /** Processes whose operation ended as info: the op, to name it if the process issues again. */
  const crashed = new PerProcess<Op>();
  let failed = 0;
  let nemesis = 0;
  let strayInfo = 0;
  const stray: Op[] = [];
  for (let pos = 0; pos < history.length; pos++) {
    const op = history[pos];
    if (op.process === 'nemesis') {
      nemesis++;
      continue;
    }
    const p = op.process;
    switch (op.type) {
      case 'invoke': {
        const open = outstanding.get(p);
        // Leniently, the open one stays without a completion (never completed).
        if (open) {
          problem(
            `op ${op.index}: process ${p} invokes ${op.f} while its op ${open.invoke.index} (${open.f}) is still outstanding; a process has at most one operation in flight`,
          );
        }
        const crash = crashed.get(p);
        if (crash) {
          problem(
            `op ${op.index}: process ${p} invokes ${op.f} after its op ${crash.index} (${crash.f}) ended as info; a process whose operation ended as info must not issue again (the client should take a new process number)`,
          );
        }
        // Every field from the start, undefined or not: a field added later (the completion
        // always is) moves an object's fields out of it, into an array of their own, and a
        // million operations are paired at once.
        const paired: LenientOp = {
          process: p,
          f: op.f,
          key: op.key,
          invoke: op,
          completion: undefined,
          outcome: 'pending',
          call: pos,
          ret: Number.POSITIVE_INFINITY,
        };
        outstanding.set(p, paired);
        waiting.push(paired);
        break;
      }
      case 'ok':
      case 'fail':
      case 'info': {
        const open = outstanding.get(p);
        if (!open) {
          if (op.type === 'info') {
            strayInfo++;
            stray.push(op);
            break;
          }
          // Leniently: skipped.
          problem(`op ${op.index}: ${op.type} ${op.f} on process ${p} has no outstanding invocation`);
          break;
        }
        // Leniently: the completion ends the process's open invocation all the same.
        if (open.f !== op.f) {
          problem(
            `op ${op.index}: ${op.type} ${op.f} on process ${p} does not match its invocation, op ${open.invoke.index} (${open.f})`,
          );
        }
        outstanding.delete(p);
        open.completion = op;
        if (open.key === undefined && op.key !== undefined) open.key = op.key;
        if (op.type === 'ok') {
          open.outcome = 'ok';
          open.ret = pos;
        } else if (op.type === 'info') {
          open.outcome = 'info';
          crashed.set(p, op);
        } else {
          failed++;
          open.outcome = 'fail';
          open.ret = pos;
        }
        if (open === waiting[head]) visitEnded();
        break;
      }
      default:
        // Leniently: skipped.
        problem(
          `op ${(op as Op).index}: unknown type '${String((op as Op).type)}': expected one of ${OP_TYPES.join(', ')}`,
        );
    }
  }
  // Those that never ended, and every one after the first of them.
  for (; head < waiting.length; head++) visit(waiting[head]);
  return { failed, nemesis, strayInfo, stray, problems };
}
