/**
 * Helpers for models over JSON-like values: a value's key, equality and few-character form,
 * and the rules register-like models share (a read against the value held, the reduction
 * by observation, an observation no producer explains). linearizable-model.ts is what a model is.
 */
import {
  MAX_SOURCES,
  type OpOutput,
  type PartOp,
  REJECTED,
  type Reduction,
  type Rejection,
  reject,
  type SourceSink,
} from './linearizable-model.js';

/**
 * A key such that two values have equal keys iff they are structurally equal (arrays by
 * element, objects by their sorted keys); nil, null and undefined are all nil.
 */
export function valueKey(v: unknown): string | number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return `s${v}`;
  if (v === null || v === undefined) return 'n';
  return `j${canonicalJson(v)}`;
}

function canonicalJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  // Numbers (most values: lock-set's sets are arrays of them) without JSON.stringify: a
  // finite number's JSON is its string.
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) {
    // An array of finite numbers (lock-set's sets) is one native join: the same text as
    // element by element, without a string made per element.
    if (finiteNumbers(v)) return `[${v.join(',')}]`;
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(v[i]);
    return `${out}]`;
  }
  if (typeof v === 'object') {
    const keys = Object.keys(v as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? String(v);
}

/** Whether every element is a finite number: valueKey's array that is one join (lock-set's sets). */
export function finiteNumbers(v: readonly unknown[]): boolean {
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) return false;
  }
  return true;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return valueKey(a) === valueKey(b);
}

/** A value in a few characters: nil, 3, "a", [1 2]. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * A read of a register-like value: why it cannot take effect while `held` is current, if it
 * cannot (REJECTED when `explain` is false: see Model.step).
 */
export function readRejection(output: OpOutput, held: unknown, subject: string, explain = true): Rejection | undefined {
  if (!output.known || sameValue(output.value, held)) return undefined;
  return explain ? reject(readMismatch, output.value, held, subject) : REJECTED;
}

const readMismatch = (read: unknown, held: unknown, subject: string) =>
  `read ${showValue(read)}, but ${subject} holds ${showValue(held)}`;

/** A read in a few words: "read → 5", "read (no answer)". */
export function describeRead(output: OpOutput): string {
  return output.known ? `read → ${showValue(output.value)}` : 'read (no answer)';
}

/** The roles of a register-like model's operations, for reduceByObservation and impossibleObservation. */
export interface ValueRoles {
  /** The value key the op (`i`: its place in the ops) makes current, if any. */
  produces(op: PartOp, i: number): string | number | undefined;
  /** The value key the op needs current to take effect, if any. */
  observes(op: PartOp): string | number | undefined;
}

/** What an ok `read` observes: the value its completion returned. */
export function observedByRead(op: PartOp): string | number | undefined {
  return op.input.f === 'read' && op.output.known ? valueKey(op.output.value) : undefined;
}

/**
 * The reduction for register-like models, where every state-changing operation *produces* a
 * value (makes it current) and reads *observe* one. Exact because:
 * - a pure operation (an indefinite read) changes nothing, so taking effect never matters;
 * - if no operation observes the value an indefinite op produces, taking effect can only make
 *   observations fail (or, for fenced writes, tokens stale), so dropping it loses nothing;
 * - if an indefinite op is the only producer of a value that an ok operation observes (and
 *   the initial state is not that value), it must take effect before that observation's
 *   return: so it is required with that return as its own;
 * - an ok blind write whose value nothing observes is followed, in any linearization, by a
 *   blind write or by nothing (anything else between would observe its value): 'flush'.
 */
export function reduceByObservation(
  ops: readonly PartOp[],
  initialValueKey: string | number,
  roles: ValueRoles & {
    /** Whether the op is a blind write (see Model.blind); without it no op is flushed. */
    blind?(op: PartOp): boolean;
  },
): Reduction[] {
  const producers = new Map<string | number, number>();
  const observers = new Map<string | number, number>(); // any op, ok or not
  const firstOkObservation = new Map<string | number, number>(); // earliest ok observer's return
  const produced: (string | number | undefined)[] = [];
  for (const [i, op] of ops.entries()) {
    const p = roles.produces(op, i);
    produced.push(p);
    if (p !== undefined) producers.set(p, (producers.get(p) ?? 0) + 1);
    const o = roles.observes(op);
    if (o === undefined) continue;
    observers.set(o, (observers.get(o) ?? 0) + 1);
    if (op.output.known) firstOkObservation.set(o, Math.min(firstOkObservation.get(o) ?? Infinity, op.ret));
  }
  return ops.map((op, i): Reduction => {
    const p = produced[i];
    if (op.output.known) return p !== undefined && !observers.has(p) && roles.blind?.(op) ? 'flush' : 'keep';
    if (p === undefined) return roles.observes(op) === undefined ? 'drop' : 'keep';
    if (!observers.has(p)) return 'drop';
    const deadline = firstOkObservation.get(p);
    if (producers.get(p) === 1 && p !== initialValueKey && deadline !== undefined && deadline > op.call)
      return deadline;
    return 'keep';
  });
}

