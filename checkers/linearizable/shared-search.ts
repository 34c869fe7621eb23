/**
 * The shared search of checkLinearizableParallel (parallel.ts): the parts of one history
 * searched by this thread and worker threads together, turn by turn, in the order of the
 * one-thread schedule (search-rounds.ts).
 */
import { Worker } from 'node:worker_threads';
import {
  type Impossible,
  newDecided,
  newPartCheck,
  type Prepared,
  precheckHere,
  recordOutcome,
  reportImpossible,
  sampleProcess,
  shareEnd,
} from './check-linearizable.js';
import type { PartCheck, PartOutcome } from './part.js';
import { NO_LIMIT, PART_WORKER, type PartReply, type PartStart, type PartTurn } from './part-worker.js';
import type { SearchStatus } from './search.js';
import { now, origin, stepTime } from './search-clock.js';
import { type Decided, FIRST_STEPS, precheckAt, precheckedFirst } from './search-rounds.js';
import { Turns } from './turns.js';

/**
 * Search steps between looks: this thread's at the workers' messages (a worker that ended
 * its turn waits at most this long for its next), a worker's at the parts' limits (how far
 * past its limit a part may run).
 */
const SHARED_SLICE = 1 << 12;

/**
 * How far the threads may search ahead of one thread (SharedSearch.grant): at most this
 * share of the steps one thread has certainly searched by then, in slices of a quarter of
 * a first turn (1,024 steps by default: small enough that a share of a few first turns
 * already lets a thread search ahead). Issue 44's bound: all told, at most 1.2 times one
 * thread's steps, whatever the history (a violation found discards at most what was
 * searched ahead of it).
 */
export const AHEAD_SHARE = 0.2;

/** A thread that searches: this one, or a worker. */
type Thread = Worker | 'here';

