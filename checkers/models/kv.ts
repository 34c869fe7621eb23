/**
 * A key-value store of strings, checked key by key (linearizability is compositional, so
 * each key is its own register): `get` answers the key's value, `put` V sets it, `append` V
 * appends to it. Numbers are taken as their decimal strings.
 *
 * An absent key and "" are one state: a store that only puts and appends strings has no
 * observation that tells them apart, and histories record it both ways (Jepsen's: a get of
 * a never-written key answers nil; Porcupine's kv logs: ""). So a get of nil and a get of ""
 * are the same observation, shown as "", and a history gets the same verdict and the same
 * counterexample in either convention.
 *
 * The key is op.key; when an op has none, its value may carry it Jepsen-style as [k, v]
 * (jepsen.independent's tuples): `put` [k, v], `get` invoked with [k, nil] and completed
 * with [k, v].
 */
import {
  type ArrayPool,
  MAX_SOURCES,
  type Model,
  type OpInput,
  type OpOutput,
  type PartOp,
  REJECTED,
  type Reduction,
  reject,
  type SourceSink,
  type StateSpace,
  UNREACHABLE,
} from './linearizable-model.js';
import { impossibleObservation, reduceByObservation, showValue, valueKey } from './values.js';

/** The key's value; "" also when absent. */
export type KvState = string;

/**
 * A search's values of one key, as chains in typed arrays: a value is the one it extends
 * (its parent) and the text appended, or a text put. The search tries appends in many orders,
 * and each order makes a value no other makes: as strings, each was built, flattened, hashed
 * and interned, and as objects each was traced by the collector, most of what a kv search
 * spent its time and memory on. Here an append is three numbers and a reference to the op's
 * own text; a get compares lengths before any text.
 *
 * The same append (the same op) to the same value gives the same id, and a put of the same
 * text the same id. The same text made by other appends gets another id, which costs the
 * search memo hits only (Model.space).
 */
export class KvSpace implements StateSpace<KvState> {
  /** Per value: the value it extends, or -1 (put, or the initial value). */
  private parent: Int32Array<ArrayBuffer>;
  private length: Int32Array<ArrayBuffer>;
  /** Per value: the text appended (or put): the op's own string, not a copy. */
  private readonly text: string[] = [];
  size = 0;
  /** Appends made: (parent, op index, text) to the value, open addressing; -1 for a free slot. */
  private appendParent: Int32Array<ArrayBuffer>;
  private appendOp: Int32Array<ArrayBuffer>;
  private appendValue: Int32Array<ArrayBuffer>;
  private appends = 0;
  private readonly puts = new Map<string, number>();

  constructor(
    initial: KvState,
    private readonly arrays: ArrayPool,
  ) {
    this.parent = arrays.int32(1024);
    this.length = arrays.int32(1024);
    this.appendParent = arrays.int32(2048);
    this.appendOp = arrays.int32(2048);
    this.appendValue = arrays.int32(2048, -1);
    this.puts.set(initial, this.make(-1, initial));
  }

  step(id: number, input: OpInput, output: OpOutput): number {
    switch (input.f) {
      case 'put':
        return this.put(text(input.value) as string);
      case 'append':
        return this.append(id, text(input.value) as string, input.index);
      default: {
        if (!output.known) return id;
        const value = getValue(output.value);
        if (!this.beginsWith(value, id)) return UNREACHABLE;
        return this.length[id] === value.length ? id : -1;
      }
    }
  }

  state(id: number): KvState {
    const chunks: string[] = [];
    for (let v = id; v !== -1; v = this.parent[v]) chunks.push(this.text[v]);
    return chunks.reverse().join('');
  }

  get bytes(): number {
    // The arrays, the text references, and the puts' map entries.
    const arrays = this.parent.byteLength * 2 + this.appendParent.byteLength * 3;
    return arrays + this.size * 8 + this.puts.size * 40;
  }

  release(): void {
    this.arrays.give(this.parent, this.length, this.appendParent, this.appendOp, this.appendValue);
  }

  private put(value: string): number {
    let id = this.puts.get(value);
    if (id === undefined) {
      id = this.make(-1, value);
      this.puts.set(value, id);
    }
    return id;
  }

