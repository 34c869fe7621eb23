/**
 * The linearizability search for one part of a history: Wing & Gong's algorithm with Lowe's
 * memoisation, in the shape of Porcupine's checker (a doubly linked list of call and return
 * entries, lift/unlift, a stack of calls), made resumable so that parts can be interleaved.
 *
 * The idea, in brief. The entries of all operations sit in one list in history order. From
 * the head, any call entry met before the first return entry is an operation that may take
 * effect next (everything that must precede it is done). Try one against the model: if it
 * can take effect, *lift* it (its call and its return leave the list), push it on the stack,
 * and look again from the head. When none of the candidates leads anywhere, the operation
 * of that first return entry had to take effect by now and cannot: backtrack (pop, *unlift*,
 * try the next candidate of the configuration below). When every required operation is
 * lifted, the stack is a linearization; when backtracking empties the stack, there is none.
 *
 * Lowe's memoisation: the search reaches the same configuration (the set of linearized
 * operations, the model's state) along many paths; the second time is pointless, so every
 * configuration reached is remembered and not entered twice.
 *
 * Indefinite operations (info, never completed) have a call entry and no return entry: they
 * may be lifted at any point after their call, or never. The search succeeds when every
 * *required* operation (ok, or indefinite with a deadline from the model's reduction) is
 * lifted.
 *
 * Where this departs from Porcupine, to check busy histories (many clients) at all:
 * - the order of candidates. Wing & Gong try them in call order. We try first the operation
 *   whose return comes first (it must take effect before anything else returns), then the
 *   ones after which it can take effect, then the rest. Same search space, but the first
 *   path is nearly always a linearization when there is one;
 * - a pure operation (a read) that can take effect now is the only candidate: if there is a
 *   linearization, there is one with that read moved to here (it changes nothing, and all it
 *   must follow is done), so the alternatives need no trying;
 * - writes nothing observes (the model's 'flush' reduction) go before any other blind write
 *   while they are pending, instead of in every order: a linearization that has a blind
 *   write first has one with such a write moved to right before it (see Reduction);
 * - a configuration in which a pending read can never take effect (the state cannot lead
 *   to its value without a blind write, and each blind write that could has taken effect:
 *   UNREACHABLE and SourceSink) is given up at once, not when the read returns, maybe
 *   hundreds of operations later: a kv search of Porcupine's test took a third of the steps.
 *   The verdict is the same; the dead ends are not the shortest prefix's, so an illegal
 *   part's counterexample comes from a search again without it (part.ts).
 *
 * Speed and memory:
 * - everything is in typed arrays, on buffers handed on from one part's search to the next
 *   (buffers.ts); a step allocates nothing unless the model does;
 * - the linearized set is a bitset with incremental Zobrist hashes (two 32-bit halves);
 * - a remembered configuration is stored compactly and exactly, not as a copy of the bitset
 *   (which for 100k operations is 12.5 kB each): the set is always "every operation called
 *   before the first unlinearized required one, except a few indefinite ones still pending
 *   (holes), plus some operations in a short window after it". So an entry is (state,
 *   frontier, holes, window words), typically 6-8 integers, in one growable Int32Array
 *   arena with an open-addressing table over it; hashes only speed up the comparisons;
 * - transitions are cached: each operation its last one (from state -> to state), and a
 *   table by (operation, state) the ones before, since the search tries the same operations
 *   from the same states again and again while backtracking; a model's step (which may build
 *   a state or a rejection) and interning its result cost far more than a look;
 * - the dead ends are kept as numbers, and made into objects only for a counterexample:
 *   a linearizable history passes a new farthest point at nearly every step forward;
 * - states are small integers: the model's own (Model.space), or interned by its keys.
 */
import { type Model, type OpInput, type OpOutput, type StateSpace, UNREACHABLE } from '../models/linearizable-model.js';
import { buffers } from './buffers.js';
import { InternedSpace } from './interned-space.js';
import type { ReadSources } from './read-sources.js';
import { now as clockNow } from './search-clock.js';

export interface SearchOp {
  input: OpInput;
  output: OpOutput;
  /** History position of the invocation. */
  call: number;
  /** History position by which it must have taken effect; Infinity when optional. */
  ret: number;
  /** The caller's reference for this op (an index into its own list). */
  tag: number;
  /** The model's 'flush' reduction: an ok write nothing observes. */
  flush?: boolean;
}

export type SearchStatus = 'running' | 'linearizable' | 'illegal' | 'out-of-time' | 'out-of-memory';

