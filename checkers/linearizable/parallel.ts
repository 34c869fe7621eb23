/**
 * The parts of a history checked on several threads, as Porcupine checks them in parallel:
 * this thread and `threads - 1` workers (a pool sized to the cores), each taking the next
 * part, largest first. A part found not linearizable cancels the parts after it in that
 * order (a worker on one drops it at its next slice and goes on with its next part; this
 * thread drops its own); parts before it go on until decided. So the verdict and the
 * counterexample are those of the in-thread check (index.ts: the first part in order found
 * not linearizable), whatever finished first.
 *
 * This thread takes parts too, rather than wait: on 2 cores one worker then does what two
 * did, and its start and the copy of its parts are the only cost of going parallel. A worker
 * is given its next part before it is through with the one it is on; when this thread has
 * no part left to begin, it takes back one that a worker has not begun (whoever claims a
 * part first checks it: part-worker.ts), rather than wait idle for that worker. The
 * workers are started before the history is prepared (paired and split), so that they load
 * while this thread prepares.
 *
 * The model's pre-check of a part runs on the thread that takes it, before its search. As
 * in one thread, an impossible operation anywhere is the verdict (the earliest to complete),
 * whatever a search found: so every part is pre-checked, even one a violation cancelled,
 * and once one is found impossible no search goes on.
 *
 * Histories under `minOperations`, or with one part, are checked in this thread alone. So
 * are models that are not registered (a worker knows models by name), and everything when
 * the compiled worker (part-worker.js) is not there: running from the TypeScript sources
 * (vitest), the one in dist/ is used if built.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Op } from '../../src/history/op.js';
import { findModel } from '../models/index.js';
import type { AnyModel } from '../models/model.js';
import { now, origin, stepClock } from './clock.js';
import {
  type CheckOptions,
  conclude,
  DEFAULT_SLICE,
  Decided,
  type Impossible,
  type LinearizableResult,
  newPartCheck,
  type Prepared,
  precheckAll,
  precheckPart,
  prepare,
  reportImpossible,
  reserveFor,
  sampleProcess,
  searchInThread,
  shareEnd,
} from './index.js';
import type { PartCheck, PartOutcome } from './part.js';
import { PART_WORKER, type PartJob, type PartReply, type ResumeJob } from './part-worker.js';
import type { SearchStatus } from './search.js';

export interface ParallelOptions extends CheckOptions {
  /** Threads at most, this one included; default: the cores. 1 checks in this thread. */
  threads?: number;
  /** Histories with fewer operations are checked in this thread; default MIN_OPERATIONS. */
  minOperations?: number;
}

/**
 * Below this many operations the parts are checked in this thread alone. Measured on 2
 * cores (kv over 10 keys, this thread and one worker against one thread, pairs back to
 * back, every other pair two threads first, 2026-12-01; each time from the call, the buffer
 * pool and the workers' start included): below 1x at 100k operations (0.85x), 1.4-1.8x at
 * 1M (median 1.62x of 10 pairs; one thread 8.0-11.1 s, two 4.9-6.3 s, a busy hour).
 * Histories whose parts the model pre-checks (registers, kv without appends) gain less: 10
 * register keys of 100k operations, 1.17-1.23x. What a second thread cannot win back, each
 * measured:
 * - the machine's own limit: two 1M kv checks on one thread each, in two processes at once,
 *   with nothing shared at all, took 1.57-2.16x (median 1.75x, in the same 10 rounds; other
 *   hours 1.68x and 1.85x) less than twice one alone; memory-bound code scales so here
 *   (random reads and writes of a typed array on two threads: 1.5-1.76x, while arithmetic
 *   scales 1.95-2x), and not because of the search's own footprint (at 300k operations,
 *   parts a third the size: 1.75x too). Two threads of one check reach about 93% of it;
 * - without PARALLEL_NODE_FLAGS, a thread alone uses 1.14-1.18 cores: V8's collector runs
 *   on the other one, which two busy threads leave to share;
 * - what this thread does alone before the workers have parts: pairing and splitting
 *   (0.25-0.4 s at 1M operations), and the full collection of the heap that V8 sometimes
 *   begins there (0.2 s, the history in it);
 * - a part's search cannot be shared, and the costs of parts of the same size differ by 3-8x
 *   (1M kv, seed 7: one key of ten takes 3 s of 7.7; seed 42: 1.0-3.7M steps a key), and
 *   nothing cheap predicts them (not the size, the info operations of each kind, what follows
 *   them, nor the mean concurrency), so the last part may run alone;
 * - crossing to a worker: 12-22 ms to send a 100k-operation part here (the message's copy
 *   of the columns), and the worker's building of the part, 20-60 ms (its first: 150-350 ms,
 *   while its heap grows).
 * Worker processes (no helper threads to share) did no better from a cold start, nor did
 * warming a worker on a prefix of the history while this thread prepares (tried again after
 * the columns: within the noise), nor checking on workers alone (this thread only handing
 * out parts: 4.88 s against 4.83), nor the search's tables laid out a slot to a cache line
 * (within the noise).
 */
