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
  impossibleObservation,
  type Model,
  type OpInput,
  type OpOutput,
  type PartOp,
  REJECTED,
  type Reduction,
  reduceByObservation,
  reject,
  showValue,
  valueKey,
} from './model.js';

/**
 * A key's value ("" also when absent), kept as the value it extends and the text appended.
 * The search tries appends in many orders, and each order makes a value no other makes: as
 * strings, each would be built, flattened and hashed to be interned, most of what a kv
 * search spends its time and memory on. As a chain, an append is one small object, found
 * again (the same object, so the same key) when the same text is appended to the same value,
 * and a get compares lengths before any text.
 *
 * Values from one root (init) are one tree: the search gets its own root per part. The same
 * text reached by other appends is another object, with another key: keys then tell apart
 * states that are equal, which costs the search only memo hits, never a verdict.
 */
export class KvValue {
  /** Unique among all values made in this thread, whatever their tree: the key. */
  readonly id: number;
  readonly length: number;
  /** Values made from this one by appending: the first made, and the next from the same parent. */
  private child: KvValue | undefined;
  private sibling: KvValue | undefined;

  private constructor(
    private readonly tree: KvTree,
    private readonly parent: KvValue | undefined,
    private readonly chunk: string,
  ) {
    this.id = made++;
    this.length = (parent?.length ?? 0) + chunk.length;
  }

  /** The empty value, root of a new tree. */
  static empty(): KvValue {
    const tree: KvTree = { root: undefined, top: new Map() };
    tree.root = new KvValue(tree, undefined, '');
    return tree.root;
  }

  /** This value with `text` appended. */
  append(text: string): KvValue {
    if (text === '') return this;
    if (this.parent === undefined) return this.set(text);
    // Few appends are tried from one value (those in flight when it was made): a list will do.
    let last: KvValue | undefined;
    for (let c = this.child; c !== undefined; c = c.sibling) {
      if (c.chunk === text) return c;
      last = c;
    }
    const made = new KvValue(this.tree, this, text);
    if (last === undefined) this.child = made;
    else last.sibling = made;
    return made;
  }

  /** The value `text` (a put), one object per text in the tree. */
  set(text: string): KvValue {
    const { tree } = this;
    if (text === '') return tree.root as KvValue;
    let value = tree.top.get(text);
    if (value === undefined) {
      value = new KvValue(tree, tree.root, text);
      tree.top.set(text, value);
    }
    return value;
  }

  equals(text: string): boolean {
    if (text.length !== this.length) return false;
    let end = text.length;
    for (let v: KvValue = this; v.parent !== undefined; v = v.parent) {
      end -= v.chunk.length;
      if (!text.startsWith(v.chunk, end)) return false;
    }
    return true;
  }

  /** As the string it is (JSON.stringify, the tests' reference checker). */
  toJSON(): string {
    return this.toString();
  }

  toString(): string {
    const chunks: string[] = [];
    for (let v: KvValue = this; v.parent !== undefined; v = v.parent) chunks.push(v.chunk);
    return chunks.reverse().join('');
  }
}

/** Values made so far (ids are numbers exactly up to 2^53: far more than any process makes). */
let made = 0;

/** What a tree of values shares: its root, and the values of one text (puts). */
interface KvTree {
  root: KvValue | undefined;
  top: Map<string, KvValue>;
}

export type KvState = KvValue;

/** Without appends a key is a register, with puts for writes and gets for reads. */
const roles = {
  produces: (op: PartOp) => (op.input.f === 'put' ? valueKey(text(op.input.value)) : undefined),
  observes: (op: PartOp) => (op.input.f === 'get' && op.output.known ? valueKey(getValue(op.output.value)) : undefined),
  blind: (op: PartOp) => op.input.f === 'put',
  subject: 'the key',
  shownValue: (op: PartOp) => showValue(getValue(op.output.value)),
};

export const kv: Model<KvState> = {
  name: 'kv',
  description: 'a string store, per key: get answers the value, put V sets it, append V appends (split by key)',
  fs: ['get', 'put', 'append'],
  init: (initial) => KvValue.empty().append(getValue(initial)),
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
    if (input.key !== undefined || !Array.isArray(input.value) || input.value.length !== 2) {
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
        return state.set(text(input.value) as string);
      case 'append':
        return state.append(text(input.value) as string);
      default: {
        if (!output.known) return state;
        const got = getValue(output.value);
        if (state.equals(got)) return state;
        return explain === false ? REJECTED : reject(getMismatch, got, state);
      }
    }
  },
  blind: (input) => input.f === 'put',
  pure: (input) => input.f === 'get',
  key: (state) => state.id,
  describe: (state) => `the key holds ${showValue(state.toString())}`,
  describeOp(input, output) {
    if (input.f === 'get') return output.known ? `get → ${showValue(getValue(output.value))}` : 'get (no answer)';
    return `${input.f} ${showValue(text(input.value))}`;
  },
  reduce(ops: readonly PartOp[], initial: KvState): Reduction[] {
    // Appends make a value depend on the whole past, so only pure gets can go; without
    // appends a key is a register.
    if (ops.some((op) => op.input.f === 'append')) {
      return ops.map((op) => (!op.output.known && op.input.f === 'get' ? 'drop' : 'keep'));
    }
    return reduceByObservation(ops, valueKey(initial.toString()), roles);
  },
  impossible(ops: readonly PartOp[], initial: KvState) {
    return ops.some((op) => op.input.f === 'append')
      ? undefined
      : impossibleObservation(ops, valueKey(initial.toString()), roles);
  },
};

const getMismatch = (got: string, state: KvValue) =>
  `get → ${showValue(got)}, but the key holds ${showValue(state.toString())}`;

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return undefined;
}

/** What a get observed: absent (nil) is ""; a value that is not a string, its JSON (exactly, not shortened). */
function getValue(v: unknown): string {
  return v === undefined || v === null ? '' : (text(v) ?? JSON.stringify(v));
}
