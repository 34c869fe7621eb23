/**
 * A worker thread that checks parts (see parallel.ts): each message is a turn of one part,
 * to search to a round's end (search-rounds.ts), the part's columns with its first turn; each
 * answer the part's outcome once decided, or how far it got, or that it was cut short. The
 * parts it began stay here between turns (a search cannot move between threads). It loads
 * only the models and the search.
 *
 * How far a part may go is shared with shared-search.ts (`limits`, per part, in steps) and read
 * between slices: once a violation is found elsewhere a part stops where it could no longer
 * be the one reported, without waiting for its turn to end.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { findModel } from '../models/index.js';
import { buffers } from './buffers.js';
import type { Impossible } from './check-linearizable.js';
import { PartCheck, type PartOutcome } from './part.js';
import { decodePart, type PartColumns } from './part-wire.js';
import { origin, stepTime, useStepClock, useWallClock } from './search-clock.js';
import { precheckAt, precheckedFirst } from './search-rounds.js';

/** What parallel.ts gives the worker as workerData, so that nothing else mistakes a thread for one. */
export const PART_WORKER = 'lockchaos-part-worker';

/** A shared limit that is none (limits are Int32: a part searching 2^31 steps would take hours). */
export const NO_LIMIT = 2 ** 31 - 1;

/** What a worker needs to begin a part: sent with the part's first turn. */
export interface PartStart {
  /** A registered model's name: models are code, and only names cross threads. */
  model: string;
  /** The check's --initial, for the model's init. */
  initial: unknown;
  /** The part's columns, as the message copied them. */
  data: PartColumns;
  /**
   * The check's deadline as a time since the epoch (origin() + now(), search-clock.ts):
   * performance.now() has another origin in each thread.
   */
  deadline: number;
  /** Whether the check reads a step clock (tests; search-clock.ts): the worker then counts its own. */
  stepClock?: boolean;
  memoryLimitBytes: number;
  baseBytes: number;
  witness: boolean;
  /** Whether the model's pre-check is still to run on the part (shared-search.ts runs it there for most parts). */
  precheck: boolean;
  /** Steps between looks at `limits`. */
  slice: number;
  /**
   * Per part, in check order: the steps it may search in all (NO_LIMIT until a violation is
   * found; 0 for every part once the model's pre-check found an operation impossible).
   * Shared with shared-search.ts, never copied.
   */
  limits: Int32Array;
}

/** A part's turn: search it until it has searched `until` steps in all, or until `pauseAt`. */
export interface PartTurn {
  /** The part's place in the check order. */
  part: number;
  until: number;
  /** Under a time limit, when the turn ends at the latest (shareEnd), as a time since the epoch (see `deadline`). */
  pauseAt?: number;
  /** With the part's first turn only. */
  start?: PartStart;
}

/**
 * A turn's answer. `prechecked`: the part's pre-check, if it was due (PartStart.precheck), has
 * run (`impossible` if it found one); a part found linearizable needs none.
 */
export type PartReply = (
  | { part: number; outcome: PartOutcome }
  /** Its turn is over, undecided: `steps` searched in all. */
  | { part: number; steps: number }
  /** Cut short by its limit: `steps` searched in all; it is let go here. */
  | { part: number; cancelled: number }
  | { part: number; impossible: Impossible }
) & {
  /** On a step clock, the worker's own time as it answers: its next turn's end is counted from it (search-clock.ts). */
  clock?: number;
  prechecked: boolean;
};

/**
 * The turns of the parts begun on one thread: `reply` gets each turn's answer. The parts it
 * began stay here, undecided, between turns.
 */
export function partTurns(answer: (r: PartReply) => void): (turn: PartTurn) => void {
  const reply = (r: PartReply) => {
    const clock = stepTime();
    answer(clock === undefined ? r : { ...r, clock });
  };
  const held = new Map<number, PartCheck>();
  /** The parts held whose pre-check is due (once their search reaches precheckAt undecided). */
  const due = new Set<number>();
  /** What a due pre-check found. */
  let impossible: Impossible | undefined;
  let limits: Int32Array | undefined;
  let slice = 1;
  return (turn: PartTurn) => {
    const { part, until, start } = turn;
    // Parts cut short since their last turn (a violation found elsewhere): their memos go.
    // Not this turn's part: its limit may have fallen after the turn was sent, and it is
    // answered as cut short below.
    for (const [p, c] of held) {
      if (p === part || !limits || c.iterations < Atomics.load(limits, p)) continue;
      held.delete(p);
      due.delete(p);
    }
    if (start && !start.stepClock) useWallClock();
    else if (start && stepTime() === undefined) useStepClock();
    let check = held.get(part);
    if (start) {
      ({ limits, slice } = start);
      const model = findModel(start.model);
      if (!model) throw new Error(`part worker: unknown model ${start.model}`);
      const data = decodePart(start.data);
      const initial = model.init(start.initial);
      // A small part's pre-check first, cut short or not: an impossible operation anywhere is
      // the verdict. A large part's once its search reaches precheckAt undecided.
      const small = precheckedFirst(data.ops.length);
      if (start.precheck && small) {
        const found = model.impossible?.(data.ops, initial);
        if (found) return reply({ part, impossible: found, prechecked: true });
      }
      const budget = {
        deadline: start.deadline - origin(),
        memoryLimitBytes: start.memoryLimitBytes,
        baseBytes: start.baseBytes,
      };
      check = new PartCheck(model, initial, data, budget, start.witness);
      if (start.precheck && !small) {
        due.add(part);
        check.due(precheckAt(data.ops.length), () => {
          due.delete(part);
          impossible = model.impossible?.(data.ops, initial);
          return impossible !== undefined;
        });
      }
      held.set(part, check);
    }
    if (!check || !limits) throw new Error(`part worker: part ${part} was not begun here`);
    const shared = limits;
    const limit = () => Atomics.load(shared, part);
    const pauseAt = turn.pauseAt === undefined ? Number.POSITIVE_INFINITY : turn.pauseAt - origin();
    impossible = undefined;
    const status = check.runTo(() => Math.min(until, limit()), slice, pauseAt);
    if (impossible) {
      held.delete(part);
      return reply({ part, impossible, prechecked: true });
    }
    if (status === 'linearizable') due.delete(part);
    const prechecked = !due.has(part);
    if (status !== 'running' || check.iterations >= limit()) {
      held.delete(part);
      due.delete(part);
    }
    if (status !== 'running') reply({ part, outcome: check.outcome(), prechecked });
    else if (check.iterations >= limit()) reply({ part, cancelled: check.iterations, prechecked });
    else reply({ part, steps: check.iterations, prechecked });
  };
}

const port = parentPort;
if (port && workerData === PART_WORKER) {
  // Workers check large histories only: see buffers.reserve.
  buffers.reserve();
  port.on(
    'message',
    partTurns((r) => port.postMessage(r)),
  );
}