  private append(parent: number, value: string, op: number): number {
    if (value === '') return parent;
    const mask = this.appendValue.length - 1;
    let slot = appendSlot(parent, op, mask);
    for (; this.appendValue[slot] !== -1; slot = (slot + 1) & mask) {
      // The text too: an op is named by its history index, which a file may repeat.
      const made = this.appendValue[slot];
      if (this.appendParent[slot] === parent && this.appendOp[slot] === op && this.text[made] === value) return made;
    }
    const id = this.make(parent, value);
    this.appendParent[slot] = parent;
    this.appendOp[slot] = op;
    this.appendValue[slot] = id;
    if (++this.appends * 2 > this.appendValue.length) this.growAppends();
    return id;
  }

  private make(parent: number, value: string): number {
    const id = this.size++;
    if (id === this.parent.length) {
      this.parent = this.grown(this.parent);
      this.length = this.grown(this.length);
    }
    this.parent[id] = parent;
    this.length[id] = (parent === -1 ? 0 : this.length[parent]) + value.length;
    this.text.push(value);
    return id;
  }

  /** Whether `value` begins with value `id` (appends only add to a value: it may yet be reached). */
  private beginsWith(value: string, id: number): boolean {
    let end = this.length[id];
    if (end > value.length) return false;
    for (let v = id; v !== -1; v = this.parent[v]) {
      const chunk = this.text[v];
      end -= chunk.length;
      if (!value.startsWith(chunk, end)) return false;
    }
    return true;
  }

  private grown(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
    const b = this.arrays.int32(a.length * 2);
    b.set(a);
    this.arrays.give(a);
    return b;
  }

  private growAppends(): void {
    const [parents, ops, values] = [this.appendParent, this.appendOp, this.appendValue];
    const size = values.length * 2;
    this.appendParent = this.arrays.int32(size);
    this.appendOp = this.arrays.int32(size);
    this.appendValue = this.arrays.int32(size, -1);
    const mask = size - 1;
    for (let i = 0; i < values.length; i++) {
      if (values[i] === -1) continue;
      let slot = appendSlot(parents[i], ops[i], mask);
      while (this.appendValue[slot] !== -1) slot = (slot + 1) & mask;
      this.appendParent[slot] = parents[i];
      this.appendOp[slot] = ops[i];
      this.appendValue[slot] = values[i];
    }
    this.arrays.give(parents, ops, values);
  }
}

/** Where KvSpace's table looks first for an append of op `op` to value `parent`. */
function appendSlot(parent: number, op: number, mask: number): number {
  return (Math.imul(parent, 0x9e3779b1) ^ Math.imul(op, 0x85ebca6b)) & mask;
}

/** Without appends a key is a register, with puts for writes and gets for reads. */
const roles = {
  produces: (op: PartOp) => (op.input.f === 'put' ? valueKey(text(op.input.value)) : undefined),
  observes: (op: PartOp) => (op.input.f === 'get' && op.output.known ? valueKey(getValue(op.output.value)) : undefined),
  blind: (op: PartOp) => op.input.f === 'put',
  subject: 'the key',
  shownValue: (op: PartOp) => showValue(getValue(op.output.value)),
};

/** Above this many distinct lengths of texts, or this long a text, no write is taken as unseen. */
const MAX_TEXT_LENGTHS = 64;
const MAX_TEXT = 1024;

/**
 * With appends a value depends on the whole past, so of the reads only gets without an
 * answer can go. But a write whose effect no answered get sees is one nothing observes
 * ('flush'): a put that no get's value begins with (a value is the last put's text and the
 * appends after it), an append whose text is in no get's value. While such a write is
 * pending the search takes no put before it: if a linearization has one first, the write
 * moved to right before that put is one too (everything pending before the put may come
 * before it; the put sets the key, so what follows sees the same values; and where the
 * write was, nothing saw it). Without this the search tried such writes in every order:
 * on kv histories of 50 clients, about half of its steps.
 *
 * Which writes a get sees: its value's prefixes at the texts' lengths, hashed as the value
 * is read (no string made), each hit confirmed; for appends, the value read as chunks of
 * the texts one after another, and only if every chunk is the one text that fits there
 * (else no append is taken as unseen). Texts of too many lengths, or too long, or a key
 * that starts other than empty, and every write is kept.
 */
