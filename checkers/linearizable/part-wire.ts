/**
 * A part (key) of a history as it crosses to a worker thread. Copying it as objects
 * (structured clone) costs more than checking many parts: about a second per 100k operations.
 * So its numbers go as typed arrays (transferred, not copied) and its values as one JSON
 * string, and the worker builds the objects again, the same ones.
 */
import type { PartData } from './explain.js';

export interface PartWire {
  key: string | null;
  fs: string[];
  /** Per op: f (index into fs), outcome (index into OUTCOMES), and flags (see below). */
  small: Uint8Array;
  /** Per op: process, invocation index, completion index (NaN: none), call, ret (Infinity: none). */
  numbers: Float64Array;
  /** [input value, output value, input key] of every op, as JSON; undefined ones as null, told apart by the flags. */
  values: string;
}

const OUTCOMES = ['ok', 'info', 'pending'] as const;
const INPUT_VALUE = 1;
const OUTPUT_VALUE = 2;
const INPUT_KEY = 4;
const KNOWN = 8;

export function encodePart(part: PartData): PartWire {
  const n = part.ops.length;
  const fs: string[] = [];
  const fIds = new Map<string, number>();
  const small = new Uint8Array(n * 3);
  const numbers = new Float64Array(n * 5);
  const values: unknown[] = new Array(n * 3);
  for (let i = 0; i < n; i++) {
    const { input, output, call, ret } = part.ops[i];
    const r = part.records[i];
    let f = fIds.get(input.f);
    if (f === undefined) {
      f = fs.length;
      fs.push(input.f);
      fIds.set(input.f, f);
    }
    // f and the record's f are one (the model's partition never renames an operation), as
    // are the process and the invocation index.
    small[i * 3] = f;
    small[i * 3 + 1] = r.outcome === 'ok' ? 0 : r.outcome === 'info' ? 1 : 2;
    small[i * 3 + 2] =
      (input.value !== undefined ? INPUT_VALUE : 0) |
      (output.value !== undefined ? OUTPUT_VALUE : 0) |
      (input.key !== undefined ? INPUT_KEY : 0) |
      (output.known ? KNOWN : 0);
    numbers[i * 5] = input.process;
    numbers[i * 5 + 1] = input.index;
    numbers[i * 5 + 2] = r.completionIndex ?? Number.NaN;
    numbers[i * 5 + 3] = call;
    numbers[i * 5 + 4] = ret;
    values[i * 3] = input.value ?? null;
    values[i * 3 + 1] = output.value ?? null;
    values[i * 3 + 2] = input.key ?? null;
  }
  return { key: part.key, fs, small, numbers, values: JSON.stringify(values) };
}

export function decodePart(wire: PartWire): PartData {
  const { fs, small, numbers } = wire;
  const values = JSON.parse(wire.values) as unknown[];
  const n = small.length / 3;
  const part: PartData = { key: wire.key, ops: new Array(n), records: new Array(n) };
  for (let i = 0; i < n; i++) {
    const f = fs[small[i * 3]];
    const flags = small[i * 3 + 2];
    const process = numbers[i * 5];
    const index = numbers[i * 5 + 1];
    const completion = numbers[i * 5 + 2];
    const input: PartData['ops'][number]['input'] = { f, process, value: undefined, index };
    if (flags & INPUT_VALUE) input.value = values[i * 3];
    if (flags & INPUT_KEY) input.key = values[i * 3 + 2] as string;
    const known = (flags & KNOWN) !== 0;
    const output = { known, value: flags & OUTPUT_VALUE ? values[i * 3 + 1] : undefined };
    part.ops[i] = { input, output, call: numbers[i * 5 + 3], ret: numbers[i * 5 + 4] };
    const record: PartData['records'][number] = {
      process,
      f,
      outcome: OUTCOMES[small[i * 3 + 1]],
      invokeIndex: index,
    };
    if (!Number.isNaN(completion)) record.completionIndex = completion;
    part.records[i] = record;
  }
  return part;
}