export interface Budget {
  /** performance.now() after which the search stops with out-of-time. */
  deadline: number;
  /** Called every 64k steps or so: 'out-of-memory' to stop. */
  check(): 'out-of-memory' | undefined;
  /** Whether allocating `bytes` more (typed arrays) stays within the memory budget. */
  canAllocate(bytes: number): boolean;
}

/** A configuration in which the search had to give up at the failing operation. */
export interface DeadEnd {
  /** The model state, by id (see stateOf). */
  state: number;
  /** How many operations were linearized. */
  linearized: number;
  /** The last few linearized operations (tags), in order. */
  tail: number[];
  /** Operations called but not linearized (tags), in call order. */
  pending: number[];
}

const NIL = -1;
const HEAD = 0;
const TAIL_LENGTH = 12;
const PENDING_SHOWN = 24;
const MAX_DEAD_ENDS = 8;

export class PartSearch<S> {
  readonly n: number;
  readonly requiredTotal: number;
  private readonly ops: SearchOp[];
  private readonly required: Uint8Array;
  /** Ops the model says never change the state. */
  private readonly pure: Uint8Array;
  /** Ops that set the state whatever it was, and those of them nothing observes. */
  private readonly blind: Uint8Array;
  private readonly flush: Uint8Array;
  /**
   * Every op is pure or blind (a register's reads and writes): then a pure op that cannot take
   * effect cannot after further steps of non-blind ops either (they change nothing), as if
   * the space had answered UNREACHABLE.
   */
  private readonly pureOrBlind: boolean;

  // The entry list. Entry 0 is the head; entries 1.. are calls and returns in history order,
  // so a larger entry number is later in the history.
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly entryOp: Int32Array;
  private readonly isCall: Uint8Array;
  /** For a call entry of a required op, its return entry; else NIL. */
  private readonly match: Int32Array;
  /** Per op, its call entry. */
  private readonly callEntry: Int32Array;

  /** The model states, as ids: the model's own space, or interned by their keys. */
  private readonly space: StateSpace<S>;
  /** Per op, its last transition: from state (or -1) ... */
  private readonly transFrom: Int32Array;
  /** ... to state, or -1 when it could not take effect. */
  private readonly transTo: Int32Array;
  /** The transitions asked for, by (op, state): see transition(). */
  private readonly transOp: Int32Array;
  private readonly transState: Int32Array;
  private readonly transNext: Int32Array;
  private readonly transShift: number;

  // The linearized set and its hashes.
  private readonly bits: Int32Array;
  private readonly zobrist1: Int32Array;
  private readonly zobrist2: Int32Array;
  private h1 = 0;
  private h2 = 0;
  /** The largest linearized op id (ids are in call order), -1 when none. */
  private hi = -1;

  // The stack of lifted calls: the entry, and the state and hi before it.
  private readonly stackEntry: Int32Array;
  private readonly stackState: Int32Array;
  private readonly stackHi: Int32Array;
  private depth = 0;

  // Per depth, the configuration's candidates: a range of the candidate buffer (entries and
  // the states they lead to), the next one to try, and the configuration's first return entry.
  private readonly frameStart: Int32Array;
  private readonly frameCursor: Int32Array;
  private readonly frameEnd: Int32Array;
  private readonly frameReturn: Int32Array;
  private candEntry: Int32Array;
  private candTo: Int32Array;
  private candLength = 0;
  private scratch = buffers.int32(64);
  /** Whether the configuration at `depth` has its candidates listed. */
  private ready = false;

  // Per read told of (see SourceSink), its sources as op ids: a range of sourceList; -1 for
  // an op never told of. A source the reduction dropped is none: it never takes effect.
  private readonly sourceStart: Int32Array;
  private readonly sourceCount: Int32Array;
  private sourceList: Int32Array;
  /** Entries of sourceList in use: a read told again gets a new range after them. */
  private sourceLength = 0;

  // The memo: open addressing over an arena of entries
  // [h2, state, frontier, holeCount, wordCount, holes..., words...].
  private table: Int32Array;
  private tableHash: Int32Array;
  private arena: Int32Array;
  private arenaLength = 0;
  private holes = buffers.int32(64);
  cacheEntries = 0;

  // Where the search is.
  private state = 0;
  private remaining: number;
  private status: SearchStatus = 'running';

