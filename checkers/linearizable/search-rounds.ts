/**
 * The order in which a history's parts (keys) are searched, and so which violation is
 * reported when several parts are not linearizable.
 *
 * The parts are searched in rounds. In round r every part still open searches
 * `first * 2^r` steps more (`first`: its firstTurn), parts in check order (smallest first,
 * then by first operation): so by the end of round r each has had stepsBy(r, first) steps
 * in all. A part decided after s steps
 * of its own search was decided in the first round whose end reaches s (roundOf). The part
 * reported is the one found not linearizable earliest in this order: the least round, then
 * the first in check order.
 *
 * Why rounds that double: a violation anywhere is found after at most about twice its own
 * steps in every other part, whatever its place in the check order (Porcupine searches all
 * parts at once for the same reason, and stops at the first illegal one); a part that is
 * hard to decide never holds the others up, and the doubling keeps the rounds few (about 20
 * to a million steps). Why steps, not time: a part's steps to its verdict are its own (the
 * search is deterministic), so the round a part is decided in, and the part reported, are
 * the same on one thread or several, on an idle machine or a loaded one. Only a budget that
 * runs out (time, memory) can change what is found.
 *
 * On one thread the rounds are simply run in order, and the first part found not
 * linearizable ends the check: the parts before it in the round have had their turn, the
 * parts after it could only be decided later. On several threads (parallel.ts) the threads
 * take the rounds' turns in the same order, a round's turns begun only once the round
 * before has ended, and once a violation is found each other part is searched only as far
 * as it could still be decided earlier in this order (limit); what a thread searched past
 * that is not counted (counted), so the steps counted are one thread's. What a thread may
 * search past the first turn not ended, and so all it can discard, is at most a share of
 * the steps one thread has searched (parallel.ts: AHEAD_SHARE).
 */
import type { PartOutcome } from './part.js';

/** Steps each part searches in round 0 by default: about a millisecond, so that an early violation anywhere is found soon. */
export const FIRST_STEPS = 1 << 12;

/**
 * Parts of at least this many operations search STEPS_PER_OP steps an operation in round 0
 * (if more), so that most of them end in it, one after another, rather than all open at
 * once: every open part holds its operations' objects and its memo, so large parts searched
 * side by side hold far more memory, and take longer, than one after another (`bench:checker
 * --kv`). The price: a small part after such a part in check order has its first turn after
 * it.
 */
export const LARGE_PART = 1 << 14;
export const STEPS_PER_OP = 32;

/**
 * Whether a part is pre-checked (Model.impossible) before any part is searched, rather than
 * in its first turn: every part below LARGE_PART. A small part's pre-check costs about a
 * turn of it, and done first, an impossible operation in the last part is found before the
 * hard parts ahead of it have searched at all (issue 27: a stale read after two hard keys,
 * found in no steps rather than after every key's first turns). A large part's first turn is
 * long anyway (STEPS_PER_OP an operation), and its objects are built for that turn: its
 * pre-check there builds them once (see precheckAt). Pre-checked first, a 1M-operation kv
 * history's ten parts were each built twice, and on two threads pre-checked one after
 * another in one: about 20% longer on two threads, 7% on one.
 */
export function precheckedFirst(size: number): boolean {
  return size < LARGE_PART;
}

/**
 * The step of a large part's search at which it is pre-checked, if not decided by then:
 * PRECHECK_STEPS_PER_OP an operation, about what the pre-check itself costs (it reads every
 * operation's objects a few times). A part its search finds linearizable needs no pre-check
 * (one finds only operations no linearization has), and a valid kv part of Porcupine's test
 * is decided in about 2 steps an operation: its pre-check was a sixth of checking a
 * 1M-operation history. A hard part still has its impossible operation found after at most
 * about twice the pre-check's cost; a part found not linearizable first is pre-checked
 * before the verdict, as every part is.
 */
export const PRECHECK_STEPS_PER_OP = 4;

export function precheckAt(size: number): number {
  return PRECHECK_STEPS_PER_OP * size;
}

/** A part's steps in round 0: `first` (FIRST_STEPS, or the check's sliceIterations), more for a large part. */
export function firstTurn(size: number, first: number): number {
  return size >= LARGE_PART ? Math.max(first, STEPS_PER_OP * size) : first;
}

/** The steps a part has searched in all by the end of round `round` (0 before round 0). */
export function stepsBy(round: number, first: number): number {
  return round < 0 ? 0 : first * (2 ** (round + 1) - 1);
}

/** The round in which a part decided after `steps` steps of its own search was decided. */
export function roundOf(steps: number, first: number): number {
  let round = 0;
  while (stepsBy(round, first) < steps) round++;
  return round;
}

/** Parts' outcomes as they come in, in any order, and how far each part is still wanted. */
export class Decided {
  readonly outcomes: (PartOutcome | undefined)[];
  /** Steps each part has searched, decided or not (a part cut short counts too). */
  readonly steps: Float64Array;
  /** The part reported: found not linearizable earliest in the schedule (the least round, then check order). */
  best: { round: number; part: number } | undefined;
  /** Each part's steps in round 0 (firstTurn). */
  readonly first: Float64Array;

  constructor(sizes: readonly number[], first: number) {
    this.outcomes = new Array(sizes.length).fill(undefined);
    this.steps = new Float64Array(sizes.length);
    this.first = Float64Array.from(sizes, (size) => firstTurn(size, first));
  }

  /** The steps part `part` has searched in all by the end of round `round`. */
  end(part: number, round: number): number {
    return stepsBy(round, this.first[part]);
  }

  record(part: number, outcome: PartOutcome): void {
    this.outcomes[part] = outcome;
    this.steps[part] = outcome.iterations;
    if (outcome.status !== 'illegal') return;
    const round = roundOf(outcome.iterations, this.first[part]);
    const best = this.best;
    if (!best || round < best.round || (round === best.round && part < best.part)) this.best = { round, part };
  }

  /**
   * The steps `part` may search in all before a violation it found could no longer be the
   * one reported: Infinity while none is found; else to the end of the reported part's round
   * for a part before it in check order, and of the round before for a part after it.
   */
  limit(part: number): number {
    const best = this.best;
    if (!best) return Number.POSITIVE_INFINITY;
    return this.end(part, part < best.part ? best.round : best.round - 1);
  }

  /** Undecided, and still able to be decided before the violation found so far. */
  wanted(part: number): boolean {
    return this.outcomes[part] === undefined && this.steps[part] < this.limit(part);
  }

  /**
   * The steps of part `part` that the schedule counts: all it searched, but for a part past
   * its limit (a violation found). On one thread no part goes past its limit: the schedule
   * ends at the violation. On threads a part may search on past it before the violation that
   * set it is found (its round shared with the violation's, or the limit read between
   * slices); those steps are discarded, so that the count is one thread's, every run.
   */
  counted(part: number): number {
    const best = this.best;
    const steps = this.steps[part];
    return !best || part === best.part ? steps : Math.min(steps, this.limit(part));
  }

  /** Steps the schedule counts, over all parts (counted). */
  get totalSteps(): number {
    let total = 0;
    for (let part = 0; part < this.steps.length; part++) total += this.counted(part);
    return total;
  }

  /** Steps searched past the parts' limits on threads, not counted (counted); 0 on one thread. */
  get discardedSteps(): number {
    return this.steps.reduce((n, s) => n + s, 0) - this.totalSteps;
  }
}
