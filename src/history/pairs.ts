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
  const pairing = pair(history, true);
  lenientPairings.set(history, { length: history.length, pairing });
  return pairing;
}

/** Every client invocation with its completion, if any: pairHistory's ops. */
export function pairLeniently(history: readonly Op[]): readonly LenientOp[] {
  return pairHistory(history).ops;
}

export function pairOperations(history: readonly Op[]): Pairing {
  return pair(history, false) as Pairing;
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

function pair(history: readonly Op[], lenient: boolean): LenientPairing & Omit<Pairing, 'ops'> & { ops: LenientOp[] } {
  let problems = 0;
  /** Throws in strict mode; leniently, counted, and the caller goes on as the comment at its call says. */
  const problem = (message: string) => {
    if (!lenient) throw new HistoryError(message);
    problems++;
  };
  const ops: LenientOp[] = [];
  const outstanding = new Map<number, LenientOp>();
  /** Processes whose operation ended as info: the op, to name it if the process issues again. */
  const crashed = new Map<number, Op>();
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
        ops.push(paired);
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
        break;
      }
      default:
        // Leniently: skipped.
        problem(
          `op ${(op as Op).index}: unknown type '${String((op as Op).type)}': expected one of ${OP_TYPES.join(', ')}`,
        );
    }
  }
  // Strictly, a failed operation certainly did not happen: it is not an operation at all.
  const kept = lenient || failed === 0 ? ops : ops.filter((o) => o.outcome !== 'fail');
  return { ops: kept, failed, nemesis, strayInfo, stray, problems };
}