  // What it learned.
  iterations = 0;
  /** Configurations given up because a pending read could no longer take effect (see SourceSink). */
  givenUp = 0;
  /** The most required operations ever linearized at once. */
  maxLinearized = 0;
  /** The latest return entry at which the search had to backtrack, and the configurations there. */
  private failEntry = 0;
  private deadCount = 0;
  private readonly deadState = new Int32Array(MAX_DEAD_ENDS);
  private readonly deadDepth = new Int32Array(MAX_DEAD_ENDS);
  /** Per dead end, its last TAIL_LENGTH linearized ops (op ids, not tags). */
  private readonly deadTail = new Int32Array(MAX_DEAD_ENDS * TAIL_LENGTH);
  /** Per dead end, the ops called but not linearized (op ids, in call order), and how many. */
  private readonly deadPending = Array.from({ length: MAX_DEAD_ENDS }, () => new Int32Array(16));
  private readonly deadPendingLength = new Int32Array(MAX_DEAD_ENDS);

  constructor(model: Model<S>, initial: S, ops: readonly SearchOp[], sources?: ReadSources) {
    this.ops = [...ops].sort((a, b) => a.call - b.call);
    const n = this.ops.length;
    this.n = n;
    this.required = buffers.uint8(n);
    this.pure = buffers.uint8(n);
    this.blind = buffers.uint8(n);
    this.flush = buffers.uint8(n);
    let requiredTotal = 0;
    for (let i = 0; i < n; i++) {
      if (model.pure?.(this.ops[i].input)) this.pure[i] = 1;
      if (model.blind?.(this.ops[i].input)) this.blind[i] = 1;
      if (this.ops[i].flush && Number.isFinite(this.ops[i].ret)) this.flush[i] = 1;
      if (Number.isFinite(this.ops[i].ret)) {
        this.required[i] = 1;
        requiredTotal++;
      }
    }
    this.requiredTotal = requiredTotal;
    this.remaining = requiredTotal;
    let pureOrBlind = true;
    for (let i = 0; i < n && pureOrBlind; i++) pureOrBlind = this.pure[i] === 1 || this.blind[i] === 1;
    this.pureOrBlind = pureOrBlind;

    // Events in history order; at equal positions (a deadline equal to another op's return)
    // calls go first, though returns never share a position with a call.
    const m = n + requiredTotal;
    const eventPos = buffers.float64(m);
    const eventOp = buffers.int32(m);
    const eventCall = buffers.uint8(m);
    let k = 0;
    for (let i = 0; i < n; i++) {
      eventPos[k] = this.ops[i].call;
      eventOp[k] = i;
      eventCall[k++] = 1;
      if (this.required[i]) {
        eventPos[k] = this.ops[i].ret;
        eventOp[k] = i;
        eventCall[k++] = 0;
      }
    }
    // Nearly in order already (calls are, and each return follows its call closely): the
    // comparator sort (TimSort, adaptive) is close to linear on it.
    const order = Array.from({ length: m }, (_, i) => i).sort(
      (a, b) => eventPos[a] - eventPos[b] || eventCall[b] - eventCall[a] || eventOp[a] - eventOp[b],
    );
    this.next = buffers.int32(m + 1);
    this.prev = buffers.int32(m + 1);
    this.entryOp = buffers.int32(m + 1, NIL);
    this.isCall = buffers.uint8(m + 1);
    this.match = buffers.int32(m + 1, NIL);
    const callEntry = buffers.int32(n);
    this.callEntry = callEntry;
    for (let r = 0; r < m; r++) {
      const e = r + 1;
      const ev = order[r];
      this.entryOp[e] = eventOp[ev];
      this.isCall[e] = eventCall[ev];
      if (eventCall[ev]) callEntry[eventOp[ev]] = e;
      else this.match[callEntry[eventOp[ev]]] = e;
    }
    for (let e = 0; e <= m; e++) {
      this.next[e] = e === m ? NIL : e + 1;
      this.prev[e] = e - 1;
    }
    buffers.give(eventPos, eventOp, eventCall);

    this.transFrom = buffers.int32(n, -1);
    this.transTo = buffers.int32(n);
    let transBits = 10;
    while (transBits < 18 && 1 << transBits < n * 2) transBits++;
    this.transShift = 32 - transBits;
    this.transOp = buffers.int32(1 << transBits, -1);
    this.transState = buffers.int32(1 << transBits);
    this.transNext = buffers.int32(1 << transBits);
    this.bits = buffers.int32((n >>> 5) + 1);
    this.zobrist1 = buffers.int32(n);
    this.zobrist2 = buffers.int32(n);
    let seed = 0x9e3779b9 ^ n;
    for (let i = 0; i < n; i++) {
      // xorshift32: deterministic, so runs are repeatable.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      this.zobrist1[i] = seed;
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      this.zobrist2[i] = seed;
    }
    this.stackEntry = buffers.int32(n + 1);
    this.stackState = buffers.int32(n + 1);
    this.stackHi = buffers.int32(n + 1);
    this.frameStart = buffers.int32(n + 1);
    this.frameCursor = buffers.int32(n + 1);
    this.frameEnd = buffers.int32(n + 1);
    this.frameReturn = buffers.int32(n + 1);
    this.candEntry = buffers.int32(Math.max(64, n * 2));
    this.candTo = buffers.int32(Math.max(64, n * 2));
    // Sized for a search that goes straight through; they grow when it does not.
    let tableSize = 16;
    while (tableSize < n * 4) tableSize *= 2;
    this.table = buffers.int32(tableSize);
    this.tableHash = buffers.int32(tableSize);
    this.arena = buffers.int32(Math.max(64, n * 8));
    this.space = model.space?.(initial, buffers) ?? new InternedSpace(model, initial);
    this.sourceStart = buffers.int32(n, -1);
    this.sourceCount = buffers.int32(n);
    this.sourceList = buffers.int32(64);
    if (sources?.any) this.tell(sources);
  }

