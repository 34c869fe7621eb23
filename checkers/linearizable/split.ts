/**
 * A paired history split into parts (keys), each a Part: its operations in columns
 * (part-wire.ts), written as the split reads them, and built into the objects the model
 * sees (PartData) only by the thread that checks the part.
 *
 * Why: a million operations make three million objects (input, output, op) that live until
 * the check ends. Building them all before any search began was most of what one thread
 * did alone before the others could start (parallel.ts), and the parts sent to workers were
 * read again to be encoded, and built again there.
 */
import { HistoryError } from '../../src/history/errors.js';
import type { PairedOp } from '../../src/history/pairs.js';
import type { Model, OpInput, OpOutput, PartOp } from '../models/linearizable-model.js';
import type { PartData } from './explain.js';
import { ColumnWriter, decodePart, type PartColumns, retOf } from './part-wire.js';

/** One part of a history, its operations in the order of their invocations. */
export class Part {
  private built: PartData | undefined;

  constructor(
    /** As the part crosses to a worker: a message copies them (structured clone). */
    readonly columns: PartColumns,
  ) {}

  get key(): string | null {
    return this.columns.key;
  }

  /** The earliest completion among its operations (a history position). */
  get firstRet(): number {
    return this.columns.firstRet;
  }

  /** Operations. */
  get size(): number {
    return this.columns.size;
  }

  /** Its operations as the model sees them, built the first time they are asked for. */
  data(): PartData {
    this.built ??= decodePart(this.columns);
    return this.built;
  }

  /**
   * Lets its objects go, once its check is decided (or, in one thread, pre-checked): a
   * million operations' objects, kept to the end, made every full collection during the
   * search trace them. Built again if asked for.
   */
  release(): void {
    this.built = undefined;
  }

  /** Where operation `i` completed ok (a history position), or Infinity. */
  ret(i: number): number {
    return retOf(this.columns, i);
  }
}

/**
 * The operations the model is to check, split into parts as they come (in invocation order):
 * each validated, and written into its part's columns. The first part to get an operation
 * comes first.
 */
export class Splitter {
  private readonly writers = new Map<string | null, ColumnWriter>();
  private indefiniteOps = 0;
  /** The first operation the model cannot take, reported once every operation is in (see finish). */
  private problem: { index: number; f: string; message: string } | undefined;
  /** Once there is a problem: the operations' fs, for its hint. */
  private fs: Set<string> | undefined;

  constructor(private readonly m: Model<unknown>) {}

  add(p: PairedOp): void {
    if (this.problem) {
      this.fs?.add(p.f);
      return;
    }
    const { key, op } = modelOp(this.m, p);
    const problem = this.m.validate(op.input, op.output);
    if (problem !== undefined) {
      this.problem = { index: p.invoke.index, f: op.input.f, message: problem };
      this.fs = new Set([op.input.f, ...[...this.writers.values()].flatMap((writer) => writer.fs)]);
      return;
    }
    if (!op.output.known) this.indefiniteOps++;
    const k = key ?? null;
    let writer = this.writers.get(k);
    if (!writer) {
      writer = new ColumnWriter(k);
      this.writers.set(k, writer);
    }
    writer.push(op, p.completion?.index ?? -1);
  }

  /** Operations without a known outcome (info, or never completed) so far. */
  get indefinite(): number {
    return this.indefiniteOps;
  }

  /** The parts. Throws HistoryError for the first operation the model cannot take, naming it. */
  finish(): Part[] {
    if (this.problem) {
      const { index, f, message } = this.problem;
      throw new HistoryError(`op ${index}: ${message}${onlyHint(this.m, f, this.fs ?? new Set())}`);
    }
    return [...this.writers.values()].map((writer) => new Part(writer.finish()));
  }
}

/**
 * A paired operation as the model sees it, and its part's key: the one reading of a paired
 * op. Its objects live only until their columns are written.
 */
function modelOp(m: Model<unknown>, p: PairedOp): { key: string | undefined; op: PartOp } {
  const value = p.invoke.value;
  let input: OpInput =
    p.key !== undefined
      ? { f: p.f, process: p.process, value, index: p.invoke.index, key: p.key }
      : { f: p.f, process: p.process, value, index: p.invoke.index };
  const known = p.outcome === 'ok';
  let output: OpOutput = { known, value: known ? p.completion?.value : undefined };
  let key: string | undefined = p.key;
  if (m.partition && key === undefined) ({ key, input, output } = m.partition(input, output));
  return { key, op: { input, output, call: p.call, ret: p.ret } };
}

/**
 * For an operation the model does not know: --only with the model's operations the history
 * has (`present`: the fs of all its operations), or, when it has none, that the model is the wrong one.
 */
function onlyHint(m: Model<unknown>, f: string, present: ReadonlySet<string>): string {
  if (m.fs.includes(f)) return '';
  const known = m.fs.filter((g) => present.has(g));
  return known.length > 0
    ? `; to check only the model's operations, give --only ${known.join(',')}`
    : `; the history has none of the model's operations (${m.fs.join(', ')}): give another --model`;
}
