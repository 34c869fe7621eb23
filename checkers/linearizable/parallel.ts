/**
 * The parts of a history checked on several threads, as Porcupine checks them in parallel:
 * this thread and `threads - 1` workers (a pool sized to the cores), taking the turns of the
 * one-thread schedule (search-rounds.ts) round by round (shared-search.ts). A part found not
 * linearizable cuts short the parts that could no longer be decided before it in that
 * schedule (a worker on one drops it at its next slice and goes on with its next part; this
 * thread drops its own). So the verdict and the counterexample are those of the in-thread
 * check (check-linearizable.ts: the first part in the schedule found not linearizable), whatever
 * finished first, and so is the count of steps searched (Decided.counted).
 *
 * This thread takes parts too, rather than wait: on 2 cores one worker then does what two
 * did, and its start and the copy of its parts are the only cost of going parallel. The
 * workers are started before the history is prepared (paired and split), so that they load
 * while this thread prepares.
 *
 * The model's pre-check: a part pre-checked first (search-rounds.ts: precheckedFirst) on this
 * thread before it searches any, unless a worker began it; any other part on the thread
 * that begins it. As in one thread, an impossible operation anywhere is the verdict (the
 * earliest to complete), whatever a search found: so every part is pre-checked, even one a
 * violation cancelled, and once one is found impossible no search goes on.
 *
 * Histories under `minOperations`, or with one part, are checked in this thread alone. So
 * are models that are not registered (a worker knows models by name), and everything when
 * the compiled worker (part-worker.js) is not there: running from the TypeScript sources
 * (vitest), the one in dist/ is used if built.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Op } from '../../src/history/op.js';
import { compiledBeside } from '../../src/util/paths.js';
import { findModel } from '../models/index.js';
import type { AnyModel } from '../models/linearizable-model.js';
import {
  type CheckOptions,
  conclude,
  type LinearizableResult,
  type Prepared,
  precheckFirst,
  prepare,
  reserveFor,
  searchInThread,
} from './check-linearizable.js';
import { PART_WORKER } from './part-worker.js';
import { now } from './search-clock.js';
import { searchShared } from './shared-search.js';

export interface ParallelOptions extends CheckOptions {
  /** Threads at most, this one included; default: the cores. 1 checks in this thread. */
  threads?: number;
  /** Histories with fewer operations are checked in this thread; default MIN_OPERATIONS. */
  minOperations?: number;
}

/**
 * Below this many operations the parts are checked in this thread alone: below it a
 * worker's start and the copy of its parts cost what the second core saves. Where the two
 * cross on a machine, `bench:checker` measures (docs/checking-histories.md
 * gives this machine's figures). What a second thread cannot win back, and so why the gain
 * stays below twice:
 * - the machine's own limit: the search is bound by memory, and two one-thread checks in
 *   two processes at once do not reach twice one alone either (`--machine` measures it);
 * - V8's collector takes a core of its own unless kept to its thread (PARALLEL_NODE_FLAGS);
 * - this thread pairs and splits the history before any worker has a part;
 * - a part's search cannot be shared, and parts of one size differ several times in cost,
 *   with nothing cheap to predict it (not the size, the info operations, nor the mean
 *   concurrency), so the last part may run alone;
 * - a part that crosses to a worker is copied, then built again there.
 * Tried, and no better: worker processes, warming a worker on a prefix of the history,
 * checking on workers alone (this thread only handing out parts), the search's tables laid
 * out a slot to a cache line.
 */
export const MIN_OPERATIONS = 200_000;

/**
 * The node flags for a check on threads: V8's collector keeps to the thread it collects,
 * rather than take helper threads onto cores the check's own threads are using (faster on
 * two threads, the same on one: `bench:checker`). V8 takes the flag only at start
 * (NODE_OPTIONS refuses it, and setting it at run time crashes V8), so `lockchaos check`
 * runs itself again under it for a file large enough to be checked on threads.
 */
export const PARALLEL_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];

/** The share the threads may search ahead of one thread (shared-search.ts). */
export { AHEAD_SHARE } from './shared-search.js';

/** The compiled worker, looked up once: its look at the disk cost a small check a tenth of its time. */
let foundWorker: { url: URL | undefined } | undefined;
function workerUrl(): URL | undefined {
  foundWorker ??= { url: compiledBeside(import.meta.url, './part-worker.js') };
  return foundWorker.url;
}

/** Whether a model is known to the workers by its name (they load models by name). */
function registered(model: AnyModel | string): boolean {
  return typeof model === 'string' ? findModel(model) !== undefined : findModel(model.name) === model;
}

/**
 * Checks a history like checkLinearizable, with its parts on this thread and worker threads
 * together when that pays: this thread takes parts too (it has nothing else to do), so a
 * pool of `threads` searches on `threads - 1` workers.
 */
export async function checkLinearizableParallel(
  history: readonly Op[],
  model: AnyModel | string,
  options: ParallelOptions = {},
): Promise<LinearizableResult> {
  // The check's time, and its time limit, count from here: the buffer pool and the workers' start are the check's.
  const started = now();
  const wanted = options.threads ?? availableParallelism();
  const minOperations = options.minOperations ?? MIN_OPERATIONS;
  const url = workerUrl();
  // Workers are started before the history is paired and split (a history of n events has
  // at most n/2 operations), so that they load while this thread prepares; those not needed
  // after all are stopped.
  const early =
    url && wanted >= 2 && history.length / 2 >= minOperations && registered(model)
      ? Array.from({ length: wanted - 1 }, () => new Worker(url, { workerData: PART_WORKER }))
      : [];
  // This thread's buffer pool (reserveFor) sets off a full collection of the heap, with the
  // history in it. In this thread alone, it is filled first, before the parts are in the heap
  // too. On threads, once the workers have their first parts: the collection then runs while
  // they search, not while they wait for this thread to prepare (faster under
  // PARALLEL_NODE_FLAGS and without them, timed from the call on both sides).
  if (early.length === 0) reserveFor(history);
  let prepared: Prepared;
  try {
    // For several threads (see prepare); on one, below, as checkLinearizable does.
    prepared = prepare(history, model, options, false, started);
  } catch (err) {
    for (const w of early) void w.terminate();
    throw err;
  }
  const threads = Math.min(wanted, prepared.parts.length);
  const parallel =
    url !== undefined && threads >= 2 && prepared.stats.operations >= minOperations && registered(prepared.model);
  const workers = parallel ? early.slice(0, threads - 1) : [];
  for (const w of early) if (!workers.includes(w)) void w.terminate();
  if (!parallel || !url) {
    if (early.length > 0) reserveFor(history); // started for nothing: the pool now
    precheckFirst(prepared);
    return searchInThread(prepared);
  }
  while (workers.length < threads - 1) workers.push(new Worker(url, { workerData: PART_WORKER }));
  const decided = await searchShared(prepared, url, workers, () => reserveFor(history));
  return conclude(prepared, decided, threads);
}
