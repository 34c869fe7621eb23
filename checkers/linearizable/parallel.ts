/**
 * The parts of a history checked on several threads, as Porcupine checks them in parallel:
 * this thread and `threads - 1` workers (a pool sized to the cores), taking the turns of the
 * one-thread schedule (search-rounds.ts) round by round (see searchShared). A part found not
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
  type Impossible,
  type LinearizableResult,
  newDecided,
  newPartCheck,
  type Prepared,
  precheckFirst,
  precheckHere,
  prepare,
  recordOutcome,
  reportImpossible,
  reserveFor,
  sampleProcess,
  searchInThread,
  shareEnd,
} from './check-linearizable.js';
import type { PartCheck, PartOutcome } from './part.js';
import { NO_LIMIT, PART_WORKER, type PartReply, type PartStart, type PartTurn } from './part-worker.js';
import type { SearchStatus } from './search.js';
import { now, origin, stepTime } from './search-clock.js';
import { type Decided, FIRST_STEPS, precheckAt, precheckedFirst } from './search-rounds.js';

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

/**
 * Search steps between looks: this thread's at the workers' messages (a worker that ended
 * its turn waits at most this long for its next), a worker's at the parts' limits (how far
 * past its limit a part may run).
 */
const SHARED_SLICE = 1 << 12;

/**
 * How far the threads may search ahead of one thread (searchShared's grant): at most this
 * share of the steps one thread has certainly searched by then, in slices of a quarter of
 * a first turn (1,024 steps by default: small enough that a share of a few first turns
 * already lets a thread search ahead). Issue 44's bound: all told, at most 1.2 times one
 * thread's steps, whatever the history (a violation found discards at most what was
 * searched ahead of it).
 */
export const AHEAD_SHARE = 0.2;

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

/**
 * The parts searched by this thread and the workers together, in the rounds of search-rounds.ts.
 * A thread that is free takes the next turn in the schedule's order (the least round, then
 * check order) among the parts it began and the parts no thread has begun: a part stays on
 * the thread that began it, its search cannot move. No turn of a round begins before every
 * part still open has ended its turn of the round before (the frontier): the threads share
 * a round's turns, and no thread runs ahead. Once a violation is found every other part
 * stops where it could no longer be the one reported (Decided.limit, shared with the
 * workers and read between slices). So what the threads search beyond one thread is what
 * the others searched after the reported part's turn in the schedule while that turn ran,
 * and those steps are discarded, not counted (Decided.counted): the count is one thread's,
 * the same every run. How much that can be is bounded (grant): a turn after the first one
 * not ended is searched ahead of one thread only while all such steps stay within
 * AHEAD_SHARE of those one thread has certainly searched (issue 44: an invalid key beside a
 * hard one, its round's turn beside the hard key's, searched 1.43 times one thread's steps
 * all told; now 1.13 times, the same every run).
 * (Taking parts largest first, each to its end, a 50-client kv history with hard keys
 * searched 33 times the states of one thread: the hard keys ran while the violation waited.
 * Without the frontier, a thread whose other parts were decided took one hard part's rounds
 * one after another while the violation waited on a worker still loading: 28-70 times the
 * states of one thread, `bench:checker`'s "hard key beside an invalid one".)
 *
 * The model's pre-check: this thread pre-checks the parts pre-checked first (precheckedFirst)
 * before its own first search, but those a worker began (so an impossible operation in the
 * last part is found before the hard parts ahead of it are searched); any other part is
 * pre-checked by the thread that begins it. As in one thread, an impossible operation
 * anywhere is the verdict (the earliest to complete), whatever a search found: once one is
 * found every search stops, and this thread pre-checks the parts not yet pre-checked.
 *
 * `dispatched` is called once every worker has its first turn, before this thread takes its own.
 */
