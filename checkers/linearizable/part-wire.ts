/**
 * A part (key) of a history as it crosses to a worker thread. Copying it as objects
 * (structured clone) costs more than checking many parts: about a second per 100k operations.
 * So its numbers go as typed arrays (transferred, not copied) and its values as one JSON
 * string, and the worker builds the objects again, the same ones.
 */
import type { OpInput } from '../models/model.js';
import type { PartData } from './explain.js';

export interface PartWire {
  key: string | null;
  fs: string[];
  /** Per op: f (index into fs) and flags (see below). */
  small: Uint8Array;
  /** Per op: process, invocation index, completion index (-1: none), call, ret (Infinity: none). */
  numbers: Float64Array;
  /** Per op, input value, output value (unless the input's), input key (unless the part's), as JSON; undefined ones as null, told apart by the flags. */
  values: string;
}

const INPUT_VALUE = 1;
const OUTPUT_VALUE = 2;
const INPUT_KEY = 4;
const KNOWN = 8;
/** The input's key is the part's (so not in values): every keyed op's, unless a model moved it. */
const KEY_OF_PART = 16;
/** The output's value is the input's (so not in values again): a put's or an append's, say. */
const OUTPUT_IS_INPUT = 32;

export function encodePart(part: PartData): PartWire {
  const n = part.ops.length;
  const fs: string[] = [];
  const fIds = new Map<string, number>();
  const small = new Uint8Array(n * 2);
  const numbers = new Float64Array(n * 5);
  const values: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const { input, output, call, ret } = part.ops[i];
    let f = fIds.get(input.f);
    if (f === undefined) {
      f = fs.length;
      fs.push(input.f);
      fIds.set(input.f, f);
    }
    small[i * 2] = f;
    const keyOfPart = input.key !== undefined && input.key === part.key;
    const outputIsInput = output.value !== undefined && output.value === input.value;
    small[i * 2 + 1] =
      (input.value !== undefined ? INPUT_VALUE : 0) |
      (output.value !== undefined ? OUTPUT_VALUE : 0) |
      (input.key !== undefined ? INPUT_KEY : 0) |
      (output.known ? KNOWN : 0) |
      (keyOfPart ? KEY_OF_PART : 0) |
      (outputIsInput ? OUTPUT_IS_INPUT : 0);
    numbers[i * 5] = input.process;
    numbers[i * 5 + 1] = input.index;
    numbers[i * 5 + 2] = part.completions[i];
    numbers[i * 5 + 3] = call;
    numbers[i * 5 + 4] = ret;
    values.push(input.value ?? null);
    if (!outputIsInput) values.push(output.value ?? null);
    if (!keyOfPart) values.push(input.key ?? null);
  }
  return { key: part.key, fs, small, numbers, values: JSON.stringify(values) };
}

export function decodePart(wire: PartWire): PartData {
  const { fs, small, numbers } = wire;
  const values = JSON.parse(wire.values) as unknown[];
  const n = small.length / 2;
  const part: PartData = { key: wire.key, ops: new Array(n), completions: new Array(n) };
  let next = 0; // in values
  for (let i = 0; i < n; i++) {
    const f = fs[small[i * 2]];
    const flags = small[i * 2 + 1];
    const inputValue = values[next++];
    const outputValue = flags & OUTPUT_IS_INPUT ? inputValue : values[next++];
    const inputKey = flags & KEY_OF_PART ? wire.key : values[next++];
    // Built whole, as splitParts builds them (index.ts): one shape, no property added later.
    const process = numbers[i * 5];
    const index = numbers[i * 5 + 1];
    const value = flags & INPUT_VALUE ? inputValue : undefined;
    const input: OpInput =
      flags & INPUT_KEY ? { f, process, value, index, key: inputKey as string } : { f, process, value, index };
    const known = (flags & KNOWN) !== 0;
    const output = { known, value: flags & OUTPUT_VALUE ? outputValue : undefined };
    part.ops[i] = { input, output, call: numbers[i * 5 + 3], ret: numbers[i * 5 + 4] };
    part.completions[i] = numbers[i * 5 + 2];
  }
  return part;
}