function reduceWithAppends(ops: readonly PartOp[], initial: KvState, sources?: SourceSink): Reduction[] {
  let writeCount = 0;
  for (const op of ops) if (op.input.f !== 'get') writeCount++;
  const writes = new TextIndex(writeCount);
  /** Per op, its text's number in `writes` (-1: a get, or a text not kept). */
  const textOf = new Int32Array(ops.length).fill(-1);
  /** The puts of each text, as chains: the text's first, and per op the next of its text (-1: none). */
  const firstPut = new Int32Array(writeCount).fill(-1);
  const nextPut = new Int32Array(ops.length).fill(-1);
  /** Puts of "": sources of every get (every value begins with ""). */
  const emptyPuts: number[] = [];
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i];
    if (op.input.f === 'get') continue;
    const put = op.input.f === 'put';
    const t = writes.add(text(op.input.value) as string, put);
    textOf[i] = t;
    if (put && t >= 0) {
      nextPut[i] = firstPut[t];
      firstPut[t] = i;
    } else if (put && text(op.input.value) === '') emptyPuts.push(i);
  }
  const checkable = writes.checkable;
  const seen = new Uint8Array(writes.size);
  let chunked = checkable && initial === '';
  const starts: number[] = [];
  const found: number[] = [];
  if (checkable) {
    for (const [i, op] of ops.entries()) {
      if (op.input.f !== 'get' || !op.output.known) continue;
      const value = getValue(op.output.value);
      starts.length = 0;
      let at = 0;
      while (chunked && at < value.length) {
        const chunk = writes.onlyAt(value, at);
        if (chunk < 0) chunked = false;
        else {
          if (at === 0) starts.push(chunk);
          seen[chunk] = 1;
          at += writes.lengthOf(chunk);
        }
      }
      // Read as chunks, the first is the put it saw, if any; else every put it begins with.
      if (!chunked) {
        starts.length = 0;
        writes.putsAtStart(value, seen, starts);
      }
      if (sources === undefined) continue;
      found.length = 0;
      // Not told of more than MAX_SOURCES (texts put many times): counted before they are copied.
      for (const t of starts)
        for (let p = firstPut[t]; p >= 0 && found.length <= MAX_SOURCES; p = nextPut[p]) found.push(p);
      if (found.length + emptyPuts.length > MAX_SOURCES) continue;
      found.push(...emptyPuts);
      sources(i, found);
    }
  }
  return ops.map((op, i) => {
    if (op.input.f === 'get') return op.output.known ? 'keep' : 'drop';
    // A put of "" is seen by any get of a value built on "", which reads as one not built on
    // a put at all: never taken as unseen (nor is "" kept in the index).
    const t = textOf[i];
    if (!checkable || t < 0 || seen[t] === 1) return 'keep';
    // Unseen: an ok write is flushed, an indefinite one dropped (taking effect, nothing saw it).
    if (op.input.f !== 'put' && !chunked) return 'keep';
    return op.output.known ? 'flush' : 'drop';
  });
}

/**
 * With appends, an answered get no order of the writes can explain, found without a search: a
 * get's value is the last put's text and the appends after it, so the put it builds on is one
 * whose text the value begins with (or none: the initial value, the value beginning with it).
 * impossibleObservation's rule then holds with those puts as the value's producers: a get is
 * impossible when each of them was invoked after it completed, or was overwritten for certain
 * (a later ok put between it and the get); appends never overwrite. That finds the usual bug, a
 * stale read, at once however hard the rest of the key is to search. The keys are the texts'
 * numbers in a TextIndex, which finds the puts a value begins with as it reads the value; texts
 * of too many lengths, or too long, and no pre-check.
 */
