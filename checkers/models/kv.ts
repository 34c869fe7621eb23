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
  type Reduction,
  reduceByObservation,
  reject,
  showValue,
  valueKey,
} from './model.js';

/** The key's value; "" also when absent. */
export type KvState = string;

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
    if (input.key !== undefined || !Array.isArray(input.value) || input.value.length !== 2) {
      return { key: input.key, input, output };
    }
    const [k, v] = input.value as [unknown, unknown];
    const result = Array.isArray(output.value) && output.value.length === 2 ? output.value[1] : output.value;
    const key = String(k);
    return { key, input: { ...input, key, value: v }, output: { known: output.known, value: result } };
  },
  step(state, input, output) {
    switch (input.f) {
      case 'put':
        return text(input.value) as string;
      case 'append':
        return state + (text(input.value) as string);
      default: {
        if (!output.known) return state;
        const got = getValue(output.value);
        return got === state ? state : reject(getMismatch, got, state);
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
  reduce(ops: readonly PartOp[], initial: KvState): Reduction[] {
    // Appends make a value depend on the whole past, so only pure gets can go; without
    // appends a key is a register.
    if (ops.some((op) => op.input.f === 'append')) {
      return ops.map((op) => (!op.output.known && op.input.f === 'get' ? 'drop' : 'keep'));
    }
    return reduceByObservation(ops, valueKey(initial), roles);
  },
  impossible(ops: readonly PartOp[], initial: KvState) {
    return ops.some((op) => op.input.f === 'append') ? undefined : impossibleObservation(ops, valueKey(initial), roles);
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
