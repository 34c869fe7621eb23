/**
 * A worker thread that checks parts (see parallel.ts): each message is a part to check (or
 * one paused here to go on with), each answer its outcome, or that it paused. It loads only
 * the models and the search.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { findModel } from '../models/index.js';
import { PartCheck, type PartOutcome } from './part.js';
import { decodePart, type PartWire } from './part-wire.js';

/** What parallel.ts gives the worker as workerData, so that nothing else mistakes a thread for one. */
export const PART_WORKER = 'lockchaos-part-worker';

export interface PartJob {
  /** The part's place in the check order. */
  part: number;
  /** A registered model's name: models are code, and only names cross threads. */
  model: string;
  /** The check's --initial, for the model's init. */
  initial: unknown;
  data: PartWire;
  /**
   * The check's deadline as a time since the epoch (performance.timeOrigin + now()):
   * performance.now() has another origin in each thread.
   */
  deadline: number;
  /**
   * When to pause the part, if it has not ended, keeping it for a ResumeJob: a time since the
   * epoch, as `deadline`; Infinity for never.
   */
  pauseAt: number;
  memoryLimitBytes: number;
  baseBytes: number;
  witness: boolean;
  slice: number;
}

/** Go on with a part paused here, to its end. */
export interface ResumeJob {
  resume: number;
}

export type PartReply = { part: number; outcome: PartOutcome } | { part: number; paused: true };

const port = parentPort;
if (port && workerData === PART_WORKER) {
  const paused = new Map<number, { check: PartCheck; slice: number }>();
  port.on('message', (job: PartJob | ResumeJob) => {
    if ('resume' in job) {
      const held = paused.get(job.resume);
      if (!held) throw new Error(`part worker: no part ${job.resume} paused here`);
      paused.delete(job.resume);
      const reply: PartReply = { part: job.resume, outcome: held.check.runToEnd(held.slice) };
      port.postMessage(reply);
      return;
    }
    const model = findModel(job.model);
    if (!model) throw new Error(`part worker: unknown model ${job.model}`);
    const limits = {
      deadline: job.deadline - performance.timeOrigin,
      memoryLimitBytes: job.memoryLimitBytes,
      baseBytes: job.baseBytes,
    };
    const check = new PartCheck(model, model.init(job.initial), decodePart(job.data), limits, job.witness);
    if (check.runUntil(job.slice, job.pauseAt - performance.timeOrigin) === 'running') {
      paused.set(job.part, { check, slice: job.slice });
      port.postMessage({ part: job.part, paused: true } satisfies PartReply);
      return;
    }
    port.postMessage({ part: job.part, outcome: check.outcome() } satisfies PartReply);
  });
}
