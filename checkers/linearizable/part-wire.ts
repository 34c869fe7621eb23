/**
 * A part's (key's) operations in columns: numbers in typed arrays, values in plain arrays,
 * in chunks. The split (split.ts) writes each operation into its part's columns as soon as
 * it is paired, and whichever thread checks the part builds its objects from them
 * (decodePart): this thread from the columns themselves, a worker from their copy (a
 * message's structured clone: typed arrays and arrays of values are quick to copy, several
 * times quicker than the same values as JSON, and exact where JSON is not: undefined, NaN).
 *
 * Why columns: a million operations make three million objects (input, output, op) that
 * live until the check ends, and building them, and keeping a paired op per operation until
 * all were built, was most of what one thread did alone before any search could begin. A
 * part crossing to a worker as objects (structured clone) costs more than checking it,
 * about a second per 100k operations; as columns, about 20 ms.
 *
 * Why chunks: typed arrays grown by copying are external memory to V8, and every few tens of
 * megabytes of it start a full collection of the heap, with the history in it. Chunks are
 * allocated once and never copied; the first are small, so that a history of many small
 * parts does not reserve a large chunk for each.
 */
import type { OpInput, PartOp } from '../models/linearizable-model.js';
import type { PartData } from './explain.js';

/** Some of a part's operations, in order. */
export interface ColumnChunk {
  size: number;
  /** Per op: f (index into the part's fs) and flags (see below). */
  small: Uint8Array;
  /** Per op: process, invocation index, completion index (-1: none), call, ret (Infinity: none). */
  numbers: Float64Array;
  /**
   * Per op: the input's value, the output's (unless the input's), the input's key (unless
   * the part's), undefined ones as they are (a structured clone keeps them).
   */
  values: unknown[];
}

export interface PartColumns {
  key: string | null;
  /** Operations. */
  size: number;
  fs: string[];
  chunks: ColumnChunk[];
  /** The earliest completion among its operations (a history position; Infinity: none). */
  firstRet: number;
}

const KNOWN = 1;
/** The input's key is the part's (so not in values): every keyed op's, unless a model moved it. */
const KEY_OF_PART = 2;
/** The output's value is the input's (so not in values again): a put's or an append's, say. */
const OUTPUT_IS_INPUT = 4;

/** Numbers per op. */
const NUMBERS = 5;
const FIRST_CHUNK = 16;
const LARGEST_CHUNK = 1 << 14;

function newChunk(capacity: number): ColumnChunk {
  return { size: 0, small: new Uint8Array(capacity * 2), numbers: new Float64Array(capacity * NUMBERS), values: [] };
}

/** One part's columns, written op by op. */
export class ColumnWriter {
  private readonly chunks: ColumnChunk[] = [];
  private chunk = newChunk(FIRST_CHUNK);
  private size = 0;
  private firstRet = Number.POSITIVE_INFINITY;
  /** The fs of its operations, in the order first seen. */
  readonly fs: string[] = [];
  private readonly fIds = new Map<string, number>();

  constructor(readonly key: string | null) {
    this.chunks.push(this.chunk);
  }

  push(op: PartOp, completion: number): void {
    const { input, output, call, ret } = op;
    let chunk = this.chunk;
    const capacity = chunk.small.length / 2;
    if (chunk.size === capacity) {
      chunk = newChunk(Math.min(LARGEST_CHUNK, capacity * 2));
      this.chunks.push(chunk);
      this.chunk = chunk;
    }
    let f = this.fIds.get(input.f);
    if (f === undefined) {
      // A byte per op: a model knows a few operations, and validation refused any other.
      if (this.fs.length === 256) throw new Error(`part ${this.key}: more than 256 kinds of operation`);
      f = this.fs.length;
      this.fs.push(input.f);
      this.fIds.set(input.f, f);
    }
    const keyOfPart = input.key !== undefined && input.key === this.key;
    // Object.is: the same value exactly (=== takes -0 for 0, and never NaN for NaN).
    const outputIsInput = output.value !== undefined && Object.is(output.value, input.value);
    const i = chunk.size++;
    this.size++;
    chunk.small[i * 2] = f;
    chunk.small[i * 2 + 1] =
      (output.known ? KNOWN : 0) | (keyOfPart ? KEY_OF_PART : 0) | (outputIsInput ? OUTPUT_IS_INPUT : 0);
    const numbers = chunk.numbers;
    numbers[i * NUMBERS] = input.process;
    numbers[i * NUMBERS + 1] = input.index;
    numbers[i * NUMBERS + 2] = completion;
    numbers[i * NUMBERS + 3] = call;
    numbers[i * NUMBERS + 4] = ret;
    if (ret < this.firstRet) this.firstRet = ret;
    chunk.values.push(input.value);
    if (!outputIsInput) chunk.values.push(output.value);
    if (!keyOfPart) chunk.values.push(input.key);
  }

  finish(): PartColumns {
    const { key, size, fs, chunks, firstRet } = this;
    return { key, size, fs, chunks, firstRet };
  }
}

/** Where operation `i` completed ok (a history position), or Infinity. */
export function retOf(columns: PartColumns, i: number): number {
  let at = i;
  for (const chunk of columns.chunks) {
    if (at < chunk.size) return chunk.numbers[at * NUMBERS + 4];
    at -= chunk.size;
  }
  throw new RangeError(`part ${columns.key} has no operation ${i}`);
}

/**
 * A number read from the columns (a double) as a small integer when it is one, else as it
 * is (-0, Infinity, beyond 32 bits). A double stored in an object's field is boxed there: a
 * 100k-operation part built without this took 22.1 MB and 15.6 ms, with it 17.6 MB and 12.3.
 */
const small32 = (x: number): number => ((x | 0) === x && (x !== 0 || 1 / x > 0) ? x | 0 : x);

/** The part's objects, built whole from its columns, in any thread. */
export function decodePart(columns: PartColumns): PartData {
  const { key, size, fs } = columns;
  const part: PartData = { key, ops: new Array(size), completions: new Array(size) };
  let op = 0;
  for (const { size: n, small, numbers, values } of columns.chunks) {
    let next = 0; // in values
    for (let i = 0; i < n; i++, op++) {
      const f = fs[small[i * 2]];
      const flags = small[i * 2 + 1];
      const value = values[next++];
      const outputValue = flags & OUTPUT_IS_INPUT ? value : values[next++];
      const inputKey = (flags & KEY_OF_PART ? key : values[next++]) as string | undefined;
      // Built whole: one shape, no property added later (a million operations make three
      // million of these objects, and they live until the check ends).
      const process = small32(numbers[i * NUMBERS]);
      const index = small32(numbers[i * NUMBERS + 1]);
      const input: OpInput =
        inputKey !== undefined ? { f, process, value, index, key: inputKey } : { f, process, value, index };
      const output = { known: (flags & KNOWN) !== 0, value: outputValue };
      part.ops[op] = { input, output, call: small32(numbers[i * NUMBERS + 3]), ret: small32(numbers[i * NUMBERS + 4]) };
      part.completions[op] = small32(numbers[i * NUMBERS + 2]);
    }
  }
  return part;
}