  /**
   * Reads' sources (SourceSink), at the start or told once the search is under way
   * (Model.sources): from its next configuration on it gives up on them. Exact either way;
   * the configurations it remembers were all reachable. Each telling lists a read's every
   * source, so a read told twice keeps the later list.
   */
  tell(sources: ReadSources): void {
    const { n, ops } = this;
    let tags = 0;
    for (const o of ops) tags = Math.max(tags, o.tag + 1);
    const idOf = buffers.int32(tags, NIL);
    for (let i = 0; i < n; i++) idOf[ops[i].tag] = i;
    let length = this.sourceLength;
    let list = this.sourceList;
    for (let i = 0; i < n; i++) {
      const tag = ops[i].tag;
      if (!sources.known(tag)) continue;
      this.sourceStart[i] = length;
      for (let k = sources.first(tag), end = k + sources.count(tag); k < end; k++) {
        const write = sources.sourceAt(k);
        const id = write < tags ? idOf[write] : NIL;
        if (id === NIL) continue;
        if (length === list.length) {
          const bigger = buffers.int32(length * 2);
          bigger.set(list);
          buffers.give(list);
          list = bigger;
        }
        list[length++] = id;
      }
      this.sourceCount[i] = length - this.sourceStart[i];
    }
    this.sourceList = list;
    this.sourceLength = length;
    buffers.give(idOf);
  }

  /** Whether op `op` is a read told of whose every source is linearized (see SourceSink). */
  private sourcesTaken(op: number): boolean {
    const start = this.sourceStart[op];
    if (start < 0) return false;
    const { bits, sourceList } = this;
    for (let i = start, end = start + this.sourceCount[op]; i < end; i++) {
      const w = sourceList[i];
      if ((bits[w >>> 5] & (1 << (w & 31))) === 0) return false;
    }
    return true;
  }

  /**
   * Searches `maxIterations` steps at most, exactly that many unless decided, past the
   * deadline, or past `pauseAt` (the clock, under a time limit only): the rounds of
   * search-rounds.ts count on it. 'running' means call again.
   */
  run(maxIterations: number, budget: Budget, pauseAt = Number.POSITIVE_INFINITY): SearchStatus {
    if (this.status !== 'running') return this.status;
    this.budget = budget;
    try {
      return this.search(maxIterations, budget, pauseAt);
    } finally {
      this.budget = undefined;
    }
  }

  /** The budget of the current run, for the memo's allocations. */
  private budget: Budget | undefined;
  /** Looks at the clock so far: every 16th also looks at the memory. */
  private clockChecks = 0;