/**
 * Each ok observer's sources (SourceSink, Model.sources): the producers of the value it
 * observes, which are every write after which it can take effect when the writes are blind
 * (a register's). Not told for a value of more than MAX_SOURCES producers (Jepsen's five
 * values: thousands each).
 */
export function observationSources(ops: readonly PartOp[], roles: ValueRoles, sink: SourceSink): void {
  const n = ops.length;
  const produced: (string | number | undefined)[] = ops.map((op, i) => roles.produces(op, i));
  const count = new Map<string | number, number>();
  for (const p of produced) if (p !== undefined) count.set(p, (count.get(p) ?? 0) + 1);
  // Each value's producers as a chain: its first, and per op the next of its value (-1: none).
  const first = new Map<string | number, number>();
  const next = new Int32Array(n).fill(-1);
  for (let i = n - 1; i >= 0; i--) {
    const p = produced[i];
    if (p === undefined || (count.get(p) as number) > MAX_SOURCES) continue;
    next[i] = first.get(p) ?? -1;
    first.set(p, i);
  }
  const found: number[] = [];
  for (let i = 0; i < n; i++) {
    const op = ops[i];
    if (!op.output.known) continue;
    const o = roles.observes(op);
    if (o === undefined || (count.get(o) ?? 0) > MAX_SOURCES) continue;
    found.length = 0;
    for (let w = first.get(o) ?? -1; w >= 0; w = next[w]) found.push(w);
    sink(i, found);
  }
}

/** The roles impossibleObservation reads: which ops produce and observe which value keys, and how to say it. */
export interface ObservationRoles extends ValueRoles {
  /** What holds the value, for messages: "the register". */
  subject: string;
  /** The observed value, shown: "5". */
  shownValue(op: PartOp): string;
  /**
   * Optional: the value keys whose producers can each explain what `op` observes, where that
   * is more than the one it observes (kv with appends: each put whose text the value begins
   * with, the rest appended after it; the initial value's key if it begins with it). The
   * last producer before the observer in any linearization is one of them. The answer is
   * read before the next call (it may be one array, reused).
   */
  explainedBy?(op: PartOp): readonly (string | number)[];
  /** Optional, with explainedBy: a value key, shown ("p"). */
  shownKey?(key: string | number): string;
}

/**
 * For register-like models: an ok observation no producer can explain, found without any
 * search, so the classic violations (a read of a value nothing wrote; a read of a value
 * certainly overwritten before the read began) cost nothing however busy the history.
 *
 * An observer `r` of value v is impossible when every producer P of v (and the initial
 * state, if it is v; with roles.explainedBy, of each value it names) is ruled out: P was invoked after r completed, or some ok producer W
 * was invoked after P completed and completed before r was invoked (so W's effect falls
 * strictly between P's and r's). W may itself produce v; then it is a producer and is ruled
 * out in turn, by a later W, which also falls after P. Returns the impossible observer that
 * completes first, if any.
 *
 * In O(n log n), however many producers a value has (Jepsen's register tests write one of
 * five values, so each has thousands): each producer P gets once its `alive`, the last
 * moment an observer may be invoked and still see P's value (the earliest completion of an
 * ok producer invoked after P completed; never, for P without a completion). An observer is
 * then explained iff some producer of its value invoked before the observer completed is
 * alive when the observer is invoked: a prefix maximum over the value's producers in call
 * order, and a binary search. Reasons are built only for the observer reported.
 */
export function impossibleObservation(
  ops: readonly PartOp[],
  initialValueKey: string | number,
  roles: ObservationRoles,
): { op: number; reason: string } | undefined {
  const producers = new ProducerIndex(ops, initialValueKey, roles);
  const explainedBy = roles.explainedBy;
  let worst = -1;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (!op.output.known || (worst >= 0 && ops[worst].ret <= op.ret)) continue;
    const v = roles.observes(op);
    if (v === undefined) continue;
    if (explainedBy ? explainedBy(op).some((e) => producers.explains(i, op, e)) : producers.explains(i, op, v))
      continue;
    worst = i;
  }
  if (worst < 0) return undefined;
  return { op: worst, reason: whyImpossible(ops, worst, producers, roles) };
}

/**
 * impossibleObservation's index, in typed arrays (a map of a list per value cost a
 * million-operation history over a second): values as dense ids (the initial value's 0), each
 * value's producers together and by call, with the prefix maxima of their `alive`; and the
 * ok producers by call with the suffix minima of their completions, for `alive` itself. The
 * ops' objects are read once (each read of a million of them is a cache miss), and keys that
 * are small whole numbers (unique writes, kv's text numbers) are ids by a table, not a map.
 */
