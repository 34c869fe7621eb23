/**
 * Lost updates (lock-set): every element whose write was acknowledged (`ok`) must be in
 * the final read. The lock-set workload appends exactly one new element at the end of the
 * set it writes, so the element a write adds is the last one of its value. For each lost
 * element: who wrote it, and the first acknowledged write after it that left it out.
 *
 * Linear in the history's size (the sum of the sets written): the writes are walked once,
 * in order, and a lost element is looked for only in the writes invoked after its own was
 * acknowledged, until one leaves it out. Each look either finds that write (once per
 * element) or finds the element in a write's set (paid for by that set's size).
 */
import type { Op, Process } from '../src/history/op.js';
import { type LenientOp, pairLeniently } from '../src/history/pairs.js';
import { plural } from '../src/util/plural.js';
import type { RunChecker } from './checker.js';
import type { CheckerWords, DataFate } from './checker-words.js';
import { decodeWrite } from './op-values.js';
import type { CheckerViolation, CheckResult } from './result.js';
import { secs } from './seconds.js';

/** A lock-set write's set of elements (checkers/op-values.ts). */
const writtenSet = (value: unknown) => decodeWrite(value).set as readonly number[];

/** A lost element, structured for reports: op indices refer to the stored history. */
export interface LostElement {
  element: number;
  /** The writer's process. */
  writer: Process;
  writeIndex: number;
  overwriteIndex?: number;
  words: string;
}

// A type, not an interface: results.json details are a plain record.
export type LostUpdatesDetails = {
  acknowledged: number;
  final: number;
  lost: number;
  unexpected: number;
  first?: string;
  /** The first 100 lost elements. */
  lostElements?: LostElement[];
  unexpectedElements?: number[];
};

/** What lost-updates could say without a final read. */
export type NoFinalReadDetails = { acknowledged: number; finalRead: false };

export function checkLostUpdates(
  history: readonly Op[],
  storeKey: string,
): CheckResult & { details?: LostUpdatesDetails | NoFinalReadDetails } {
  const base = { checker: 'lost-updates', counts: true };
  const pairs = pairLeniently(history).filter((p) => p.invoke.key === storeKey);
  const writes = pairs.filter((p) => p.invoke.f === 'write' && p.completion?.type === 'ok');
  const reads = pairs.filter((p) => p.invoke.f === 'read');
  const finalRead = reads.findLast((p) => p.completion?.type === 'ok');
  if (!finalRead?.completion) {
    return { ...base, valid: 'unknown', summary: 'no successful read of the store: cannot tell what was kept' };
  }
  // The final read is the last read of all: one that the store did not answer leaves none,
  // and a read during the run is no final read (every add acknowledged after it would look lost).
  if (reads.at(-1) !== finalRead) return noFinalRead(base, writes.length, 'the data store did not answer it');
  const final = new Set(writtenSet(finalRead.completion.value));
  const attempted = new Set(pairs.filter((p) => p.invoke.f === 'write').map((p) => writtenSet(p.invoke.value).at(-1)));
  const lost: { element: number; writer: Op; overwrittenBy?: Op }[] = [];
  for (const w of writes) {
    const element = writtenSet(w.invoke.value).at(-1);
    if (element === undefined || final.has(element)) continue;
    lost.push({ element, writer: w.completion as Op });
  }
  findOverwrites(lost, writes);
  const unexpected = [...final].filter((e) => !attempted.has(e));
  const counts = { acknowledged: writes.length, final: final.size, lost: lost.length, unexpected: unexpected.length };
  if (lost.length === 0 && unexpected.length === 0) {
    return {
      ...base,
      valid: true,
      summary: `${writes.length} acknowledged adds, all in the final read of ${final.size}`,
      details: counts,
    };
  }
  const describe = (l: (typeof lost)[number]) =>
    `element ${l.element}, acknowledged to process ${l.writer.process} at ${secs(l.writer.time)} (op #${l.writer.index})` +
    (l.overwrittenBy
      ? `, overwritten by process ${l.overwrittenBy.process}'s write at ${secs(l.overwrittenBy.time)} (op #${l.overwrittenBy.index})`
      : '');
  const first = lost[0] ? describe(lost[0]) : `element ${unexpected[0]} was never written`;
  return {
    ...base,
    valid: false,
    summary: `${lost.length} of ${writes.length} acknowledged adds lost${unexpected.length ? `, ${unexpected.length} unexpected` : ''}; first: ${first}`,
    details: {
      ...counts,
      first,
      lostElements: lost.slice(0, 100).map((l) => ({
        element: l.element,
        writer: l.writer.process,
        writeIndex: l.writer.index,
        overwriteIndex: l.overwrittenBy?.index,
        words: describe(l),
      })),
      unexpectedElements: unexpected.slice(0, 100),
    },
  };
}

/**
 * lost-updates on a history without its final read (a killed run's prefix, or a store that
 * did not answer it): the last read during the run would be taken for it, and every add
 * acknowledged after that read would look lost. So the answer is unknown, with what was
 * recorded. `why`: why there is no final read.
 */
export function lostUpdatesWithoutFinalRead(r: CheckResult, why = 'the run stopped before it'): CheckResult {
  if (r.valid === 'unknown') return r;
  const acknowledged = (r.details as Partial<LostUpdatesDetails> | undefined)?.acknowledged ?? 0;
  return noFinalRead({ checker: r.checker, counts: r.counts ?? true }, acknowledged, why);
}