function impossibleWithAppends(ops: readonly PartOp[], initial: KvState): { op: number; reason: string } | undefined {
  let putCount = 0;
  for (const op of ops) if (op.input.f === 'put') putCount++;
  const starts = new TextIndex(putCount + 1);
  /** A text's key: its number, EMPTY for "" (which every value begins with). */
  const keyOf = (t: string) => (t === '' ? EMPTY : starts.add(t, true));
  /** Per op: its put's key; NONE for any other op. */
  const putKey = new Int32Array(ops.length).fill(NONE);
  for (const [i, op] of ops.entries()) if (op.input.f === 'put') putKey[i] = keyOf(text(op.input.value) as string);
  const initialKey = keyOf(initial);
  if (!starts.checkable) return undefined;
  const found: number[] = [];
  return impossibleObservation(ops, initialKey, {
    produces: (_, i) => (putKey[i] === NONE ? undefined : putKey[i]),
    observes: (op) => (op.input.f === 'get' && op.output.known ? OBSERVED : undefined),
    explainedBy(op) {
      found.length = 0;
      found.push(EMPTY);
      starts.eachAt(getValue(op.output.value), 0, (k) => found.push(k) > 0);
      return found;
    },
    subject: 'the key',
    shownValue: roles.shownValue,
    shownKey: (key) => showValue(key === EMPTY ? '' : starts.textOf(key as number)),
  });
}

/** impossibleWithAppends's key of "", what an answered get observes (explainedBy says which keys), and no key. */
const EMPTY = -1;
const OBSERVED = -2;
const NONE = -3;

/**
 * The texts of a key's writes, numbered, in an open-addressing table by their hash: which of
 * them a string has at a position, found as the string is read (no string made).
 */
class TextIndex {
  private readonly texts: string[] = [];
  /** Per text: 1 if some put has it. */
  private readonly put: number[] = [];
  /**
   * Slots of two numbers: a text's number + 1 (or 0, free) and its hash, side by side, so
   * that a probe of a value's start at a length no text of that hash has reads one place
   * (a value is looked up at every length: most probes miss).
   */
  private readonly slots: Int32Array;
  /** The texts' lengths, ascending. */
  private readonly lengths: number[] = [];
  private tooMany = false;

  constructor(capacity: number) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.slots = new Int32Array(2 * size);
  }

  get size(): number {
    return this.texts.length;
  }

  get checkable(): boolean {
    return !this.tooMany;
  }

  lengthOf(t: number): number {
    return this.texts[t].length;
  }

  textOf(t: number): string {
    return this.texts[t];
  }

  /** The text's number; -1 when not kept ("" changes nothing; too long a text). */
  add(t: string, put: boolean): number {
    if (t.length > MAX_TEXT) this.tooMany = true;
    if (this.tooMany || t.length === 0) return -1;
    const h = prefixHash(t, 0, t.length);
    const mask = (this.slots.length >> 1) - 1;
    let slot = h & mask;
    for (; this.slots[2 * slot] !== 0; slot = (slot + 1) & mask) {
      const k = this.slots[2 * slot] - 1;
      if (this.slots[2 * slot + 1] === h && this.texts[k] === t) {
        if (put) this.put[k] = 1;
        return k;
      }
    }
    const k = this.texts.length;
    this.texts.push(t);
    this.put.push(put ? 1 : 0);
    this.slots[2 * slot] = k + 1;
    this.slots[2 * slot + 1] = h;
    if (!this.lengths.includes(t.length)) {
      this.lengths.push(t.length);
      this.lengths.sort((a, b) => a - b);
      if (this.lengths.length > MAX_TEXT_LENGTHS) this.tooMany = true;
    }
    return k;
  }

  /**
   * Calls `found` with the number of each text `value` has at `at`, shortest first, hashing
   * the value as it is read; stops when `found` answers false.
   */
  eachAt(value: string, at: number, found: (k: number) => boolean): void {
    const { lengths, slots, texts } = this;
    const mask = (slots.length >> 1) - 1;
    let h = HASH_SEED;
    let next = 0;
    for (let i = 0; next < lengths.length && at + lengths[next] <= value.length; i++) {
      for (; next < lengths.length && lengths[next] === i; next++) {
        const hash = h & SMALL;
        for (let slot = hash & mask; slots[2 * slot] !== 0; slot = (slot + 1) & mask) {
          if (slots[2 * slot + 1] !== hash) continue;
          const k = slots[2 * slot] - 1;
          if (texts[k].length === i && value.startsWith(texts[k], at) && !found(k)) return;
        }
      }
      if (at + i >= value.length) break;
      h = Math.imul(h ^ value.charCodeAt(at + i), 16777619);
    }
  }

  /** The number of the one text `value` has at `at`; -1 if none, or more than one. */
  onlyAt(value: string, at: number): number {
    let only = -1;
    let count = 0;
    this.eachAt(value, at, (k) => {
      only = k;
      return ++count < 2;
    });
    return count === 1 ? only : -1;
  }

  /** Marks in `seen`, and adds to `found`, every put text `value` begins with. */
  putsAtStart(value: string, seen: Uint8Array, found: number[]): void {
    this.eachAt(value, 0, (k) => {
      if (this.put[k] === 1) {
        seen[k] = 1;
        found.push(k);
      }
      return true;
    });
  }
}