class ProducerIndex {
  /** Value key → id, for keys not in `small`. */
  private readonly ids = new Map<string | number, number>();
  /** Per small whole-number key (below its length): id + 1, or 0. */
  private readonly small: Int32Array;
  /** Per id: where its producers begin in `members` (and, at id + 1, end). */
  private readonly begin: Int32Array;
  /** The producers, grouped by value, each group by call. */
  private readonly members: Int32Array;
  /** Per place in `members`: the producer's call, and the prefix maxima of alive in its group (best and runner-up, for an observer that is itself a producer). */
  private readonly calls: Float64Array;
  private readonly best: Float64Array;
  private readonly bestWho: Int32Array;
  private readonly second: Float64Array;
  /** The ok producers by call, with the suffix minima of their completions (and whose). */
  private readonly okCalls: Float64Array;
  private readonly minWho: Int32Array;
  /** When the initial value is overwritten for certain: the first completion of any ok producer. */
  private readonly initialAlive: number;

  constructor(ops: readonly PartOp[], initialValueKey: string | number, roles: ValueRoles) {
    const n = ops.length;
    const [small, valueIdOf, byCall] = carve((l) => new Int32Array(l), 2 * n + 16, n, n);
    this.small = small;
    /** Per op: its value's id, -1 for an op that produces none. */
    valueIdOf.fill(-1);
    const [call, ret] = carve((l) => new Float64Array(l), n, n);
    const count: number[] = [];
    this.id(initialValueKey, count);
    let sorted = true;
    let size = 0;
    let okCount = 0;
    for (let i = 0; i < n; i++) {
      const op = ops[i];
      call[i] = op.call;
      ret[i] = op.output.known ? op.ret : Number.POSITIVE_INFINITY;
      if (i > 0 && call[i - 1] > call[i]) sorted = false;
      const p = roles.produces(op, i);
      if (p === undefined) continue;
      const id = this.id(p, count);
      valueIdOf[i] = id;
      count[id]++;
      size++;
      if (op.output.known) okCount++;
    }
    // The ops by call (a part's are already; a model's test's may not be).
    for (let i = 0; i < n; i++) byCall[i] = i;
    if (!sorted) byCall.sort((a, b) => call[a] - call[b]);
    const values = count.length;
    const [ok, minWho, begin, next, members, bestWho] = carve(
      (l) => new Int32Array(l),
      okCount,
      okCount + 1,
      values + 1,
      values,
      size,
      size,
    );
    const [okCalls, minRet, calls, best, second] = carve(
      (l) => new Float64Array(l),
      okCount,
      okCount + 1,
      size,
      size,
      size,
    );
    this.okCalls = okCalls;
    this.minWho = minWho;
    this.begin = begin;
    this.members = members;
    this.calls = calls;
    this.best = best;
    this.bestWho = bestWho;
    this.second = second;
    for (let k = 0, o = 0; k < n; k++) {
      const i = byCall[k];
      if (valueIdOf[i] < 0 || ret[i] === Number.POSITIVE_INFINITY) continue;
      ok[o] = i;
      okCalls[o++] = call[i];
    }
    minRet[okCount] = Number.POSITIVE_INFINITY;
    minWho[okCount] = -1;
    for (let k = okCount - 1; k >= 0; k--) {
      const r = ret[ok[k]];
      const earlier = r < minRet[k + 1];
      minRet[k] = earlier ? r : minRet[k + 1];
      minWho[k] = earlier ? ok[k] : minWho[k + 1];
    }
    this.initialAlive = minRet[0];
    for (let id = 0; id < values; id++) begin[id + 1] = begin[id] + count[id];
    next.set(begin.subarray(0, values));
    for (let k = 0; k < n; k++) {
      const i = byCall[k];
      if (valueIdOf[i] < 0) continue;
      const at = next[valueIdOf[i]]++;
      members[at] = i;
      calls[at] = call[i];
    }
    for (let id = 0; id < values; id++) {
      let b = Number.NEGATIVE_INFINITY;
      let who = -1;
      let s = Number.NEGATIVE_INFINITY;
      for (let at = begin[id]; at < begin[id + 1]; at++) {
        const p = members[at];
        const alive = ret[p] === Number.POSITIVE_INFINITY ? ret[p] : minRet[this.okAfter(ret[p])];
        if (alive > b) {
          s = b;
          b = alive;
          who = p;
        } else if (alive > s) {
          s = alive;
        }
        best[at] = b;
        bestWho[at] = who;
        second[at] = s;
      }
    }
  }

