/**
 * One part (key) of a history, checked alone: the model's reductions, the search, and what
 * came of it as plain data (a PartOutcome), so that a part can be checked in this thread or
 * in a worker thread (part-worker.ts) with the same result.
 *
 * Each part has its own memory budget: the search's own memory (see PartSearch.bytes) plus
 * what reading the history took (`baseBytes`, shared by the parts of one history), never the
 * process's heap, which holds whatever the process did before (an earlier file, other parts).
 * The process's heap is still watched, so that V8 never runs out under us: past 85% of its
 * limit the search stops as out of memory rather than crash.
 */
import { getHeapStatistics } from 'node:v8';
import type { Model, Reduction } from '../models/linearizable-model.js';
import { type Counterexample, explain, type PartData } from './explain.js';
import { ReadSources } from './read-sources.js';
import { type Budget, PartSearch, type SearchOp, type SearchStatus } from './search.js';
import { now } from './search-clock.js';

export interface PartProgress {
  key: string | null;
  /** Required operations linearized (the most at any point), and how many there are. */
  linearized: number;
  total: number;
  /** All operations of the part, indefinite ones included. */
  operations: number;
}

export interface PartLimits {
  /** performance.now() in this thread after which the search stops. */
  deadline: number;
  memoryLimitBytes: number;
  /** Memory already spent on the history (reading it), counted in every part's budget. */
  baseBytes: number;
}

/** What came of checking a part: plain data, the same from any thread. */
export interface PartOutcome {
  status: SearchStatus;
  progress: PartProgress;
  iterations: number;
  /** Steps searched again for the counterexample (see PartCheck.finish). */
  againIterations: number;
  cacheEntries: number;
  /** Indefinite operations the reduction dropped. */
  dropped: number;
  /** The most memory the part's search held (PartSearch.bytes). */
  peakBytes: number;
  /** With 'linearizable' and witness asked for: the order, as invocation indices. */
  witness?: number[];
  /** With 'illegal'. */
  counterexample?: Counterexample;
}

/**
 * A part's search that has gone this many steps an operation undecided is told the model's
 * sources (Model.sources): most searches decide in one or two (a 10-client register of 1M
 * operations: 1.2), and a 50-client register of 100k, which backtracks, took 24M steps
 * without them and 0.6M with.
 */
export const SOURCES_STEPS_PER_OP = 2;

/** The search's memory against the part's budget. */
class PartBudget implements Budget {
  peak = 0;
  search: PartSearch<unknown> | undefined;
  /** V8's own heap cannot grow past its limit whatever the budget: stay well below it. */
  private static readonly heapCap = getHeapStatistics().heap_size_limit * 0.85;

  constructor(
    readonly deadline: number,
    private readonly limit: number,
    private readonly base: number,
  ) {}

  private used(): number {
    const bytes = this.base + (this.search?.bytes ?? 0);
    if (bytes > this.peak) this.peak = bytes;
    return bytes;
  }

  /** Over the budget by the search's own count (cheap: no look at the process). */
  over(): boolean {
    return this.used() > this.limit;
  }

  check(): 'out-of-memory' | undefined {
    return this.used() > this.limit || heapUsed() > PartBudget.heapCap ? 'out-of-memory' : undefined;
  }

  canAllocate(bytes: number): boolean {
    return this.used() + bytes <= this.limit && heapUsed() + bytes <= PartBudget.heapCap;
  }
}

/** This thread's heap in use (V8's own count: process.memoryUsage() also reads /proc, and costs far more). */
function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

export class PartCheck {
  readonly progress: PartProgress;
  private search: PartSearch<unknown> | undefined;
  private readonly budget: PartBudget;
  /** Indefinite ops the model made required: the history position they must precede. */
  private readonly deadlines = new Map<number, number>();
  private dropped = 0;
  /**
   * What is due when the search reaches a step undecided, earliest first: the model's sources
   * (SOURCES_STEPS_PER_OP), a large part's pre-check (search-rounds.ts: precheckAt). Each runs at
   * that step exactly, however the search is sliced, so every thread searches the same.
   */
  private readonly dues: { at: number; then: () => boolean }[] = [];
  /** A due that stopped the search (an impossible operation found): it never goes on. */
  private halted = false;
  /** For a search again without the reads' sources (see finish). */
  private readonly searchOps: SearchOp[];
  private readonly initial: unknown;
  private status: SearchStatus = 'running';
  private result: PartOutcome | undefined;

