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
 * For an ok operation: 'keep', or 'flush': a write whose effect nothing ever observes (no
 * read sees a value it made, up to the next blind write). If a linearization has a blind
 * write while such a write is pending, the write moved to right before that blind write
 * makes one too: whatever is pending may come before the blind write, which sets the state
 * whatever it was, and where the write was nothing saw it. So the search takes no other
 * blind write while one is pending, instead of trying every order of them. A register's
 * unread write; a key's unseen put or append (kv).
 */
export type Reduction = 'keep' | 'drop' | 'flush' | number;

/**
 * Told, for an answered read (op index `read`), its sources: every blind write (Model.blind)
 * after which, and further steps of operations that are not blind writes, it can take
 * effect; empty when none is. Must be complete (a write left out is one the search takes as
 * unable to lead to the read). With the space's UNREACHABLE it lets the search give up a
 * configuration as soon as a pending read can no longer take effect: not from its state
 * (UNREACHABLE), and each of its sources taken effect already (they take effect once). A
 * read never told of keeps the search as before. kv: a get's sources are the puts whose
 * text its value begins with.
 */
export type SourceSink = (read: number, writes: readonly number[]) => void;

/**
 * A read with more sources than this is not told of: each would be copied for it (Jepsen's
 * five-value registers: thousands of writes of each value), and with that many the search
 * rarely finds them all taken.
 */
export const MAX_SOURCES = 16;

/**
 * StateSpace.step's answer for an operation that cannot take effect in the state, nor after
 * any further steps of operations that are not blind writes (kv: a get whose value does not
 * begin with the key's value: appends only add to it). A space that cannot tell answers -1.
 */
export const UNREACHABLE = -2;

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
  /**
   * Optional, must be exact: see Reduction. Without it every indefinite op stays optional.
   * `sources`, when given, may be told a read's sources (see SourceSink) as the reduction
   * reads the ops anyway.
   */
  reduce?(ops: readonly PartOp[], initial: S, sources?: SourceSink): Reduction[];
  /**
   * Optional: reads' sources (SourceSink), for a model that finds them in a pass of its own
   * (a register's: the writes of the value a read saw). Asked only of a part whose search has
   * gone on undecided a while (part.ts: SOURCES_STEPS_PER_OP): a search that goes straight
   * through gains nothing from them, and their tables cost a 1M-operation one 20%. kv tells
   * them through reduce, in the pass it makes anyway.
   */
  sources?(ops: readonly PartOp[], initial: S, sink: SourceSink): void;
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
  /**
   * The state the operation leads to from state `id`, or -1 when it cannot take effect there
   * (UNREACHABLE when it cannot after further steps of non-blind operations either).
   */
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