const HASH_SEED = 0x811c9dc5 | 0;
/** Hashes kept to 30 bits as map keys: V8's small integers, not boxed numbers. */
const SMALL = 0x3fffffff;

/** FNV-1a of `length` UTF-16 units of `s` from `at`, to 30 bits. */
function prefixHash(s: string, at: number, length: number): number {
  let h = HASH_SEED;
  for (let i = 0; i < length; i++) h = Math.imul(h ^ s.charCodeAt(at + i), 16777619);
  return h & SMALL;
}

export const kv: Model<KvState> = {
  name: 'kv',
  description: 'a string store, per key: get answers the value, put V sets it, append V appends (split by key)',
  fs: ['get', 'put', 'append'],
  init: (initial) => getValue(initial),
  validate(input) {
    if (input.f === 'get') return undefined;
    if (input.f === 'put' || input.f === 'append') {
      return text(input.value) === undefined
        ? `kv ${input.f} needs a string value, got ${showValue(input.value)}`
        : undefined;
    }
    return `model kv has no operation '${input.f}' (it knows get, put, append)`;
  },
  partition(input: OpInput, output: OpOutput) {
    if (!Array.isArray(input.value) || input.value.length !== 2) {
      return { key: input.key, input, output };
    }
    const [k, v] = input.value as [unknown, unknown];
    const result = Array.isArray(output.value) && output.value.length === 2 ? output.value[1] : output.value;
    const key = String(k);
    return { key, input: { ...input, key, value: v }, output: { known: output.known, value: result } };
  },
  step(state, input, output, explain) {
    switch (input.f) {
      case 'put':
        return text(input.value) as string;
      case 'append':
        return state + (text(input.value) as string);
      default: {
        if (!output.known) return state;
        const got = getValue(output.value);
        if (got === state) return state;
        return explain === false ? REJECTED : reject(getMismatch, got, state);
      }
    }
  },
  blind: (input) => input.f === 'put',
  pure: (input) => input.f === 'get',
  key: (state) => state,
  describe: (state) => `the key holds ${showValue(state)}`,
  describeOp(input, output) {
    if (input.f === 'get') return output.known ? `get → ${showValue(getValue(output.value))}` : 'get (no answer)';
    return `${input.f} ${showValue(text(input.value))}`;
  },
  reduce(ops: readonly PartOp[], initial: KvState, sources?: SourceSink): Reduction[] {
    // Without appends a key is a register.
    if (ops.some((op) => op.input.f === 'append')) return reduceWithAppends(ops, initial, sources);
    return reduceByObservation(ops, valueKey(initial), roles);
  },
  space: (initial, arrays) => new KvSpace(initial, arrays),
  impossible(ops: readonly PartOp[], initial: KvState) {
    if (ops.some((op) => op.input.f === 'append')) return impossibleWithAppends(ops, initial);
    return impossibleObservation(ops, valueKey(initial), roles);
  },
};

const getMismatch = (got: string, state: string) => `get → ${showValue(got)}, but the key holds ${showValue(state)}`;

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return undefined;
}

/** What a get observed: absent (nil) is ""; a value that is not a string, its JSON (exactly, not shortened). */
function getValue(v: unknown): string {
  return v === undefined || v === null ? '' : (text(v) ?? JSON.stringify(v));
}