  /** Key `v`'s id, made (and counted in `count`) if it has none yet. */
  private id(v: string | number, count: number[]): number {
    const known = this.find(v);
    if (known >= 0) return known;
    const id = count.length;
    count.push(0);
    if (this.isSmall(v)) this.small[v] = id + 1;
    else this.ids.set(v, id);
    return id;
  }

  /** Key `v`'s id; -1 if nothing produces it and it is not the initial value. */
  private find(v: string | number): number {
    return this.isSmall(v) ? this.small[v] - 1 : (this.ids.get(v) ?? -1);
  }

  private isSmall(v: string | number): v is number {
    return typeof v === 'number' && v >= 0 && v < this.small.length && Number.isInteger(v);
  }

  /** Whether observer `r` (op) can see the value of key `v`: the initial value not yet overwritten, or a producer of it alive, other than `r`. */
  explains(r: number, op: PartOp, v: string | number): boolean {
    const id = this.find(v);
    if (id < 0) return false;
    if (id === 0 && this.initialAlive >= op.call) return true;
    // The last of the value's producers invoked before r completed.
    const last = firstAbove(this.calls, this.begin[id], this.begin[id + 1], op.ret) - 1;
    if (last < this.begin[id]) return false;
    const alive = this.bestWho[last] === r ? this.second[last] : this.best[last];
    return alive >= op.call;
  }

  /** The first ok producer (by call) invoked after `after`: its place. */
  private okAfter(after: number): number {
    return firstAbove(this.okCalls, 0, this.okCalls.length, after);
  }

  /** The ok producer invoked after `after` that completes first; -1 when none. */
  overwriterAfter(after: number): number {
    return this.minWho[this.okAfter(after)];
  }

  isInitial(v: string | number): boolean {
    return this.find(v) === 0;
  }

  /** The producers of key `v`, in the history's order. */
  producersOf(v: string | number): number[] {
    const id = this.find(v);
    if (id < 0) return [];
    return [...this.members.subarray(this.begin[id], this.begin[id + 1])].sort((a, b) => a - b);
  }
}

/** The first place in `sorted` from `lo` to `hi` (ascending there) holding more than `x`; `hi` if none. */
function firstAbove(sorted: Float64Array, lo: number, hi: number, x: number): number {
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (sorted[mid] > x) b = mid;
    else a = mid + 1;
  }
  return a;
}

/**
 * Views of these lengths, one after another on one array `make` makes: one allocation for
 * several (a check of a few dozen operations builds an index too, and each typed array of
 * its own is a buffer outside the heap).
 */
function carve<A extends { subarray(begin: number, end: number): A }>(
  make: (length: number) => A,
  ...lengths: number[]
): A[] {
  const all = make(lengths.reduce((n, l) => n + l, 0));
  const views: A[] = [];
  let at = 0;
  for (const l of lengths) {
    views.push(all.subarray(at, at + l));
    at += l;
  }
  return views;
}

/** Why observer `r` is impossible, in words: each producer of its value, and what rules it out. */
function whyImpossible(ops: readonly PartOp[], r: number, producers: ProducerIndex, roles: ObservationRoles): string {
  const op = ops[r];
  const reasons: string[] = [];
  for (const e of roles.explainedBy ? roles.explainedBy(op) : [roles.observes(op) as string | number]) {
    // What the producers of `e` made: the observed value itself, or (explainedBy) a start of it, named.
    const it = roles.explainedBy ? (roles.shownKey?.(e) ?? String(e)) : 'it';
    if (producers.isInitial(e)) {
      const w = producers.overwriterAfter(Number.NEGATIVE_INFINITY);
      const was = roles.explainedBy ? 'it may be appends to the initial value' : 'it was the initial value';
      reasons.push(`${was}, but op ${ops[w].input.index} overwrote it before op ${op.input.index} was invoked`);
    }
    for (const p of producers.producersOf(e)) {
      if (p === r) continue;
      const producer = ops[p];
      if (producer.call > op.ret) {
        reasons.push(`op ${producer.input.index} writes ${it}, but only after op ${op.input.index} completed`);
        continue;
      }
      const w = producers.overwriterAfter(producer.ret);
      reasons.push(
        `op ${producer.input.index} wrote ${it}, but op ${ops[w].input.index} overwrote it after that and before op ${op.input.index} was invoked`,
      );
    }
  }
  return impossibleReason(roles.subject, roles.shownValue(op), reasons);
}

/** The words of an impossible observation of `what`, from what rules out each way to it. */
export function impossibleReason(subject: string, what: string, reasons: readonly string[]): string {
  const why =
    reasons.length === 0
      ? `no operation writes ${what}`
      : reasons.slice(0, 3).join('; ') +
        (reasons.length > 3 ? `; and ${reasons.length - 3} more writes of it likewise` : '');
  return `it needs ${subject} to hold ${what}, and no order can make it so: ${why}`;
}
