/**
 * A worker thread that checks parts (see parallel.ts): each message is a part to check (or
 * one paused here to go on with), each answer its outcome, or that it paused, or that it was
 * cancelled. It loads only the models and the search.
 *
 * Cancelling goes through memory shared with parallel.ts, looked at between slices: a
 * message would wait until the search is through. So a worker whose part is cancelled goes
 * on with its next part, warm, keeping the parts paused here, instead of being terminated.
 *
 * A part is given to a worker before it is through with the one it is on (parallel.ts), and
 * the thread that hands parts out takes one back if it runs out of its own first: whoever
 * claims the part first (a flag in shared memory, set by compare-and-swap) checks it. A
 * worker claims a part as it begins it, and answers `taken` for one claimed already.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { findModel } from '../models/index.js';
import { buffers } from './buffers.js';
import { origin, useStepClock, useWallClock } from './clock.js';
import type { Impossible } from './index.js';
import { PartCheck, type PartOutcome } from './part.js';
import { decodePart, type PartColumns } from './part-wire.js';
import type { SearchStatus } from './search.js';

/** What parallel.ts gives the worker as workerData, so that nothing else mistakes a thread for one. */
export const PART_WORKER = 'lockchaos-part-worker';

export interface PartJob {
  /** The part's place in the check order. */
  part: number;
  /** A registered model's name: models are code, and only names cross threads. */
  model: string;
  /** The check's --initial, for the model's init. */
  initial: unknown;
  /** The part's columns, as the message copied them. */
  data: PartColumns;
  /**
   * The check's deadline as a time since the epoch (origin() + now(), clock.ts):
   * performance.now() has another origin in each thread.
   */
  deadline: number;
  /** The step clock the check reads, shared, when it reads one (tests; clock.ts). */
  stepClock?: SharedArrayBuffer;
  /**
   * When to pause the part, if it has not ended, keeping it for a ResumeJob: a time since the
   * epoch, as `deadline`; Infinity for never.
   */
  pauseAt: number;
  memoryLimitBytes: number;
  baseBytes: number;
  witness: boolean;
  slice: number;
  /**
   * Per part, in check order: 1 once cancelled (every part, once the model's pre-check found
   * an operation impossible somewhere). Shared with parallel.ts, never copied.
   */
  cancelled: Int32Array;
  /** Per part, in check order: 1 once a thread has begun it (see the top of this file). Shared, never copied. */
  claimed: Int32Array;
}

/** Go on with a part paused here, to its end. */
export interface ResumeJob {
  resume: number;
}

/** Every answer to a PartJob but `taken` says the part was pre-checked: `impossible` if it found one. */
export type PartReply =
  | { part: number; outcome: PartOutcome }
  | { part: number; paused: true }
  | { part: number; cancelled: true }
  /** Another thread claimed the part first: not pre-checked here. */
  | { part: number; taken: true }
  | { part: number; impossible: Impossible };

const port = parentPort;
if (port && workerData === PART_WORKER) {
  // Workers check large histories only: see buffers.reserve.
  buffers.reserve();
  const paused = new Map<number, { check: PartCheck; slice: number }>();
  /** The check's cancel flags, from its first job on. */
  let cancelled: Int32Array | undefined;
  const isCancelled = (part: number) => cancelled !== undefined && Atomics.load(cancelled, part) === 1;
  const answer = (part: number, check: PartCheck, slice: number, status: SearchStatus) => {
    if (status !== 'running') {
      port.postMessage({ part, outcome: check.outcome() } satisfies PartReply);
    } else if (isCancelled(part)) {
      port.postMessage({ part, cancelled: true } satisfies PartReply);
    } else {
      paused.set(part, { check, slice });
      port.postMessage({ part, paused: true } satisfies PartReply);
    }
  };
  port.on('message', (job: PartJob | ResumeJob) => {
    // Parts paused here and cancelled since: their memos go.
    for (const part of paused.keys()) if (isCancelled(part)) paused.delete(part);
    if ('resume' in job) {
      const held = paused.get(job.resume);
      if (!held) throw new Error(`part worker: no part ${job.resume} paused here`);
      paused.delete(job.resume);
      answer(
        job.resume,
        held.check,
        held.slice,
        held.check.runUntil(held.slice, Number.POSITIVE_INFINITY, () => isCancelled(job.resume)),
      );
      return;
    }
    cancelled = job.cancelled;
    if (Atomics.compareExchange(job.claimed, job.part, 0, 1) !== 0) {
      port.postMessage({ part: job.part, taken: true } satisfies PartReply);
      return;
    }
    const model = findModel(job.model);
    if (!model) throw new Error(`part worker: unknown model ${job.model}`);
    const part = decodePart(job.data);
    const initial = model.init(job.initial);
    // The pre-check first, cancelled or not: an impossible operation anywhere is the verdict.
    const impossible = model.impossible?.(part.ops, initial);
    if (impossible) {
      port.postMessage({ part: job.part, impossible } satisfies PartReply);
      return;
    }
    if (isCancelled(job.part)) {
      port.postMessage({ part: job.part, cancelled: true } satisfies PartReply);
      return;
    }
    if (job.stepClock) useStepClock(job.stepClock);
    else useWallClock();
    const limits = {
      deadline: job.deadline - origin(),
      memoryLimitBytes: job.memoryLimitBytes,
      baseBytes: job.baseBytes,
    };
    const check = new PartCheck(model, initial, part, limits, job.witness);
    answer(
      job.part,
      check,
      job.slice,
      check.runUntil(job.slice, job.pauseAt - origin(), () => isCancelled(job.part)),
    );
  });
}