  private search(maxIterations: number, budget: Budget, pauseAt: number): SearchStatus {
    const { next, prev, entryOp, match, required, bits, zobrist1, zobrist2 } = this;
    const { stackEntry, stackState, stackHi, frameStart, frameCursor, frameEnd, frameReturn } = this;
    const requiredTotal = this.requiredTotal;
    let depth = this.depth;
    let state = this.state;
    let hi = this.hi;
    let remaining = this.remaining;
    let h1 = this.h1;
    let h2 = this.h2;
    let ready = this.ready;
    let iterations = 0;
    let status: SearchStatus = 'running';
    // Budgets are looked at every 4096 steps of the whole search (the clock) and every 16th
    // time (memory), however it is cut into runs: so a part's budgets bite after the same
    // steps on one thread or several, and short runs look too. The run ends after
    // maxIterations steps: one comparison per step.
    let clockAt = 4096 - (this.iterations % 4096);
    let checkAt = Math.min(maxIterations, clockAt);
    let checks = this.clockChecks;

    for (;;) {
      if (remaining === 0) {
        status = 'linearizable';
        break;
      }
      if (iterations >= checkAt) {
        if (iterations >= clockAt) {
          clockAt += 4096;
          const now = clockNow();
          if (now > budget.deadline) {
            status = 'out-of-time';
            break;
          }
          if (now > pauseAt) break;
          if ((++checks & 15) === 0 && budget.check() !== undefined) {
            status = 'out-of-memory';
            break;
          }
        }
        if (iterations >= maxIterations) break;
        checkAt = Math.min(maxIterations, clockAt);
      }
      iterations++;

      if (!ready) {
        // A configuration reached for the first time: list what may take effect next.
        if (!this.openFrame(depth, state) || this.outOfMemory) {
          status = 'out-of-memory';
          break;
        }
        ready = true;
      }

      const cursor = frameCursor[depth];
      if (cursor < frameEnd[depth]) {
        frameCursor[depth] = cursor + 1;
        const entry = this.candEntry[cursor];
        const to = this.candTo[cursor];
        const op = entryOp[entry];
        const word = op >>> 5;
        const bit = 1 << (op & 31);
        bits[word] |= bit;
        h1 ^= zobrist1[op];
        h2 ^= zobrist2[op];
        const newHi = Math.max(op, hi);
        const req = required[op];
        // The last required op needs no memo entry: the search ends with it.
        const fresh = remaining === req ? 1 : this.remember(h1, h2, to, op, newHi);
        if (fresh === 1) {
          stackEntry[depth] = entry;
          stackState[depth] = state;
          stackHi[depth] = hi;
          depth++;
          state = to;
          hi = newHi;
          // lift: the call, then its return
          const n1 = next[entry];
          next[prev[entry]] = n1;
          if (n1 !== NIL) prev[n1] = prev[entry];
          if (req === 1) {
            const r = match[entry];
            const n2 = next[r];
            next[prev[r]] = n2;
            if (n2 !== NIL) prev[n2] = prev[r];
            remaining--;
            if (requiredTotal - remaining > this.maxLinearized) this.maxLinearized = requiredTotal - remaining;
          }
          ready = false;
          continue;
        }
        bits[word] &= ~bit;
        h1 ^= zobrist1[op];
        h2 ^= zobrist2[op];
        if (fresh === -1) {
          status = 'out-of-memory';
          break;
        }
        continue;
      }

      // Nothing more to try here: the operation that returns first cannot be linearized
      // from this configuration. Backtrack.
      const ret = frameReturn[depth];
      if (ret !== NIL && ret >= this.failEntry) this.noteDeadEnd(ret, state, depth);
      this.candLength = frameStart[depth];
      if (depth === 0) {
        status = 'illegal';
        break;
      }
      depth--;
      const e = stackEntry[depth];
      const op = entryOp[e];
      state = stackState[depth];
      hi = stackHi[depth];
      bits[op >>> 5] &= ~(1 << (op & 31));
      h1 ^= zobrist1[op];
      h2 ^= zobrist2[op];
      // unlift: the return, then the call (the reverse of lift)
      if (required[op] === 1) {
        const r = match[e];
        next[prev[r]] = r;
        if (next[r] !== NIL) prev[next[r]] = r;
        remaining++;
      }
      next[prev[e]] = e;
      if (next[e] !== NIL) prev[next[e]] = e;
    }

    this.depth = depth;
    this.state = state;
    this.hi = hi;
    this.remaining = remaining;
    this.h1 = h1;
    this.h2 = h2;
    this.ready = ready;
    this.clockChecks = checks;
    this.iterations += iterations;
    this.status = status;
    return status;
  }