/** The parts of `prepared` searched on this thread and the `started` workers; resolves with what was decided. */
export function searchShared(
  prepared: Prepared,
  url: URL,
  started: Worker[],
  dispatched: () => void,
): Promise<Decided> {
  return new SharedSearch(prepared, url, started.length + 1).run(started, dispatched);
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
 *
 * Its state is the fields below; each step of the schedule is a method, in the order of a
 * turn's life: which turn a thread takes next (nextTurn, grant), a turn on a worker
 * (dispatch, onReply) or here (searchHere), its end (turnEnded), and the verdict (settle).
 */
class SharedSearch {
  private readonly n: number;
  private readonly decided: Decided;
  /** What the workers read between slices: how far each part may go (Decided.limit). */
  private readonly limits: Int32Array;
  /** Each part's next round. */
  private readonly round: Int32Array;
  /** How far each part's turn on a worker may search (grant), to tell a turn paused at its grant from one over. */
  private readonly grantedTo: Float64Array;
  /** Parts begun, per thread ('here', or its worker), waiting for their next turn. */
  private readonly waiting = new Map<Thread, Turns>();
  /** The part whose turn each thread is searching. */
  private readonly running = new Map<Thread, number>();
  /** The first part in check order no thread has begun (the parts before it all have been). */
  private unbegun = 0;
  /** Steps searched in all, by the turns that have ended (decided.steps summed). */
  private searched = 0;
  /**
   * The parts searched ahead (see grant), each from the step its turn was first granted ahead
   * and up to the step it may search (its turn's end once ended): the steps a violation in an
   * earlier turn would discard. A part leaves once every turn before its own has ended.
   */
  private readonly ahead = new Map<number, { key: number; from: number; until: number }>();
  /** What a thread searching ahead is granted at a time: a quarter of a first turn (see AHEAD_SHARE). */
  private readonly aheadSlice: number;
  /** On a step clock, each worker's own time at its last answer. */
  private readonly workerClock = new Map<Worker, number>();
  /** The workers searching. */
  private readonly pool = new Set<Worker>();
  /** The parts each worker began, undecided: lost with it if it dies. */
  private readonly heldBy = new Map<Worker, Set<number>>();
  /** Workers searching a turn now. */
  private readonly busy = new Set<Worker>();
  /** A worker failed (not for memory): the check rejects. */
  private failed = false;
  /** This thread is still searching its parts. */
  private searching = true;
  /** Wakes this thread while it waits for the frontier to move (its next part is in a later round). */
  private wake: (() => void) | undefined;
  /** This thread's parts, begun and undecided. */
  private readonly mine = new Map<number, PartCheck>();
  private resolve: (decided: Decided) => void = () => {};
  private reject: (err: unknown) => void = () => {};

  constructor(
    private readonly prepared: Prepared,
    private readonly url: URL,
    /** Threads in all, this one included. */
    private readonly threads: number,
  ) {
    const n = prepared.parts.length;
    this.n = n;
    this.decided = newDecided(prepared);
    this.limits = new Int32Array(new SharedArrayBuffer(4 * n)).fill(NO_LIMIT);
    this.round = new Int32Array(n);
    this.grantedTo = new Float64Array(n);
    this.waiting.set('here', new Turns(n));
    this.aheadSlice = Math.max(1, Math.floor((prepared.options.sliceIterations ?? FIRST_STEPS) / 4));
  }

  /** Every worker given its first turn, then this thread searches; resolves with the verdict's parts. */
  run(started: Worker[], dispatched: () => void): Promise<Decided> {
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      for (const w of started) this.dispatch(this.attach(w));
      dispatched();
      this.searchHere().catch((err) => this.fail(err));
    });
  }

  /** Whether a part's search is still wanted: undecided, within its limit, nothing found impossible. */
  private searchWanted(part: number): boolean {
    return this.prepared.found.size === 0 && this.decided.wanted(part);
  }

  /** Drops the parts no longer wanted from the front of `turns`. */
  private prune(turns: Turns): void {
    while (turns.size > 0 && !this.searchWanted(turns.peek())) turns.pop();
  }

  /** A turn's place in the one-thread schedule: its round, then the part's place in check order. */
  private turnKey(part: number): number {
    return this.round[part] * this.n + part;
  }

  /**
   * The first turn in the one-thread schedule not yet ended (turnKey): a turn running, a part
   * waiting for its turn, or the first part not begun. Its steps are ones one thread searches
   * too; the turns after it are searched ahead (see grant).
   */
  private earliestOpen(): number {
    let least = this.unbegun < this.n ? this.unbegun : Number.POSITIVE_INFINITY;
    for (const part of this.running.values()) least = Math.min(least, this.turnKey(part));
    for (const turns of this.waiting.values()) {
      this.prune(turns);
      if (turns.size > 0) least = Math.min(least, turns.peekKey());
    }
    return least;
  }

  /** The least round a part still open has not ended (earliestOpen's): only its turns may begin. */
  private frontier(): number {
    return Math.floor(this.earliestOpen() / this.n);
  }

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
  private grant(part: number, end: number): number {
    const { ahead, decided } = this;
    const first = this.earliestOpen();
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
    if (this.turnKey(part) <= first) {
      ahead.delete(part);
      return end;
    }
    const share = AHEAD_SHARE * (this.searched - endedAhead) - aheadSteps;
    const steps = Math.min(end - from, Math.floor(share / this.aheadSlice) * this.aheadSlice);
    if (steps <= 0) return from;
    // A part already ahead keeps its first step ahead; its key is its latest turn's (a turn
    // paused by a time limit goes on in the next round).
    const a = ahead.get(part) ?? { key: 0, from, until: from };
    a.key = this.turnKey(part);
    a.until = from + steps;
    ahead.set(part, a);
    return a.until;
  }

  /**
   * The next turn for `thread` and how far it may search (grant): the first in the one-thread
   * schedule among the next part not begun and its own waiting parts (those in the frontier's
   * round); undefined if it has none it may search now (it may later).
   */
  private nextTurn(thread: Thread): { part: number; until: number } | undefined {
    const { n, decided, prepared } = this;
    const own = this.waiting.get(thread) as Turns;
    this.prune(own);
    while (this.unbegun < n && prepared.prechecked[this.unbegun] === 1 && !this.searchWanted(this.unbegun)) {
      this.unbegun++;
    }
    // Once an operation is found impossible only pre-checks are left: this thread does them.
    const fresh = this.unbegun < n && (thread === 'here' || prepared.found.size === 0);
    const mine = own.size > 0 && own.peekRound() <= this.frontier();
    if (!fresh && !mine) return undefined;
    const part = fresh && !(mine && own.peekKey() < this.unbegun) ? this.unbegun : own.peek();
    if (!this.searchWanted(part)) return { part: this.unbegun++, until: 0 };
    const until = this.grant(part, decided.end(part, this.round[part]));
    if (until <= decided.steps[part]) {
      // Nothing it may search now. A part no thread has begun is begun all the same, with no
      // steps (its objects built, its pre-check run: no search steps), so that its search
      // starts at once when granted; then the thread waits.
      return part === this.unbegun ? { part: this.unbegun++, until: decided.steps[part] } : undefined;
    }
    if (part === this.unbegun) this.unbegun++;
    else own.pop();
    return { part, until };
  }

  /** Whether `thread` has a part waiting for a later turn, or this thread a part to begin. */
  private hasMore(thread: Thread): boolean {
    const own = this.waiting.get(thread) as Turns;
    this.prune(own);
    return own.size > 0 || (thread === 'here' && this.unbegun < this.n);
  }

  /**
   * Under a time limit, when a turn beginning at `from` (now) ends at the latest: its share of
   * the time left among the parts still open.
   */
  private turnEnd(from = now()): number {
    let open = 0;
    for (let p = 0; p < this.n; p++) if (this.decided.outcomes[p] === undefined) open++;
    return shareEnd(from, this.prepared.deadline, open, this.threads);
  }

  /** After a violation: how far every part may still go, shared with the workers. */
  private setLimits(): void {
    for (let p = 0; p < this.n; p++) Atomics.store(this.limits, p, Math.min(NO_LIMIT, this.decided.limit(p)));
  }

  private found(part: number, f: Impossible): void {
    this.prepared.found.set(part, f);
    this.limits.fill(0); // no worker writes them: a plain fill, each read sees the 0 soon enough
  }

  private precheck(part: number): void {
    if (precheckHere(this.prepared, part)) this.limits.fill(0);
  }

  /**
   * A turn ended on `thread`: decided, cut short (`steps` past the limit), paused where its
   * grant ended (`paused`: the rest of the turn later, once granted), or to go on.
   */
  private turnEnded(thread: Thread, part: number, steps: number, outcome?: PartOutcome, paused = false): void {
    const { decided, prepared } = this;
    this.running.delete(thread);
    this.searched += steps - decided.steps[part];
    decided.steps[part] = steps;
    const a = this.ahead.get(part);
    if (a) a.until = steps;
    if (outcome) {
      recordOutcome(prepared, decided, part, outcome);
      prepared.parts[part].release();
      if (outcome.status === 'illegal') this.setLimits();
    } else if (this.searchWanted(part)) {
      if (!paused) this.round[part]++;
      this.waiting.get(thread)?.push(part, this.round[part]);
    }
  }

  /** Whether a turn that ended undecided at `steps`, granted to `until`, stopped at its grant before its round's end. */
  private pausedAt(part: number, steps: number, until: number): boolean {
    return steps >= until && until < this.decided.end(part, this.round[part]);
  }

  /** The verdict, once this thread is done and no worker's turn can still add to it. */
  private settle(): void {
    const { prepared } = this;
    if (this.searching || this.failed) return;
    // A worker's turn may still end with a part to go on with (its own next round): its
    // answer settles again. Once an operation is found impossible the verdict is the pre-checks': a part a worker
    // holds unchecked is pre-checked here rather than waited for (a worker still loading
    // would hold the verdict up by its start).
    if (prepared.found.size === 0 && this.busy.size > 0) return;
    // Before the verdict, every part not pre-checked nor found linearizable (see precheckRest).
    for (let p = 0; p < this.n; p++) if (prepared.prechecked[p] === 0) this.precheck(p);
    for (const w of [...this.pool]) this.stop(w);
    reportImpossible(prepared);
    sampleProcess(prepared);
    this.resolve(this.decided);
  }

  private stop(w: Worker): void {
    this.pool.delete(w);
    this.busy.delete(w);
    this.running.delete(w);
    void w.terminate();
  }

  private wakeHere(): void {
    const resume = this.wake;
    this.wake = undefined;
    resume?.();
  }

  private fail(err: unknown): void {
    this.failed = true;
    for (const w of [...this.pool]) this.stop(w);
    this.wakeHere();
    this.reject(err);
  }

  /** Gives worker `w` its next turn, if it has one now. */
  private dispatch(w: Worker): void {
    const { prepared } = this;
    const next = this.nextTurn(w);
    if (next === undefined) return;
    const part = next.part;
    this.busy.add(w);
    this.running.set(w, part);
    const until = Math.min(NO_LIMIT, next.until);
    this.grantedTo[part] = until;
    // On a step clock, from the worker's own time (search-clock.ts), which stood still since it answered.
    const pauseAt = origin() + this.turnEnd(stepTime() === undefined ? now() : (this.workerClock.get(w) ?? 0));
    const held = this.heldBy.get(w) as Set<number>;
    if (held.has(part)) {
      w.postMessage({ part, until, pauseAt } satisfies PartTurn);
      return;
    }
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
      precheck: prepared.prechecked[part] === 0,
      slice: SHARED_SLICE,
      limits: this.limits,
    };
    w.postMessage({ part, until, pauseAt, start } satisfies PartTurn);
  }

  /** A worker joins the pool: its answers end its turns, its failure ends the check (or its parts, out of memory). */
  private attach(w: Worker): Worker {
    this.pool.add(w);
    this.heldBy.set(w, new Set());
    this.waiting.set(w, new Turns(this.n));
    w.on('message', (msg: PartReply) => this.onReply(w, msg));
    w.on('error', (err: Error & { code?: string }) => this.onWorkerError(w, err));
    return w;
  }

  /** A worker's turn ended: decided, found impossible, cut short, or paused. */
  private onReply(w: Worker, msg: PartReply): void {
    if (!this.pool.has(w)) return; // stopped, its answer already on the way
    this.busy.delete(w);
    this.running.delete(w);
    if (msg.clock !== undefined) this.workerClock.set(w, msg.clock);
    const part = msg.part;
    if (msg.prechecked) this.prepared.prechecked[part] = 1;
    if ('impossible' in msg) {
      this.found(part, msg.impossible);
      this.heldBy.get(w)?.delete(part);
    } else if ('outcome' in msg) {
      this.heldBy.get(w)?.delete(part);
      this.turnEnded(w, part, msg.outcome.iterations, msg.outcome);
    } else if ('cancelled' in msg) {
      this.heldBy.get(w)?.delete(part);
      this.turnEnded(w, part, msg.cancelled);
    } else {
      this.turnEnded(w, part, msg.steps, undefined, this.pausedAt(part, msg.steps, this.grantedTo[part]));
    }
    this.afterTurn();
  }

  /**
   * A worker failed. Its own heap gave out before the parts' budgets did: out of memory all
   * the same, every part it held, and a fresh worker takes over the parts not begun. Any
   * other failure ends the check.
   */
  private onWorkerError(w: Worker, err: Error & { code?: string }): void {
    const { prepared, decided } = this;
    if (!this.pool.has(w)) return;
    const held = [...(this.heldBy.get(w) ?? [])];
    this.stop(w);
    if (err.code !== 'ERR_WORKER_OUT_OF_MEMORY') {
      this.fail(err);
      return;
    }
    for (const part of held) {
      // A part it was beginning may not have been pre-checked there: it is here.
      if (prepared.prechecked[part] === 0) this.precheck(part);
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
      this.turnEnded(w, part, decided.steps[part], outcome);
    }
    this.attach(new Worker(this.url, { workerData: PART_WORKER }));
    this.afterTurn();
  }

  /**
   * After a turn ended on any thread (the frontier may have moved): each idle worker takes
   * its next turn if it has one now, this thread wakes if it waits, and the verdict comes
   * once no thread has anything left.
   */
  private afterTurn(): void {
    for (const w of [...this.pool]) if (!this.busy.has(w)) this.dispatch(w);
    this.wakeHere();
    this.settle();
  }

  private beganOnWorker(part: number): boolean {
    return [...this.heldBy.values()].some((held) => held.has(part));
  }

  /**
   * This thread's share: first the parts pre-checked first (search-rounds.ts: precheckedFirst)
   * and not begun on a worker, before it searches any: an impossible operation is the
   * verdict wherever it is, and found before a hard part's search rather than after it (a
   * worker then begins such a part without its own). Each part's objects go again once
   * pre-checked (as in precheckFirst) but those of the part this thread begins with: a
   * worker builds its own from the columns. The workers' answers are let in between: a
   * worker through with its part takes the next one not begun, and pre-checks it there,
   * rather than wait. Then its turns, as nextTurn gives them.
   */
  private async searchHere(): Promise<void> {
    const { prepared } = this;
    for (let p = 0; p < this.n && prepared.found.size === 0 && !this.failed; p++) {
      if (prepared.prechecked[p] === 1 || this.beganOnWorker(p) || !precheckedFirst(prepared.parts[p].size)) continue;
      this.precheck(p);
      if (p !== this.unbegun) prepared.parts[p].release();
      await turn();
    }
    while (!this.failed) {
      const next = this.nextTurn('here');
      if (next === undefined) {
        if (!this.hasMore('here')) break;
        // Its next part is in a later round than the frontier, or ahead of one thread by its
        // share already (grant): it waits for a turn to end elsewhere.
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      const check = this.partHere(next.part);
      if (check) await this.turnHere(next.part, next.until, check);
    }
    this.mine.clear();
    this.searching = false;
    this.settle();
  }

  /** This thread's search of `part`, begun now if it was not (pre-checked first where due); undefined if not to be searched. */
  private partHere(part: number): PartCheck | undefined {
    const { prepared } = this;
    const begun = this.mine.get(part);
    if (begun) return begun;
    const size = prepared.parts[part].size;
    if (prepared.prechecked[part] === 0 && (precheckedFirst(size) || !this.searchWanted(part))) this.precheck(part);
    if (!this.searchWanted(part)) {
      prepared.parts[part].release(); // pre-checked, not to be searched
      return undefined;
    }
    const check = newPartCheck(prepared, prepared.parts[part], prepared.deadline);
    // A large part is pre-checked on the way if the search has not decided it by then.
    if (prepared.prechecked[part] === 0) {
      check.due(precheckAt(size), () => {
        this.precheck(part);
        return prepared.found.size > 0;
      });
    }
    this.mine.set(part, check);
    return check;
  }

  /** One turn of `part` on this thread, in slices, the workers' answers let in between (they may cut it short). */
  private async turnHere(part: number, until: number, check: PartCheck): Promise<void> {
    this.running.set('here', part);
    const pauseAt = this.turnEnd();
    let status: SearchStatus = 'running';
    for (let left = until - check.iterations; status === 'running' && left > 0 && !this.failed; ) {
      status = check.run(Math.min(SHARED_SLICE, left), pauseAt);
      await turn();
      left = now() > pauseAt ? 0 : Math.min(until, Atomics.load(this.limits, part)) - check.iterations;
    }
    if (status !== 'running' || !this.searchWanted(part)) this.mine.delete(part);
    const steps = check.iterations;
    if (status !== 'running') this.turnEnded('here', part, steps, check.outcome());
    else this.turnEnded('here', part, steps, undefined, this.pausedAt(part, steps, until));
    sampleProcess(this.prepared);
    this.afterTurn();
  }
}

/** Lets the event loop run (the workers' messages) before going on. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