function searchShared(prepared: Prepared, url: URL, started: Worker[], dispatched: () => void): Promise<Decided> {
  const n = prepared.parts.length;
  const decided = newDecided(prepared);
  /** What the workers read between slices: how far each part may go (Decided.limit). */
  const limits = new Int32Array(new SharedArrayBuffer(4 * n)).fill(NO_LIMIT);
  const { prechecked, found: impossible } = prepared;
  /** Whether a part's search is still wanted: undecided, within its limit, nothing found impossible. */
  const searchWanted = (part: number) => impossible.size === 0 && decided.wanted(part);
  /** Each part's next round. */
  const round = new Int32Array(n);
  /** How far each part's turn on a worker may search (grant), to tell a turn paused at its grant from one over. */
  const grantedTo = new Float64Array(n);
  /** Parts begun, per thread ('here', or its worker), waiting for their next turn. */
  const waiting = new Map<Worker | 'here', Turns>([['here', new Turns(n)]]);
  /** The part whose turn each thread is searching. */
  const running = new Map<Worker | 'here', number>();
  /** The first part in check order no thread has begun (the parts before it all have been). */
  let unbegun = 0;

  /** Drops the parts no longer wanted from the front of `turns`. */
  const prune = (turns: Turns) => {
    while (turns.size > 0 && !searchWanted(turns.peek())) turns.pop();
  };
  /** A turn's place in the one-thread schedule: its round, then the part's place in check order. */
  const turnKey = (part: number) => round[part] * n + part;
  /**
   * The first turn in the one-thread schedule not yet ended (turnKey): a turn running, a part
   * waiting for its turn, or the first part not begun. Its steps are ones one thread searches
   * too; the turns after it are searched ahead (see grant).
   */
  const earliestOpen = (): number => {
    let least = unbegun < n ? unbegun : Number.POSITIVE_INFINITY;
    for (const part of running.values()) least = Math.min(least, turnKey(part));
    for (const turns of waiting.values()) {
      prune(turns);
      if (turns.size > 0) least = Math.min(least, turns.peekKey());
    }
    return least;
  };
  /** The least round a part still open has not ended (earliestOpen's): only its turns may begin. */
  const frontier = (): number => Math.floor(earliestOpen() / n);
  /** Steps searched in all, by the turns that have ended (decided.steps summed). */
  let searched = 0;
  /**
   * The parts searched ahead (see grant), each from the step its turn was first granted ahead
   * and up to the step it may search (its turn's end once ended): the steps a violation in an
   * earlier turn would discard. A part leaves once every turn before its own has ended.
   */
  const ahead = new Map<number, { key: number; from: number; until: number }>();
  /** What a thread searching ahead is granted at a time: a quarter of a first turn (see AHEAD_SHARE). */
  const aheadSlice = Math.max(1, Math.floor((prepared.options.sliceIterations ?? FIRST_STEPS) / 4));
  /**
   * How far `part`, about to take its turn, may search now: to the turn's end (`end`) if it is
   * the first turn not ended (one thread searches all of it), else ahead of one thread, in
   * whole slices (aheadSlice), only while the steps searched ahead and not yet ended or committed
   * stay within AHEAD_SHARE of those committed (ended, and before every open turn). So a
   * violation discards at most AHEAD_SHARE of one thread's steps, and the steps searched
   * ahead depend on the turns that have ended, not on how far a running turn has got: the
   * same every run where the threads' turns end in the same order. Its own steps (decided.steps)
   * if it may not search now: it waits for an earlier turn to end.
   */
  const grant = (part: number, end: number): number => {
    const first = earliestOpen();
    let aheadSteps = 0;
    let endedAhead = 0;
    for (const [p, a] of ahead) {
      if (a.key <= first) ahead.delete(p);
      else {
        aheadSteps += a.until - a.from;
        endedAhead += decided.steps[p] - a.from;
      }
    }
    const from = decided.steps[part];
    if (turnKey(part) <= first) {
      ahead.delete(part);
      return end;
    }
    const share = AHEAD_SHARE * (searched - endedAhead) - aheadSteps;
    const steps = Math.min(end - from, Math.floor(share / aheadSlice) * aheadSlice);
    if (steps <= 0) return from;
    // A part already ahead keeps its first step ahead; its key is its latest turn's (a turn
    // paused by a time limit goes on in the next round).
    const a = ahead.get(part) ?? { key: 0, from, until: from };
    a.key = turnKey(part);
    a.until = from + steps;
    ahead.set(part, a);
    return a.until;
  };
  /**
   * The next turn for `thread` and how far it may search (grant): the first in the one-thread
   * schedule among the next part not begun and its own waiting parts (those in the frontier's
   * round); undefined if it has none it may search now (it may later).
   */
  const nextTurn = (thread: Worker | 'here'): { part: number; until: number } | undefined => {
    const own = waiting.get(thread) as Turns;
    prune(own);
    while (unbegun < n && prechecked[unbegun] === 1 && !searchWanted(unbegun)) unbegun++;
    // Once an operation is found impossible only pre-checks are left: this thread does them.
    const fresh = unbegun < n && (thread === 'here' || impossible.size === 0);
    const mine = own.size > 0 && own.peekRound() <= frontier();
    if (!fresh && !mine) return undefined;
    const part = fresh && !(mine && own.peekKey() < unbegun) ? unbegun : own.peek();
    if (!searchWanted(part)) return { part: unbegun++, until: 0 };
    const until = grant(part, decided.end(part, round[part]));
    if (until <= decided.steps[part]) {
      // Nothing it may search now. A part no thread has begun is begun all the same, with no
      // steps (its objects built, its pre-check run: no search steps), so that its search
      // starts at once when granted; then the thread waits.
      return part === unbegun ? { part: unbegun++, until: decided.steps[part] } : undefined;
    }
    if (part === unbegun) unbegun++;
    else own.pop();
    return { part, until };
  };
  /** Whether `thread` has a part waiting for a later turn, or this thread a part to begin. */
  const hasMore = (thread: Worker | 'here'): boolean => {
    const own = waiting.get(thread) as Turns;
    prune(own);
    return own.size > 0 || (thread === 'here' && unbegun < n);
  };
  /**
   * Under a time limit, when a turn beginning at `from` (now) ends at the latest: its share of
   * the time left among the parts still open.
   */
  const turnEnd = (from = now()) => {
    let open = 0;
    for (let p = 0; p < n; p++) if (decided.outcomes[p] === undefined) open++;
    return shareEnd(from, prepared.deadline, open, threads);
  };
  /** On a step clock, each worker's own time at its last answer. */
  const workerClock = new Map<Worker, number>();
  const threads = started.length + 1;
  /** After a violation: how far every part may still go, shared with the workers. */
  const setLimits = () => {
    for (let p = 0; p < n; p++) Atomics.store(limits, p, Math.min(NO_LIMIT, decided.limit(p)));
  };
  const found = (part: number, f: Impossible) => {
    impossible.set(part, f);
    limits.fill(0); // no worker writes them: a plain fill, each read sees the 0 soon enough
  };
  const precheck = (part: number) => {
    if (precheckHere(prepared, part)) limits.fill(0);
  };
  /**
   * A turn ended on `thread`: decided, cut short (`steps` past the limit), paused where its
   * grant ended (`paused`: the rest of the turn later, once granted), or to go on.
   */
  const turnEnded = (thread: Worker | 'here', part: number, steps: number, outcome?: PartOutcome, paused = false) => {
    running.delete(thread);
    searched += steps - decided.steps[part];
    decided.steps[part] = steps;
    const a = ahead.get(part);
    if (a) a.until = steps;
    if (outcome) {
      recordOutcome(prepared, decided, part, outcome);
      prepared.parts[part].release();
      if (outcome.status === 'illegal') setLimits();
    } else if (searchWanted(part)) {
      if (!paused) round[part]++;
      waiting.get(thread)?.push(part, round[part]);
    }
  };
  /** Whether a turn that ended undecided at `steps`, granted to `until`, stopped at its grant before its round's end. */
  const pausedAt = (part: number, steps: number, until: number) =>
    steps >= until && until < decided.end(part, round[part]);

  return new Promise((resolve, reject) => {
    const pool = new Set<Worker>();
    /** The parts each worker began, undecided: lost with it if it dies. */
    const heldBy = new Map<Worker, Set<number>>();
    const busy = new Set<Worker>();
    let failed = false;
    let searching = true; // this thread
    const settle = () => {
      if (searching || failed) return;
      // A worker's turn may still end with a part to go on with (its own next round): its
      // answer settles again. Once an operation is found impossible the verdict is the pre-checks': a part a worker
      // holds unchecked is pre-checked here rather than waited for (a worker still loading
      // would hold the verdict up by its start).
      if (impossible.size === 0 && busy.size > 0) return;
      // Before the verdict, every part not pre-checked nor found linearizable (see precheckRest).
      for (let p = 0; p < n; p++) if (prechecked[p] === 0) precheck(p);
      for (const w of [...pool]) stop(w);
      reportImpossible(prepared);
      sampleProcess(prepared);
      resolve(decided);
    };
    const stop = (w: Worker) => {
      pool.delete(w);
      busy.delete(w);
      running.delete(w);
      void w.terminate();
    };
    /** Wakes this thread while it waits for the frontier to move (its next part is in a later round). */
    let wake: (() => void) | undefined;
    const wakeHere = () => {
      const resume = wake;
      wake = undefined;
      resume?.();
    };
    const fail = (err: unknown) => {
      failed = true;
      for (const w of [...pool]) stop(w);
      wakeHere();
      reject(err);
    };
    /** Gives worker `w` its next turn, if it has one now. */
    const dispatch = (w: Worker) => {
      const next = nextTurn(w);
      if (next === undefined) return;
      const part = next.part;
      busy.add(w);
      running.set(w, part);
      const until = Math.min(NO_LIMIT, next.until);
      grantedTo[part] = until;
      // On a step clock, from the worker's own time (search-clock.ts), which stood still since it answered.
      const pauseAt = origin() + turnEnd(stepTime() === undefined ? now() : (workerClock.get(w) ?? 0));
      const held = heldBy.get(w) as Set<number>;
      if (held.has(part)) return w.postMessage({ part, until, pauseAt } satisfies PartTurn);
      held.add(part);
      const start: PartStart = {
        model: prepared.model.name,
        initial: prepared.options.initial,
        // Copied by the message (structured clone): this thread keeps them for its stats and pre-checks.
        data: prepared.parts[part].columns,
        deadline: origin() + prepared.deadline,
        stepClock: stepTime() !== undefined,
        memoryLimitBytes: prepared.memoryLimitBytes,
        baseBytes: prepared.options.baseBytes ?? 0,
        witness: prepared.options.witness === true,
        precheck: prechecked[part] === 0,
        slice: SHARED_SLICE,
        limits,
      };
      w.postMessage({ part, until, pauseAt, start } satisfies PartTurn);
    };
    const attach = (w: Worker) => {
      pool.add(w);
      heldBy.set(w, new Set());
      waiting.set(w, new Turns(n));
      w.on('message', (msg: PartReply) => {
        if (!pool.has(w)) return; // stopped, its answer already on the way
        busy.delete(w);
        running.delete(w);
        if (msg.clock !== undefined) workerClock.set(w, msg.clock);
        const part = msg.part;
        if (msg.prechecked) prechecked[part] = 1;
        if ('impossible' in msg) {
          found(part, msg.impossible);
          heldBy.get(w)?.delete(part);
        } else if ('outcome' in msg) {
          heldBy.get(w)?.delete(part);
          turnEnded(w, part, msg.outcome.iterations, msg.outcome);
        } else if ('cancelled' in msg) {
          heldBy.get(w)?.delete(part);
          turnEnded(w, part, msg.cancelled);
        } else {
          turnEnded(w, part, msg.steps, undefined, pausedAt(part, msg.steps, grantedTo[part]));
        }
        afterTurn();
      });
      w.on('error', (err: Error & { code?: string }) => {
        if (!pool.has(w)) return;
        const held = [...(heldBy.get(w) ?? [])];
        stop(w);
        if (err.code !== 'ERR_WORKER_OUT_OF_MEMORY') return fail(err);
        // The worker's own heap gave out before the parts' budgets did: out of memory all the
        // same, every part it held. A fresh worker takes over the parts not begun.
        for (const part of held) {
          // A part it was beginning may not have been pre-checked there: it is here.
          if (prechecked[part] === 0) precheck(part);
          if (decided.outcomes[part] !== undefined) continue;
          const { key, size } = prepared.parts[part];
          const progress = { key, linearized: 0, total: size, operations: size };
          const outcome: PartOutcome = {
            status: 'out-of-memory',
            progress,
            iterations: decided.steps[part],
            againIterations: 0,
            cacheEntries: 0,
            dropped: 0,
            peakBytes: 0,
          };
          turnEnded(w, part, decided.steps[part], outcome);
        }
        attach(new Worker(url, { workerData: PART_WORKER }));
        afterTurn();
      });
      return w;
    };
    /**
     * After a turn ended on any thread (the frontier may have moved): each idle worker takes
     * its next turn if it has one now, this thread wakes if it waits, and the verdict comes
     * once no thread has anything left.
     */
    const afterTurn = () => {
      for (const w of [...pool]) if (!busy.has(w)) dispatch(w);
      wakeHere();
      settle();
    };
    const beganOnWorker = (part: number) => [...heldBy.values()].some((held) => held.has(part));
    for (const w of started) dispatch(attach(w));
    dispatched();

    /** This thread's parts, begun and undecided. */
    const mine = new Map<number, PartCheck>();
    const searchHere = async () => {
      // The parts pre-checked first (search-rounds.ts: precheckedFirst) and not begun on a worker,
      // before this thread searches any: an impossible operation is the verdict wherever it
      // is, and found before a hard part's search rather than after it (a worker then begins
      // such a part without its own). Each part's objects go again once pre-checked (as in
      // precheckFirst) but those of the part this thread begins with: a worker builds its own
      // from the columns. The workers' answers are let in between: a worker through with its
      // part takes the next one not begun, and pre-checks it there, rather than wait.
      for (let p = 0; p < n && impossible.size === 0 && !failed; p++) {
        if (prechecked[p] === 1 || beganOnWorker(p) || !precheckedFirst(prepared.parts[p].size)) continue;
        precheck(p);
        if (p !== unbegun) prepared.parts[p].release();
        await turn();
      }
      while (!failed) {
        const next = nextTurn('here');
        if (next === undefined) {
          if (!hasMore('here')) break;
          // Its next part is in a later round than the frontier, or ahead of one thread by its
          // share already (grant): it waits for a turn to end elsewhere.
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          continue;
        }
        const { part, until } = next;
        let check = mine.get(part);
        const size = prepared.parts[part].size;
        if (!check) {
          if (prechecked[part] === 0 && (precheckedFirst(size) || !searchWanted(part))) precheck(part);
          if (!searchWanted(part)) {
            prepared.parts[part].release(); // pre-checked, not to be searched
            continue;
          }
          check = newPartCheck(prepared, prepared.parts[part], prepared.deadline);
          // A large part is pre-checked on the way if the search has not decided it by then.
          if (prechecked[part] === 0) {
            check.due(precheckAt(size), () => {
              precheck(part);
              return impossible.size > 0;
            });
          }
          mine.set(part, check);
        }
        // Its turn in slices, the workers' answers let in between (they may cut it short).
        running.set('here', part);
        const pauseAt = turnEnd();
        let status: SearchStatus = 'running';
        for (let left = until - check.iterations; status === 'running' && left > 0 && !failed; ) {
          status = check.run(Math.min(SHARED_SLICE, left), pauseAt);
          await turn();
          left = now() > pauseAt ? 0 : Math.min(until, Atomics.load(limits, part)) - check.iterations;
        }
        if (status !== 'running' || !searchWanted(part)) mine.delete(part);
        const steps = check.iterations;
        if (status !== 'running') turnEnded('here', part, steps, check.outcome());
        else turnEnded('here', part, steps, undefined, pausedAt(part, steps, until));
        sampleProcess(prepared);
        afterTurn();
      }
      mine.clear();
      searching = false;
      settle();
    };
    searchHere().catch(fail);
  });
}

