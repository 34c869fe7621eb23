/**
 * A worker thread that checks parts (see parallel.ts): each message is a part to check, each
 * answer its outcome. It loads only the models and the search.
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
  memoryLimitBytes: number;
  baseBytes: number;
  witness: boolean;
  slice: number;
}

export interface PartDone {
  part: number;
  outcome: PartOutcome;
}

const port = parentPort;
if (port && workerData === PART_WORKER) {
  port.on('message', (job: PartJob) => {
    const model = findModel(job.model);
    if (!model) throw new Error(`part worker: unknown model ${job.model}`);
    const limits = {
      deadline: job.deadline - performance.timeOrigin,
      memoryLimitBytes: job.memoryLimitBytes,
      baseBytes: job.baseBytes,
    };
    const check = new PartCheck(model, model.init(job.initial), decodePart(job.data), limits, job.witness);
    const done: PartDone = { part: job.part, outcome: check.runToEnd(job.slice) };
    port.postMessage(done);
  });
}
