/**
 * The heap a report's thread is given: bounded by the size of the history it reads, so that
 * a nightly of long runs, two cells at once on a 7 GiB runner, knows what a report costs.
 *
 * Why a bound and not only less to keep: V8 lets its old generation grow well past what is
 * alive before it collects (1M operations: 430 MiB alive, 1.1-1.4 GiB of RSS at the peak,
 * more on a busy machine, where the concurrent marker falls behind). Told its limit, it
 * collects sooner and the same report fits: alive at the peak are the ops (about 145 bytes
 * for each of a history's lines, 0.9 of its bytes), their pairing (0.35) and the largest
 * checker's search; 1.5 times the bytes plus a fixed part leaves that room with a margin.
 * A history that needs more all the same gets its report again without the bound
 * (reported-run.ts): the bound may cost a retry, never a report.
 */

const MiB = 1024 * 1024;

/** The fixed part: the page's own strings and the checkers' working set of a small run. */
const BASE_MIB = 256;

/** Heap per byte of history.jsonl, beyond the fixed part. */
const PER_HISTORY_BYTE = 1.5;

/** The old generation's limit, in MiB, for the report of a history of `historyBytes`. */
export function reportHeapMiB(historyBytes: number): number {
  return Math.ceil(BASE_MIB + (PER_HISTORY_BYTE * Math.max(0, historyBytes)) / MiB);
}
