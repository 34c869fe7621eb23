/**
 * What a linearizability model is: a sequential specification the checker searches against.
 * A model is one file exporting a `Model`, plus a line in the registry (index.ts).
 *
 * The checker hands each operation to the model as an input (the invocation: f, process,
 * value) and an output (the completion: `known` with its value for ok, not known for info or
 * never-completed). `step` answers the next state, or a Rejection saying why the operation
 * cannot take effect in that state. States are compared by `key`: two states are the same
 * iff their keys are equal, which is what the search memoises on.
 */

export interface OpInput {
  f: string;
  process: number;
  key?: string;
  /** The invocation's value. */
  value: unknown;
  /** The invocation's index in the history, for messages. */
  index: number;
}

export interface OpOutput {
  /** True when the operation completed ok; false for info and never-completed operations. */
  known: boolean;
  /** The ok completion's value (a read's result); undefined when not known. */
  value: unknown;
}

/**
 * Why an operation cannot take effect in a state, in words. The search meets rejections on
 * its hot path (most steps it tries are rejected) and reads the reason only for the
 * counterexample it reports, so the words are built when first read, from a function and
 * its arguments kept as they are: a closure over them would cost a context and a function
 * per rejection, several times this object, and most of what a search allocates.
 */
export class Rejection {
  private words: string | undefined;
  constructor(
    private readonly explain: (a: never, b: never, c: never) => string,
    private readonly a?: unknown,
    private readonly b?: unknown,
    private readonly c?: unknown,
  ) {}
  get reason(): string {
    this.words ??= (this.explain as (a: unknown, b: unknown, c: unknown) => string)(this.a, this.b, this.c);
    return this.words;
  }
}

/** A rejection without a reason of its own: for Model.step called with `explain` false. */
export const REJECTED = new Rejection(() => 'it cannot take effect here');

/**
 * A rejection; `explain(a, b, c)` builds its reason, only if it is ever read. Give a function
 * defined once (at module level) and its arguments, not a closure made at each step.
 */
export function reject(explain: () => string): Rejection;
export function reject<A>(explain: (a: A) => string, a: A): Rejection;
export function reject<A, B>(explain: (a: A, b: B) => string, a: A, b: B): Rejection;
export function reject<A, B, C>(explain: (a: A, b: B, c: C) => string, a: A, b: B, c: C): Rejection;
export function reject(
  explain: (a: never, b: never, c: never) => string,
  a?: unknown,
  b?: unknown,
  c?: unknown,
): Rejection {
  return new Rejection(explain, a, b, c);
}

/** One operation of a part as models see it when reducing indefinite operations. */
export interface PartOp {
  input: OpInput;
  output: OpOutput;
  /** History position of the invocation. */
  call: number;
  /** History position of the ok completion; Infinity when indefinite. */
  ret: number;
}

/**
 * What an operation can be reduced to, exactly for the model.
 *
 * For an indefinite (info or never-completed) operation: 'keep' it optional; 'drop' it
 * (taking effect can never help explain the history); or a history position by which it
 * must have taken effect (it alone explains something observed there), making it required
 * with that return.
 *
 * For an ok operation: 'keep', or 'flush': it is a blind write whose effect nothing ever
 * observes, so in any linearization it is immediately followed by another blind write (or
 * by nothing), and it may as well be placed right before whichever blind write comes next.
 * The search then linearizes all such pending writes together before any blind write,
 * instead of trying every subset of them.
 */
export type Reduction = 'keep' | 'drop' | 'flush' | number;

export interface Model<S = unknown> {
  readonly name: string;
  /** One line for --help and reports. */
  readonly description: string;
  /** The operations (f values) it knows, for validation and for guessing the model. */
  readonly fs: readonly string[];
  /** The initial state; `initial` comes from --initial (a JSON value) when given. */
  init(initial?: unknown): S;
  /** Whether the operation is well-formed for this model; a reason if not. Called once per op. */
  validate(input: OpInput, output: OpOutput): string | undefined;
  /**
   * The state after the operation, or why it cannot take effect there. `explain` is false
   * when the caller reads no reason (the search: most steps it tries are rejected, and a
   * rejection built for each was a third of what a kv search allocated, before kv kept its
   * own states); a model may then answer REJECTED instead of building one. Undefined means
   * true.
   */
  step(state: S, input: OpInput, output: OpOutput, explain?: boolean): S | Rejection;
  /** Equal states have equal keys, and only equal states do. */
  key(state: S): string | number;
  describe(state: S): string;
  /** The operation in a few words: "write 3", "read → nil", "acquire". */
  describeOp(input: OpInput, output: OpOutput): string;
  /**
   * Optional: the part (key) an operation belongs to and its input/output within that part,
   * for models whose operations carry their key inside the value. Asked only of operations
   * without a key (op.key), whose part is their key.
   */
  partition?(input: OpInput, output: OpOutput): { key: string | undefined; input: OpInput; output: OpOutput };
  /**
   * Optional: whether the operation never changes the state (a read). The search then
   * linearizes it as soon as it can take effect, without trying alternatives: if any
   * linearization exists, one exists with the read moved to the earliest point it fits.
   */
  pure?(input: OpInput): boolean;
  /**
   * Optional: whether the operation always takes effect and sets the state whatever it was
   * (a register write). Needed for 'flush' reductions.
   */
  blind?(input: OpInput): boolean;
  /** Optional, must be exact: see Reduction. Without it every indefinite op stays optional. */
  reduce?(ops: readonly PartOp[], initial: S): Reduction[];
  /**
   * Optional, must be exact: an ok operation that no linearization can include, found
   * without searching (its index in `ops` and why), so that obvious violations are reported
   * at once however hard the rest of the history is to search.
   */
  impossible?(ops: readonly PartOp[], initial: S): { op: number; reason: string } | undefined;
  /**
   * Optional, for speed: the states of one search, kept by the model as small integers in
   * memory of its own (see StateSpace). Without it the search interns the states `step`
   * answers by their keys.
   */
  space?(initial: S, arrays: ArrayPool): StateSpace<S>;
}

/**
 * A search's states as the model keeps them: ids from 0 (the initial state) up, each made
 * once by `step`. For a model whose steps make new states all the time (kv's appends), as
 * objects each was interned, kept and traced by the collector: a kv search spent most of its
 * time and memory on that. Ids must tell apart states that differ, and may tell apart states
 * that are equal (that costs the search memo hits only, never a verdict); `step` must agree
 * with the model's: the same operations accepted, and a state equal to the model's.
 */
export interface StateSpace<S> {
  /** The state the operation leads to from state `id`, or -1 when it cannot take effect there. */
  step(id: number, input: OpInput, output: OpOutput): number;
  /** State `id` as the model's state, for reasons and descriptions. */
  state(id: number): S;
  /** How many states it has made. */
  readonly size: number;
  /** Its memory, estimated, for the search's budget. */
  readonly bytes: number;
  /** Hands its memory back (to the pool it came from); it is not used after. */
  release(): void;
}

/** Typed arrays from the search's pool (buffers.ts), for a StateSpace's memory. */
export interface ArrayPool {
  int32(length: number, fill?: number): Int32Array<ArrayBuffer>;
  give(...arrays: ArrayBufferView[]): void;
}

/** A model of whatever state type: the checker treats states as opaque values. */
// biome-ignore lint/suspicious/noExplicitAny: a Model<S> takes S as input, so no one S fits every model.
export type AnyModel = Model<any>;

// ---------------------------------------------------------------------------------------------
// Helpers for models over JSON-like values

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