export const MIN_OPERATIONS = 200_000;

/**
 * The node flags for a check on threads: V8's collector keeps to the thread it collects,
 * rather than take helper threads onto cores the check's own threads are using. Measured on
 * 2 cores (1M kv over 10 keys, 9 runs each, interleaved, 2026-12-01, a busy machine): two
 * threads 5.4 s median instead of 6.0; one thread the same, 9.1 s. V8 takes the flag only
 * at start (NODE_OPTIONS refuses it, and setting it at run time crashes V8), so `lockchaos
 * check` runs itself again under it for a file large enough to be checked on threads.
 */
export const PARALLEL_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];

/**
 * Search steps this thread takes on its own part between looks at the workers' messages:
 * a worker that finished waits at most this long for its next part (milliseconds).
 */
const SHARED_SLICE = 1 << 14;

/** Parts a worker holds at once: the one it is on and the next. */
const PREFETCH = 2;

/** The compiled worker: beside this file, or, from the TypeScript sources, in dist/. */
function workerUrl(): URL | undefined {
  for (const path of ['./part-worker.js', '../../dist/checkers/linearizable/part-worker.js']) {
    const url = new URL(path, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return undefined;
}

/** workerUrl, looked up once: its look at the disk cost a small check a tenth of its time. */
let foundWorker: { url: URL | undefined } | undefined;
function cachedWorkerUrl(): URL | undefined {
  foundWorker ??= { url: workerUrl() };
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
  const url = cachedWorkerUrl();
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
  // they search, not while they wait for this thread to prepare. Measured (1M kv over 10
  // keys, two threads, against the pool filled first, rounds interleaved, 2026-12-01):
  // under PARALLEL_NODE_FLAGS faster in 12 rounds of 16, by 0.44 s median (of 6.2 s);
  // without them in 8 of 8, by 0.4 s. (466cef3 had found the opposite, but timed the side
  // that filled the pool first from after its pool.)
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
    precheckAll(prepared);
    return searchInThread(prepared);
  }
  while (workers.length < threads - 1) workers.push(new Worker(url, { workerData: PART_WORKER }));
  const decided = await searchShared(prepared, url, workers, () => reserveFor(history));
  return conclude(prepared, decided, threads);
}

/**
 * The parts searched by this thread and the workers together, each taking the next part,
 * largest first. This thread searches its part in slices and, between them, hands the next
 * part to each worker that finished. A part found not linearizable cancels the parts after
 * it in check order: a worker on one drops it at its next slice, this thread drops its own.
 *
 * Under a time limit a part's first run ends at its share of the time left (among the parts
 * not yet begun, over the threads), and it pauses on its thread, which goes on with it once
 * every part has had its turn: so that hard parts taken first do not run to the limit while a
 * later part's violation waits (found, not hidden as unknown), as in one thread.
 *
 * `dispatched` is called once every worker has its first parts, before this thread begins its own.
 */
function searchShared(prepared: Prepared, url: URL, started: Worker[], dispatched: () => void): Promise<Decided> {
  const n = prepared.parts.length;
  const decided = new Decided(n);
  const threads = started.length + 1;
  // Largest first, so that no thread is left with a long part at the end while the others
  // idle. The check order (what is reported, what is cancelled) stays smallest first.
  const queue = prepared.parts
    .map((_, i) => i)
    .sort((a, b) => prepared.parts[b].size - prepared.parts[a].size || a - b);
  /** Parts pre-checked (each answer to a job says so), and the impossible operations found. */
  const prechecked = new Uint8Array(n);
  const impossible = new Map<number, Impossible>();
  /** Whether a part's search is still wanted: undecided, not cancelled, and nothing found impossible. */
  const searchWanted = (part: number) => impossible.size === 0 && decided.wanted(part);
  /** Whether a part needs anything still: its pre-check, or its search. */
  const needed = (part: number) => prechecked[part] === 0 || searchWanted(part);
  const take = (): number | undefined => {
    while (queue.length > 0 && !needed(queue[0])) queue.shift();
    return queue.shift();
  };
  /** When a part just taken, starting at `start`, pauses (the parts not yet begun: it and the queue). */
  const pauseAt = (start: number) => shareEnd(start, prepared.deadline, queue.length + 1, threads);
  /** When each worker is through with the parts it holds, at the latest: where the next one starts. */
  const freeAt = new Map<Worker, number>();
  /** Each part's cancel flag, in check order, shared with the workers (part-worker.ts). */
  const cancelled = new Int32Array(new SharedArrayBuffer(4 * n));
  /** Whether a part given to a worker has been begun, there or here (part-worker.ts). */
  const claimed = new Int32Array(new SharedArrayBuffer(4 * n));
  const job = (part: number, w: Worker): PartJob => {
    const at = pauseAt(Math.max(now(), freeAt.get(w) ?? 0));
    freeAt.set(w, at);
    return {
      part,
      model: prepared.model.name,
      initial: prepared.options.initial,
      data: prepared.parts[part].columns,
      deadline: origin() + prepared.deadline,
      pauseAt: origin() + at,
      stepClock: stepClock(),
      memoryLimitBytes: prepared.memoryLimitBytes,
      baseBytes: prepared.options.baseBytes ?? 0,
      witness: prepared.options.witness === true,
      slice: prepared.options.sliceIterations ?? DEFAULT_SLICE,
      cancelled,
      claimed,
    };
  };
  return new Promise((resolve, reject) => {
    // Each worker's parts, the one it is on first: it is given the next before it finishes,
    // so that it never waits for this thread (between slices, or in a collection of its heap).
    const assigned = new Map<Worker, number[]>();
    /** Parts paused on each worker, to go on with there once no part is left unbegun. */
    const pausedOn = new Map<Worker, number[]>();
    const pool = new Set<Worker>();
    /** Parts this thread took back from a worker (steal): its own, even if that worker stops. */
    const stolen = new Set<number>();
    let failed = false;
    let searching = true; // this thread, on parts of its own
    const stop = (w: Worker) => {
      pool.delete(w);
      // Parts given to it and not begun, and those paused there, start again elsewhere.
      const given = [...(assigned.get(w)?.slice(1) ?? []), ...(pausedOn.get(w) ?? [])];
      const again = given.filter((part) => !stolen.has(part));
      for (const part of again) Atomics.store(claimed, part, 0);
      queue.unshift(...again);
      assigned.delete(w);
      pausedOn.delete(w);
      freeAt.delete(w);
      void w.terminate();
    };
    const settle = () => {
      // Parts still on a worker that need nothing: nothing to wait for (it is stopped).
      if ([...assigned.values()].some((parts) => parts.some(needed)) || searching || failed) return;
      for (const w of [...pool]) stop(w);
      reportImpossible(prepared, impossible);
      sampleProcess(prepared);
      resolve(decided);
    };
    /** An impossible operation: no search is wanted any more (all cancelled), only the other parts' pre-checks. */
    const found = (part: number, f: Impossible) => {
      impossible.set(part, f);
      for (let p = 0; p < n; p++) Atomics.store(cancelled, p, 1);
    };
    /** A part's pre-check on this thread. */
    const precheckHere = (part: number) => {
      const f = precheckPart(prepared, part);
      prechecked[part] = 1;
      if (f) found(part, f);
    };
    const done = (part: number, outcome: PartOutcome) => {
      decided.record(part, outcome);
      prepared.parts[part].release();
      if (outcome.status !== 'illegal') return;
      // The parts after it: a worker on one drops it at its next slice.
      for (let later = part + 1; later < n; later++) Atomics.store(cancelled, later, 1);
    };
    const dispatch = (w: Worker) => {
      const parts = assigned.get(w) ?? [];
      assigned.set(w, parts);
      // Once an operation is found impossible, only pre-checks are left: this thread does
      // them, cheaper than copying the parts across.
      while (parts.length < PREFETCH && impossible.size === 0) {
        const part = take();
        if (part !== undefined) {
          parts.push(part);
          // Copied, not transferred: this thread keeps the part's columns, to take it back.
          w.postMessage(job(part, w));
          continue;
        }
        // Every part has had its turn: go on with one paused there.
        const mine = pausedOn.get(w) ?? [];
        while (mine.length > 0 && !searchWanted(mine[0])) mine.shift();
        const resume = mine.shift();
        if (resume === undefined) break;
        parts.push(resume);
        w.postMessage({ resume } satisfies ResumeJob);
      }
      if (parts.length === 0) settle();
    };
    const fail = (err: unknown) => {
      failed = true;
      for (const other of [...pool]) stop(other);
      reject(err);
    };
    const attach = (w: Worker) => {
      pool.add(w);
      pausedOn.set(w, []);
      w.on('message', (msg: PartReply) => {
        if (!pool.has(w)) return; // stopped, its answer already on the way
        assigned.get(w)?.shift();
        // Taken: this thread took the part back (steal), and pre-checks it itself.
        if (!('taken' in msg)) prechecked[msg.part] = 1;
        if ('impossible' in msg) found(msg.part, msg.impossible);
        else if ('paused' in msg) pausedOn.get(w)?.push(msg.part);
        else if ('outcome' in msg) done(msg.part, msg.outcome);
        dispatch(w);
      });
      w.on('error', (err: Error & { code?: string }) => {
        if (!pool.has(w)) return;
        const part = assigned.get(w)?.[0];
        stop(w);
        if (part !== undefined && err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          // The worker's own heap gave out before the part's budget did: out of memory all the
          // same. A fresh worker takes over the queue.
          const { key, size } = prepared.parts[part];
          // Its pre-check, if the worker got that far, went with it: done here.
          precheckHere(part);
          const progress = { key, linearized: 0, total: size, operations: size };
          done(part, { status: 'out-of-memory', progress, iterations: 0, cacheEntries: 0, dropped: 0, peakBytes: 0 });
          dispatch(attach(new Worker(url, { workerData: PART_WORKER })));
          return;
        }
        fail(err);
      });
      return w;
    };
    for (const w of started) dispatch(attach(w));
    dispatched();
    const slice = Math.min(SHARED_SLICE, prepared.options.sliceIterations ?? DEFAULT_SLICE);
    /** Searches a part here until it ends, is cancelled, or passes `pauseAt`; its status. */
    const searchPart = async (part: number, check: PartCheck, pauseAt: number) => {
      let status: SearchStatus = 'running';
      // Between slices, the workers' answers come in (and may cancel this part).
      while (searchWanted(part) && !failed) {
        status = check.run(slice, pauseAt);
        if (status !== 'running' || now() > pauseAt) break;
        await turn();
      }
      return status;
    };
    /**
     * With no part left to begin, one given to a worker that it has not begun (the last
     * given first): taken back, so that this thread does not wait idle while that worker is
     * still on the part before it.
     */
    const steal = (): number | undefined => {
      for (const parts of assigned.values()) {
        for (let i = parts.length - 1; i >= 0; i--) {
          const part = parts[i];
          if (needed(part) && Atomics.compareExchange(claimed, part, 0, 1) === 0) {
            stolen.add(part);
            return part;
          }
        }
      }
      return undefined;
    };
    const searchHere = async () => {
      const pausedHere: { part: number; check: PartCheck }[] = [];
      for (let part = take() ?? steal(); part !== undefined && !failed; part = take() ?? steal()) {
        if (prechecked[part] === 0) precheckHere(part);
        if (!searchWanted(part)) {
          prepared.parts[part].release(); // pre-checked, not to be searched
          continue;
        }
        const check = newPartCheck(prepared, prepared.parts[part], prepared.deadline);
        const status = await searchPart(part, check, pauseAt(now()));
        if (!searchWanted(part)) continue;
        if (status === 'running') pausedHere.push({ part, check });
        else done(part, check.outcome());
        sampleProcess(prepared);
      }
      for (const { part, check } of pausedHere) {
        if (failed || !searchWanted(part)) continue;
        const status = await searchPart(part, check, Number.POSITIVE_INFINITY);
        if (searchWanted(part) && status !== 'running') done(part, check.outcome());
      }
      searching = false;
      settle();
    };
    searchHere().catch(fail);
  });
}

/** Lets the event loop run (the workers' messages) before going on. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