  /**
   * Lists, for the configuration at `depth`, the operations that may take effect next, in
   * the order to try them: the calls before the first return entry that the model accepts
   * in `state`. Wing & Gong try them in call order; we try first the operation whose return
   * comes first (it must take effect before anything else returns), then the ones after
   * which it can take effect, then the rest, which finds linearizations of busy histories
   * with far less backtracking. A pure operation (a read) that can take effect is the only
   * candidate: taking it now loses nothing. A required one that never can from here leaves
   * none (see givenUp). False if out of memory.
   */
  private openFrame(depth: number, state: number): boolean {
    const { next, entryOp, isCall, pure, blind, transFrom, transTo } = this;
    const start = this.candLength;
    let length = start;
    let entry = next[HEAD];
    let forced = NIL;
    let forcedTo = -1;
    let dead = false;
    for (; entry !== NIL && isCall[entry] === 1; entry = next[entry]) {
      const op = entryOp[entry];
      let to: number;
      if (transFrom[op] === state) {
        to = transTo[op];
      } else {
        // A blind write leads to the same state from any: its last transition will do.
        to = blind[op] === 1 && transFrom[op] !== -1 ? transTo[op] : this.transition(op, state);
        transFrom[op] = state;
        transTo[op] = to;
      }
      if (to < 0) {
        // A pending read that can never take effect from here: a dead end now, not when it returns.
        const unreachable = to === UNREACHABLE || (this.pureOrBlind && pure[op] === 1);
        if (unreachable && this.required[op] === 1 && this.sourcesTaken(op)) {
          dead = true;
          break;
        }
        continue;
      }
      if (pure[op] === 1) {
        forced = entry;
        forcedTo = to;
        break;
      }
      if (length === this.candEntry.length && !this.growCandidates()) return false;
      this.candEntry[length] = entry;
      this.candTo[length++] = to;
    }
    while (entry !== NIL && isCall[entry] === 1) entry = next[entry];
    const ret = entry; // the first return entry
    this.frameReturn[depth] = ret;
    this.frameStart[depth] = start;
    this.frameCursor[depth] = start;
    if (dead) {
      this.givenUp++;
      this.candLength = this.frameEnd[depth] = start;
      return true;
    }
    if (forced !== NIL) {
      if (start === this.candEntry.length && !this.growCandidates()) return false;
      this.candEntry[start] = forced;
      this.candTo[start] = forcedTo;
      this.candLength = this.frameEnd[depth] = start + 1;
      return true;
    }
    const { candEntry, candTo, flush } = this;
    // Unobserved writes pending: the first of them is the only blind write that may go now
    // (see Reduction: wherever a blind write could go first, they can go right before it).
    let flushing = NIL;
    for (let i = start; i < length && flushing === NIL; i++)
      if (flush[entryOp[candEntry[i]]] === 1) flushing = candEntry[i];
    if (flushing !== NIL) {
      let kept = start;
      for (let i = start; i < length; i++) {
        const e = candEntry[i];
        if (blind[entryOp[e]] === 1 && e !== flushing) continue;
        candEntry[kept] = e;
        candTo[kept++] = candTo[i];
      }
      length = kept;
    }
    this.candLength = this.frameEnd[depth] = length;
    if (ret === NIL || length - start < 2) return true;

    // Order: the returning op, then ops it can follow (and the flush that leads to them),
    // then the rest, each in call order.
    const retOp = entryOp[ret];
    const retCall = this.callEntry[retOp];
    const retLegal = transFrom[retOp] === state && transTo[retOp] >= 0;
    let scratch = this.scratch;
    if (scratch.length < (length - start) * 2) {
      buffers.give(scratch);
      scratch = this.scratch = buffers.int32((length - start) * 4);
    }
    let front = start;
    let rest = 0;
    for (let i = start; i < length; i++) {
      const e = candEntry[i];
      const to = candTo[i];
      const first = e === retCall || (!retLegal && (e === flushing || this.transition(retOp, to) >= 0));
      if (first) {
        candEntry[front] = e;
        candTo[front++] = to;
      } else {
        scratch[rest++] = e;
        scratch[rest++] = to;
      }
    }
    for (let i = 0; i < rest; i += 2) {
      candEntry[front] = scratch[i];
      candTo[front++] = scratch[i + 1];
    }
    return true;
  }

  private growCandidates(): boolean {
    const size = this.candEntry.length * 2;
    if (!this.budget?.canAllocate(size * 8)) return false;
    const entries = buffers.int32(size);
    entries.set(this.candEntry);
    const tos = buffers.int32(size);
    tos.set(this.candTo);
    buffers.give(this.candEntry, this.candTo);
    this.candEntry = entries;
    this.candTo = tos;
    return true;
  }

  /** Set when a transition found the memory budget exceeded. */
  private outOfMemory = false;

  /**
   * The state `op` leads to from `state`, or -1 when it cannot take effect there. The search
   * asks for the same few transitions again and again while it backtracks; a step of the
   * model (which may build a state and a rejection) and the interning of its result (a hash
   * of the state's key) cost far more than a look in this table, which never allocates.
   * Lossy (a slot holds the last pair hashed to it): it only saves work.
   */
  private transition(op: number, state: number): number {
    const slot = (Math.imul(op, 0x9e3779b1) ^ Math.imul(state + 1, 0x85ebca6b)) >>> this.transShift;
    if (this.transOp[slot] === op && this.transState[slot] === state) return this.transNext[slot];
    const o = this.ops[op];
    const to = this.space.step(state, o.input, o.output);
    // States pile up, and can be large: look at memory every 1024 new ones, not only every 64k
    // steps.
    if ((to & 1023) === 1023 && to === this.space.size - 1 && this.budget?.check() !== undefined)
      this.outOfMemory = true;
    this.transOp[slot] = op;
    this.transState[slot] = state;
    this.transNext[slot] = to;
    return to;
  }