  constructor(
    private readonly model: Model<unknown>,
    initial: unknown,
    private readonly part: PartData,
    limits: PartLimits,
    private readonly witness = false,
  ) {
    this.budget = new PartBudget(limits.deadline, limits.memoryLimitBytes, limits.baseBytes);
    const sources = new ReadSources(part.ops.length);
    const reductions: Reduction[] = model.reduce
      ? model.reduce(part.ops, initial, sources.add)
      : part.ops.map(() => 'keep');
    const searchOps: SearchOp[] = [];
    part.ops.forEach((op, tag) => {
      const r = reductions[tag];
      const known = op.output.known;
      if (!known && r === 'drop') {
        this.dropped++;
        return;
      }
      const deadline = !known && typeof r === 'number' ? r : undefined;
      if (deadline !== undefined) this.deadlines.set(tag, deadline);
      const ret = deadline ?? op.ret;
      searchOps.push({ input: op.input, output: op.output, call: op.call, ret, tag, flush: known && r === 'flush' });
    });
    this.searchOps = searchOps;
    this.initial = initial;
    this.search = new PartSearch(model, initial, searchOps, sources);
    if (model.sources) this.due(SOURCES_STEPS_PER_OP * searchOps.length, () => this.tellSources());
    this.budget.search = this.search;
    this.progress = {
      key: part.key,
      linearized: 0,
      total: this.search.requiredTotal,
      operations: part.ops.length,
    };
  }

  /**
   * Searches `slice` steps more at most (fewer once decided, past the deadline, or past
   * `pauseAt` on the check's clock); 'running' means call again.
   */
  run(slice: number, pauseAt?: number): SearchStatus {
    const search = this.search;
    if (!search || this.status !== 'running' || this.halted) return this.status;
    const end = search.iterations + slice;
    // Its arrays, allocated up front, may be over the budget before the first step.
    if (this.budget.over()) this.status = 'out-of-memory';
    while (this.status === 'running') {
      const due = this.dues[0];
      this.status = search.run(Math.min(end, due?.at ?? end) - search.iterations, this.budget, pauseAt);
      if (this.status !== 'running' || due === undefined || search.iterations !== due.at) break;
      this.dues.shift();
      this.halted = due.then();
      if (this.halted || search.iterations >= end) break;
    }
    this.progress.linearized = search.maxLinearized;
    if (this.status !== 'running') this.finish(search);
    return this.status;
  }

  /**
   * Calls `then` once the search reaches step `at` undecided (see dues); `then` answers
   * whether the search stops there for good (the caller reads why).
   */
  due(at: number, then: () => boolean): void {
    this.dues.push({ at: Math.max(at, this.iterations), then });
    this.dues.sort((a, b) => a.at - b.at);
  }

  /** The model's sources (Model.sources), told the search once it has gone on undecided. */
  private tellSources(): boolean {
    const sources = new ReadSources(this.part.ops.length);
    this.model.sources?.(this.part.ops, this.initial, sources.add);
    this.search?.tell(sources);
    return false;
  }

  /**
   * Searches until decided or until it has searched `until()` steps in all (a round's end,
   * or less once a violation elsewhere makes the rest pointless: search-rounds.ts), in slices of
   * `slice` steps, `until` asked again between them; or until `pauseAt` (see shareEnd).
   */
  runTo(until: () => number, slice: number, pauseAt = Number.POSITIVE_INFINITY): SearchStatus {
    // At least one slice, even past `pauseAt`: only the search notices the deadline (at its next
    // look at the clock), and a turn that never searched would come round again forever.
    let status = this.status;
    for (let left = until() - this.iterations, first = true; status === 'running' && left > 0; first = false) {
      if (this.halted) break;
      if (!first && now() > pauseAt) break;
      status = this.run(Math.min(slice, left), pauseAt);
      left = until() - this.iterations;
    }
    return status;
  }

  /** Steps searched so far (for the verdict: not those searched again for a counterexample). */
  get iterations(): number {
    return this.result?.iterations ?? this.search?.iterations ?? 0;
  }

  outcome(): PartOutcome {
    if (this.result) return this.result;
    const search = this.search as PartSearch<unknown>;
    return {
      status: this.status,
      progress: { ...this.progress },
      iterations: search.iterations,
      againIterations: 0,
      cacheEntries: search.cacheEntries,
      dropped: this.dropped,
      peakBytes: this.budget.peak,
    };
  }

  /**
   * Once decided: keep what the result needs and let the memo go.
   *
   * A search that gave up configurations early (a pending read could no longer take effect:
   * SourceSink) decides exactly, but its dead ends are not the shortest prefix's: an order
   * given up early never reached the operation that would have failed last. So an illegal
   * part's counterexample then comes from the search again without that (on the first one's
   * arrays), as it always did; only if that runs out of time or memory, from the first, in
   * words that claim no more than it found.
   */
  private finish(search: PartSearch<unknown>): void {
    this.budget.check(); // one last sample for the peak
    const result = this.outcome();
    if (this.status === 'linearizable' && this.witness)
      result.witness = search.witness().map((tag) => this.part.ops[tag].input.index);
    const exhaustive = search.givenUp === 0;
    if (this.status === 'illegal')
      result.counterexample = explain(this.model, this.part, search, this.deadlines, exhaustive);
    search.release();
    this.search = undefined;
    if (this.status === 'illegal' && !exhaustive) {
      const again = new PartSearch(this.model, this.initial, this.searchOps);
      this.budget.search = again;
      let status: SearchStatus = 'running';
      while (status === 'running') status = this.budget.over() ? 'out-of-memory' : again.run(1 << 20, this.budget);
      if (status === 'illegal') result.counterexample = explain(this.model, this.part, again, this.deadlines);
      result.againIterations = again.iterations;
      again.release();
    }
    this.result = result;
    this.budget.search = undefined;
  }
}
