/**
 * The parts of a history checked on worker threads, as Porcupine checks them in parallel:
 * a pool sized to the cores, each worker taking the next part, largest first. A part found
 * not linearizable cancels (terminates) the workers on parts after it in that order; parts
 * before it go on until decided. So the verdict and the counterexample are those of the
 * in-thread check (index.ts: the first part in order found not linearizable), whatever
 * finished first.
 *
 * Threads cost a start-up (tens of milliseconds) and a copy of each part: histories under
 * `minOperations`, with one part, or found invalid by the model's pre-check are checked in
 * this thread. So are models that are not registered (a worker knows models by name), and
 * everything when the compiled worker (part-worker.js) is not there: running from the
 * TypeScript sources (vitest), the one in dist/ is used if built.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Op } from '../../src/history/op.js';
import { findModel } from '../models/index.js';
import type { AnyModel } from '../models/model.js';
import {
  type CheckOptions,
  conclude,
  DEFAULT_SLICE,
  Decided,
  type LinearizableResult,
  type Prepared,
  prepare,
  sampleProcess,
  searchInThread,
} from './index.js';
import { encodePart } from './part-wire.js';
import { PART_WORKER, type PartDone, type PartJob } from './part-worker.js';

export interface ParallelOptions extends CheckOptions {
  /** Worker threads at most; default: the cores. 1 checks in this thread. */
  threads?: number;
  /** Histories with fewer operations are checked in this thread; default 200,000. */
  minOperations?: number;
}

/**
 * Measured on 2 cores (bench:checker's kv over 10 keys): at 100k operations two workers
 * were no faster than one thread (each worker warms up its own JIT and heap, and a thread
 * alone already has the other core for V8's garbage collector); at 300k they were 1.3-1.5x
 * faster.
 */
const MIN_OPERATIONS = 200_000;

/** The compiled worker: beside this file, or, from the TypeScript sources, in dist/. */
function workerUrl(): URL | undefined {
  for (const path of ['./part-worker.js', '../../dist/checkers/linearizable/part-worker.js']) {
    const url = new URL(path, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return undefined;
}

/** Checks a history like checkLinearizable, with its parts on worker threads when that pays. */
export async function checkLinearizableParallel(
  history: readonly Op[],
  model: AnyModel | string,
  options: ParallelOptions = {},
): Promise<LinearizableResult> {
  const prepared = prepare(history, model, options);
  const threads = Math.min(options.threads ?? availableParallelism(), prepared.parts.length);
  const url = workerUrl();
  if (
    prepared.impossible ||
    threads < 2 ||
    prepared.stats.operations < (options.minOperations ?? MIN_OPERATIONS) ||
    findModel(prepared.model.name) !== prepared.model ||
    !url
  )
    return searchInThread(prepared);
  const decided = await searchInWorkers(prepared, url, threads);
  return conclude(prepared, decided, threads);
}

function searchInWorkers(prepared: Prepared, url: URL, threads: number): Promise<Decided> {
  const n = prepared.parts.length;
  const decided = new Decided(n);
  const job = (part: number): PartJob => ({
    part,
    model: prepared.model.name,
    initial: prepared.options.initial,
    data: encodePart(prepared.parts[part]),
    remainingMs: Math.max(0, prepared.deadline - performance.now()),
    memoryLimitBytes: prepared.memoryLimitBytes,
    baseBytes: prepared.options.baseBytes ?? 0,
    witness: prepared.options.witness === true,
    slice: prepared.options.sliceIterations ?? DEFAULT_SLICE,
  });
  return new Promise((resolve, reject) => {
    const running = new Map<Worker, number>();
    const pool = new Set<Worker>();
    // Largest first, so that no worker is left with a long part at the end while the others
    // idle. The check order (what is reported, what is cancelled) stays smallest first.
    const queue = prepared.parts
      .map((_, i) => i)
      .sort((a, b) => prepared.parts[b].ops.length - prepared.parts[a].ops.length || a - b);
    let next = 0;
    let failed = false;
    const stop = (w: Worker) => {
      pool.delete(w);
      running.delete(w);
      void w.terminate();
    };
    const settle = () => {
      if (running.size > 0 || failed) return;
      for (const w of [...pool]) stop(w);
      sampleProcess(prepared);
      resolve(decided);
    };
    const dispatch = (w: Worker) => {
      while (next < n && !decided.wanted(queue[next])) next++;
      if (next >= n) return settle();
      const part = queue[next++];
      running.set(w, part);
      const message = job(part);
      w.postMessage(message, [message.data.small.buffer as ArrayBuffer, message.data.numbers.buffer as ArrayBuffer]);
    };
    const done = (part: number, outcome: PartDone['outcome']) => {
      decided.record(part, outcome);
      if (outcome.status === 'illegal') for (const [w, p] of running) if (!decided.wanted(p) && p !== part) stop(w); // after it: cancelled
    };
    const spawn = () => {
      const w = new Worker(url, { workerData: PART_WORKER });
      pool.add(w);
      w.on('message', (msg: PartDone) => {
        if (!pool.has(w)) return; // cancelled, its answer already on the way
        running.delete(w);
        done(msg.part, msg.outcome);
        dispatch(w);
      });
      w.on('error', (err: Error & { code?: string }) => {
        if (!pool.has(w)) return;
        const part = running.get(w);
        stop(w);
        if (part !== undefined && err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          // The worker's own heap gave out before the part's budget did: out of memory all the
          // same. A fresh worker takes over the queue.
          const data = prepared.parts[part];
          const progress = { key: data.key, linearized: 0, total: data.ops.length, operations: data.ops.length };
          done(part, { status: 'out-of-memory', progress, iterations: 0, cacheEntries: 0, dropped: 0, peakBytes: 0 });
          dispatch(spawn());
          return;
        }
        failed = true;
        for (const other of [...pool]) stop(other);
        reject(err);
      });
      return w;
    };
    for (let i = 0; i < threads; i++) dispatch(spawn());
  });
}