  /**
   * Remembers the configuration (linearized set with `op` added, `state`): 1 if it is new,
   * 0 if it was reached before, -1 if there is no memory left to remember it.
   *
   * Its exact, compact form: the frontier (the first unlinearized required op: every op
   * called before it is linearized except the holes), the holes (indefinite ops called before
   * the frontier and still pending: exactly the optional call entries at the head of the list
   * before the first required entry), and the bitset words from the frontier to `hi`.
   */
  private remember(h1: number, h2: number, state: number, op: number, hi: number): 0 | 1 | -1 {
    const { next, entryOp, required } = this;
    let holes = this.holes;
    let holeCount = 0;
    let frontier = this.n;
    for (let e = next[HEAD]; e !== NIL; e = next[e]) {
      const o = entryOp[e];
      if (o === op) continue; // being linearized: neither a hole nor the frontier
      if (required[o] === 1) {
        frontier = o; // the first required entry is a call: an unlinearized op's call precedes its return
        break;
      }
      if (holeCount === holes.length) {
        const bigger = buffers.int32(holes.length * 2);
        bigger.set(holes);
        buffers.give(holes);
        holes = this.holes = bigger;
      }
      holes[holeCount++] = o;
    }
    const firstWord = frontier >>> 5;
    const wordCount = hi >= frontier ? (hi >>> 5) - firstWord + 1 : 0;
    const bits = this.bits;

    let hash = (h1 ^ Math.imul(state + 1, 0x9e3779b1)) | 0;
    hash ^= hash >>> 16;
    hash = Math.imul(hash, 0x85ebca6b);
    hash ^= hash >>> 13;
    const table = this.table;
    const tableHash = this.tableHash;
    const mask = table.length - 1;
    let arena = this.arena;
    let slot = hash & mask;
    for (;;) {
      const ref = table[slot];
      if (ref === 0) break;
      if (tableHash[slot] === hash) {
        const at = ref - 1;
        if (
          arena[at] === h2 &&
          arena[at + 1] === state &&
          arena[at + 2] === frontier &&
          arena[at + 3] === holeCount &&
          arena[at + 4] === wordCount
        ) {
          let same = true;
          let p = at + 5;
          for (let i = 0; i < holeCount && same; i++) same = arena[p + i] === holes[i];
          p += holeCount;
          for (let i = 0; i < wordCount && same; i++) same = arena[p + i] === bits[firstWord + i];
          if (same) return 0;
        }
      }
      slot = (slot + 1) & mask;
    }

    const size = 5 + holeCount + wordCount;
    if (this.arenaLength + size > arena.length) {
      const bigger = Math.max(arena.length * 2, this.arenaLength + size);
      if (!this.budget?.canAllocate(bigger * 4)) return -1;
      const grown = buffers.int32(bigger);
      grown.set(arena.subarray(0, this.arenaLength));
      buffers.give(arena);
      arena = this.arena = grown;
    }
    const at = this.arenaLength;
    arena[at] = h2;
    arena[at + 1] = state;
    arena[at + 2] = frontier;
    arena[at + 3] = holeCount;
    arena[at + 4] = wordCount;
    let p = at + 5;
    for (let i = 0; i < holeCount; i++) arena[p++] = holes[i];
    for (let i = 0; i < wordCount; i++) arena[p++] = bits[firstWord + i];
    this.arenaLength = p;
    table[slot] = at + 1;
    tableHash[slot] = hash;
    this.cacheEntries++;
    if (this.cacheEntries * 2 > mask) return this.growTable() ? 1 : -1;
    return 1;
  }

  private growTable(): boolean {
    const size = this.table.length * 2;
    if (!this.budget?.canAllocate(size * 8)) return false;
    const table = buffers.int32(size);
    const tableHash = buffers.int32(size);
    const mask = size - 1;
    const oldTable = this.table;
    const oldHash = this.tableHash;
    for (let i = 0; i < oldTable.length; i++) {
      const ref = oldTable[i];
      if (ref === 0) continue;
      let slot = oldHash[i] & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = ref;
      tableHash[slot] = oldHash[i];
    }
    buffers.give(oldTable, oldHash);
    this.table = table;
    this.tableHash = tableHash;
    return true;
  }