/**
 * Parts waiting for their next turn, in the schedule's order: the least round, then check
 * order. A binary heap of round * parts + part.
 */
class Turns {
  private readonly keys: number[] = [];

  constructor(private readonly parts: number) {}

  get size(): number {
    return this.keys.length;
  }

  push(part: number, round: number): void {
    const keys = this.keys;
    let i = keys.length;
    keys.push(round * this.parts + part);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (keys[up] <= keys[i]) break;
      [keys[up], keys[i]] = [keys[i], keys[up]];
      i = up;
    }
  }

  /** The first part. */
  peek(): number {
    return this.keys[0] % this.parts;
  }

  /** The first part's place in the schedule (round * parts + part). */
  peekKey(): number {
    return this.keys[0];
  }

  /** The first part's round. */
  peekRound(): number {
    return Math.floor(this.keys[0] / this.parts);
  }

  pop(): number {
    const keys = this.keys;
    const top = keys[0];
    const last = keys.pop() as number;
    if (keys.length > 0) {
      keys[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < keys.length && keys[l] < keys[m]) m = l;
        if (r < keys.length && keys[r] < keys[m]) m = r;
        if (m === i) break;
        [keys[m], keys[i]] = [keys[i], keys[m]];
        i = m;
      }
    }
    return top % this.parts;
  }
}

/** Lets the event loop run (the workers' messages) before going on. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