/** lost-updates unknown for want of a final read, with the adds acknowledged and `why` there is none. */
function noFinalRead(
  base: Pick<CheckResult, 'checker' | 'counts'>,
  acknowledged: number,
  why: string,
): CheckResult & { details: NoFinalReadDetails } {
  return {
    ...base,
    valid: 'unknown',
    summary: `no final read: ${why}, so what the store kept cannot be told (${acknowledged} acknowledged adds recorded)`,
    details: { acknowledged, finalRead: false },
  };
}

/** Every element of a lock-set history's writes is acknowledged or lost: counted. */
export const lostUpdatesChecker: RunChecker = {
  name: () => 'lost-updates',
  counts: () => true,
  check: (run) => checkLostUpdates(run.history, run.storeKey),
};

/** The lost elements a result names, each with its write and the write that dropped it. */
export function lostUpdatesViolations(result: CheckResult): CheckerViolation[] {
  const lost = (result.details as LostUpdatesDetails | undefined)?.lostElements;
  if (result.valid !== false || !Array.isArray(lost)) return [];
  return lost.map((l) => {
    const marks = [{ index: l.writeIndex, label: `writes ${l.element} (acknowledged)` }];
    if (l.overwriteIndex !== undefined) {
      marks.push({ index: l.overwriteIndex, label: `overwrites the set without ${l.element}` });
    }
    return { kind: 'lost', words: `lost ${l.words}`, marks };
  });
}

/** What became of the data by a result: unknown without a final read, else the adds lost or that none was. */
function lostUpdatesFate(r: CheckResult): DataFate {
  const d = r.details as Partial<LostUpdatesDetails> | undefined;
  if (r.valid === 'unknown') return { words: 'what the store kept is unknown (no final read)', intact: false };
  if (r.valid === true) {
    const n = d?.acknowledged;
    const kept =
      typeof n !== 'number'
        ? 'no acknowledged add lost'
        : n === 1
          ? 'the one acknowledged add kept'
          : `all ${n} acknowledged adds kept`;
    return { words: 'no acknowledged add lost', intact: true, kept };
  }
  const lost = typeof d?.lost === 'number' ? d.lost : undefined;
  const unexpected = typeof d?.unexpected === 'number' && d.unexpected > 0 ? d.unexpected : 0;
  const parts: string[] = [];
  if (lost !== undefined && lost > 0) parts.push(`${plural(lost, 'acknowledged add')} lost`);
  if (unexpected > 0) parts.push(`${plural(unexpected, 'element')} in the store that no one wrote`);
  return { words: parts.join(', ') || 'the store lost acknowledged adds', intact: false };
}

/** lost-updates speaks for the data: what the store kept of the acknowledged adds. */
export const lostUpdatesWords: CheckerWords = {
  judges: 'data',
  violations: lostUpdatesViolations,
  dataFate: lostUpdatesFate,
};

/**
 * For each lost element, the first acknowledged write (in history order) invoked after its
 * write completed whose set leaves it out.
 */
function findOverwrites(lost: { element: number; writer: Op; overwrittenBy?: Op }[], writes: LenientOp[]): void {
  const byDone = [...lost].sort((a, b) => a.writer.time - b.writer.time);
  let next = 0; // byDone[next..] completed after every write invocation seen so far
  let latest = Number.NEGATIVE_INFINITY;
  let pending: typeof lost = [];
  const inWrite = new Stamps();
  let stamp = 0;
  for (const o of writes) {
    latest = Math.max(latest, o.invoke.time);
    while (next < byDone.length && byDone[next].writer.time < latest) pending.push(byDone[next++]);
    if (pending.length === 0) continue;
    stamp++;
    for (const e of writtenSet(o.invoke.value)) inWrite.mark(e, stamp);
    const still: typeof lost = [];
    for (const l of pending) {
      const kept = inWrite.marked(l.element, stamp);
      // times need not grow with history order: this write must itself come after it
      if (o.invoke.time > l.writer.time && !kept) l.overwrittenBy = o.completion;
      else still.push(l);
    }
    pending = still;
  }
}

/**
 * Which write last held each element, by a number per write: asking whether a write's set
 * holds an element without making a Set of every write. Small whole numbers (lock-set's
 * elements) index an array; anything else goes in a map. Both compare as a Set would
 * (SameValueZero: -0 is 0, NaN is NaN).
 */
class Stamps {
  private small = new Int32Array(1024);
  private readonly other = new Map<unknown, number>();
  private static readonly SMALL = 1 << 24;

  mark(element: unknown, stamp: number): void {
    if (typeof element === 'number' && Number.isInteger(element) && element >= 0 && element < Stamps.SMALL) {
      if (element >= this.small.length) {
        const grown = new Int32Array(Math.min(Stamps.SMALL, Math.max(element + 1, this.small.length * 2)));
        grown.set(this.small);
        this.small = grown;
      }
      this.small[element] = stamp;
    } else this.other.set(element, stamp);
  }

  /** Stamps start at 1: an element never marked is marked by no write. */
  marked(element: unknown, stamp: number): boolean {
    if (typeof element === 'number' && Number.isInteger(element) && element >= 0 && element < Stamps.SMALL)
      return element < this.small.length && this.small[element] === stamp;
    return this.other.get(element) === stamp;
  }
}