  /**
   * The search had to backtrack at return entry `entry`. The latest such entry over the whole
   * search is where no linearization can go on; keep a few distinct configurations there.
   * In a linearizable history every new farthest point comes here, so a configuration is
   * kept as numbers in preallocated arrays, compared with the few kept ones directly, and
   * made into DeadEnd objects only when failure() asks.
   */
  private noteDeadEnd(entry: number, state: number, depth: number): void {
    if (entry > this.failEntry) {
      this.failEntry = entry;
      this.deadCount = 0;
    } else if (this.deadCount >= MAX_DEAD_ENDS) {
      return;
    }
    const { next, isCall, entryOp, deadPending, deadPendingLength, deadState } = this;
    const slot = this.deadCount;
    let pending = deadPending[slot];
    let length = 0;
    for (let e = next[HEAD]; e !== entry && e !== NIL; e = next[e]) {
      if (isCall[e] !== 1) continue;
      if (length === pending.length) {
        const bigger = new Int32Array(pending.length * 2);
        bigger.set(pending);
        pending = deadPending[slot] = bigger;
      }
      pending[length++] = entryOp[e];
    }
    for (let i = 0; i < slot; i++) {
      if (deadState[i] !== state || deadPendingLength[i] !== length) continue;
      const other = deadPending[i];
      let same = true;
      for (let j = 0; j < length && same; j++) same = other[j] === pending[j];
      if (same) return;
    }
    deadState[slot] = state;
    deadPendingLength[slot] = length;
    this.deadDepth[slot] = depth;
    const from = Math.max(0, depth - TAIL_LENGTH);
    for (let d = from; d < depth; d++) this.deadTail[slot * TAIL_LENGTH + d - from] = entryOp[this.stackEntry[d]];
    this.deadCount = slot + 1;
  }

  /** After 'illegal': the op (tag) at which no linearization can go on, and the configurations there. */
  failure(): { op: number; deadEnds: DeadEnd[] } | undefined {
    if (this.status !== 'illegal' || this.failEntry === 0) return undefined;
    const tag = (op: number) => this.ops[op].tag;
    const deadEnds: DeadEnd[] = [];
    for (let slot = 0; slot < this.deadCount; slot++) {
      const depth = this.deadDepth[slot];
      const start = slot * TAIL_LENGTH;
      const tailLength = Math.min(depth, TAIL_LENGTH);
      deadEnds.push({
        state: this.deadState[slot],
        linearized: depth,
        tail: Array.from(this.deadTail.subarray(start, start + tailLength), tag),
        pending: Array.from(
          this.deadPending[slot].subarray(0, Math.min(this.deadPendingLength[slot], PENDING_SHOWN)),
          tag,
        ),
      });
    }
    return { op: tag(this.entryOp[this.failEntry]), deadEnds };
  }

  /** After 'linearizable': the linearization found, as tags in order. */
  witness(): number[] {
    const order: number[] = [];
    for (let d = 0; d < this.depth; d++) order.push(this.ops[this.entryOp[this.stackEntry[d]]].tag);
    return order;
  }

  /** The model state with this id (ids appear in DeadEnd). */
  stateOf(id: number): S {
    return this.space.state(id);
  }

  get stateCount(): number {
    return this.space.size;
  }

  /**
   * The search's own memory: its typed arrays (the entry list, the stack, the candidates, the
   * memo) and its states, estimated. What the memory budget counts, rather than the process's
   * heap, which holds whatever else the process did before (an earlier file, say).
   */
  get bytes(): number {
    let bytes = this.space.bytes + this.ops.length * 8;
    for (const a of this.arrays()) bytes += a.byteLength;
    return bytes;
  }

  /**
   * Once decided and read (failure(), witness()): hands the search's arrays on to the next
   * search in this thread (buffers.ts). It cannot be used after, stateOf() included.
   */
  release(): void {
    buffers.give(...this.arrays());
    this.space.release();
  }

  private arrays(): ArrayBufferView[] {
    return [
      this.required,
      this.pure,
      this.blind,
      this.flush,
      this.next,
      this.prev,
      this.entryOp,
      this.isCall,
      this.match,
      this.callEntry,
      this.transFrom,
      this.transTo,
      this.transOp,
      this.transState,
      this.transNext,
      this.bits,
      this.zobrist1,
      this.zobrist2,
      this.stackEntry,
      this.stackState,
      this.stackHi,
      this.frameStart,
      this.frameCursor,
      this.frameEnd,
      this.frameReturn,
      this.candEntry,
      this.candTo,
      this.scratch,
      this.table,
      this.tableHash,
      this.arena,
      this.holes,
      this.sourceStart,
      this.sourceCount,
      this.sourceList,
    ];
  }
}
