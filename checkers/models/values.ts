/**
 * Helpers for models over JSON-like values: a value's key, equality and few-character form,
 * and the rules register-like models share (a read against the value held, the reduction
 * by observation, an observation no producer explains). model.ts is what a model is.
 */
import { type OpOutput, type PartOp, REJECTED, type Reduction, type Rejection, reject } from './model.js';

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

function finiteNumbers(v: readonly unknown[]): boolean {
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
  /** The value key the op makes current, if any. */
  produces(op: PartOp): string | number | undefined;
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
  for (const op of ops) {
    const p = roles.produces(op);
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
 * For register-like models: an ok observation no producer can explain, found without any
 * search, so the classic violations (a read of a value nothing wrote; a read of a value
 * certainly overwritten before the read began) cost nothing however busy the history.
 *
 * An observer `r` of value v is impossible when every producer P of v (and the initial
 * state, if it is v) is ruled out: P was invoked after r completed, or some ok producer W
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
  roles: ValueRoles & {
    /** What holds the value, for messages: "the register". */
    subject: string;
    /** The observed value, shown: "5". */
    shownValue(op: PartOp): string;
  },
): { op: number; reason: string } | undefined {
  const producers = new Map<string | number, number[]>();
  const overwriters: number[] = []; // ok producers
  ops.forEach((op, i) => {
    const p = roles.produces(op);
    if (p === undefined) return;
    let list = producers.get(p);
    if (!list) {
      list = [];
      producers.set(p, list);
    }
    list.push(i);
    if (op.output.known) overwriters.push(i);
  });
  const overwritten = overwrittenAfter(ops, overwriters);
  /** Per value, its producers by call, with the prefix maxima of `alive` (best and runner-up, for `r` itself). */
  const byValue = new Map<string | number, ProducerIndex>();
  const indexOf = (v: string | number): ProducerIndex | undefined => {
    let index = byValue.get(v);
    if (index === undefined) {
      const list = producers.get(v);
      if (!list) return undefined;
      index = indexProducers(ops, list, overwritten);
      byValue.set(v, index);
    }
    return index;
  };
  /** When the initial value is overwritten for certain: the first completion of any ok producer. */
  const initialAlive = overwritten.ret(Number.NEGATIVE_INFINITY);
  let worst = -1;
  ops.forEach((op, i) => {
    if (!op.output.known) return;
    const v = roles.observes(op);
    if (v === undefined) return;
    if (worst >= 0 && ops[worst].ret <= op.ret) return;
    if (v === initialValueKey && initialAlive >= op.call) return;
    const index = indexOf(v);
    if (index?.explains(i, op)) return;
    worst = i;
  });
  if (worst < 0) return undefined;
  return { op: worst, reason: whyImpossible(ops, worst, initialValueKey, producers, overwritten, roles) };
}

/**
 * For a moment `after`: the ok producer invoked after it that completes first (`who`, -1
 * when none) and its completion (`ret`, Infinity when none), from the ok producers sorted by
 * call with suffix minima of their completions. Two lookups rather than one answer object:
 * the pre-check asks once per producer, and a history of unique values has as many
 * producers as writes.
 */
interface Overwritten {
  ret(after: number): number;
  who(after: number): number;
}

function overwrittenAfter(ops: readonly PartOp[], overwriters: number[]): Overwritten {
  overwriters.sort((a, b) => ops[a].call - ops[b].call);
  const minRet = new Float64Array(overwriters.length + 1).fill(Number.POSITIVE_INFINITY);
  const minWho = new Int32Array(overwriters.length + 1).fill(-1);
  for (let i = overwriters.length - 1; i >= 0; i--) {
    const r = ops[overwriters[i]].ret;
    if (r < minRet[i + 1]) {
      minRet[i] = r;
      minWho[i] = overwriters[i];
    } else {
      minRet[i] = minRet[i + 1];
      minWho[i] = minWho[i + 1];
    }
  }
  const at = (after: number): number => {
    let lo = 0;
    let hi = overwriters.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ops[overwriters[mid]].call > after) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return { ret: (after) => minRet[at(after)], who: (after) => minWho[at(after)] };
}

interface ProducerIndex {
  /** Whether a producer other than `r` itself can explain what `r` observed. */
  explains(r: number, op: PartOp): boolean;
}

function indexProducers(ops: readonly PartOp[], list: readonly number[], overwritten: Overwritten): ProducerIndex {
  if (list.length === 1) {
    // Most values of most histories have one producer: no arrays for it.
    const only = list[0];
    const p = ops[only];
    const alive = Number.isFinite(p.ret) ? overwritten.ret(p.ret) : Number.POSITIVE_INFINITY;
    return { explains: (r, op) => r !== only && p.call <= op.ret && alive >= op.call };
  }
  const sorted = [...list].sort((a, b) => ops[a].call - ops[b].call);
  const n = sorted.length;
  const calls = new Float64Array(n);
  // Prefix maxima of alive, with who holds them, and the best of the others.
  const best = new Float64Array(n);
  const bestWho = new Int32Array(n);
  const second = new Float64Array(n);
  let b = Number.NEGATIVE_INFINITY;
  let who = -1;
  let s = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < n; k++) {
    const p = ops[sorted[k]];
    calls[k] = p.call;
    const alive = Number.isFinite(p.ret) ? overwritten.ret(p.ret) : Number.POSITIVE_INFINITY;
    if (alive > b) {
      s = b;
      b = alive;
      who = sorted[k];
    } else if (alive > s) {
      s = alive;
    }
    best[k] = b;
    bestWho[k] = who;
    second[k] = s;
  }
  return {
    explains(r, op) {
      // the producers invoked before r completed: a prefix
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (calls[mid] > op.ret) hi = mid;
        else lo = mid + 1;
      }
      if (lo === 0) return false;
      const alive = bestWho[lo - 1] === r ? second[lo - 1] : best[lo - 1];
      return alive >= op.call;
    },
  };
}

/** Why observer `r` is impossible, in words: each producer of its value, and what rules it out. */
function whyImpossible(
  ops: readonly PartOp[],
  r: number,
  initialValueKey: string | number,
  producers: Map<string | number, number[]>,
  overwritten: Overwritten,
  roles: ValueRoles & { subject: string; shownValue(op: PartOp): string },
): string {
  const op = ops[r];
  const v = roles.observes(op) as string | number;
  const reasons: string[] = [];
  if (v === initialValueKey) {
    const w = overwritten.who(Number.NEGATIVE_INFINITY);
    reasons.push(
      `it was the initial value, but op ${ops[w].input.index} overwrote it before op ${op.input.index} was invoked`,
    );
  }
  for (const p of producers.get(v) ?? []) {
    if (p === r) continue;
    const producer = ops[p];
    if (producer.call > op.ret) {
      reasons.push(`op ${producer.input.index} writes it, but only after op ${op.input.index} completed`);
      continue;
    }
    const w = overwritten.who(producer.ret);
    reasons.push(
      `op ${producer.input.index} wrote it, but op ${ops[w].input.index} overwrote it after that and before op ${op.input.index} was invoked`,
    );
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
