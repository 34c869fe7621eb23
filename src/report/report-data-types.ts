/**
 * The report's data as the page's script draws it (report-data.ts prepares it): its types
 * alone, so that the builders of its parts and the page's script name them without
 * importing what builds the whole.
 *
 * Times are milliseconds since the test's origin, rounded to microseconds. Op indices are
 * the stored history's (history.jsonl line = index + 1).
 */
import type { ViolationKind } from '../../checkers/violations.js';

/**
 * One operation: [lane, f (index into `fs`), outcome (index into bar-words.ts's BAR_OUTCOMES), startMs,
 * endMs (-1: never completed), invoke index, completion index (-1: none), value in brief,
 * error, the bar's label (barLabel)].
 */
export type Bar = [number, number, number, number, number, number, number, string, string, string];

/** A lock hold: [lane, startMs, endMs (-1: to the end), acquire index, release index (-1), token (-1: none)]. */
export type HoldBar = [number, number, number, number, number, number];

export interface Lane {
  process: number;
  label: string;
  ops: number;
}

export interface Fault {
  f: string;
  label: string;
  startMs: number;
  /** -1: never healed in this history. */
  endMs: number;
  /** The row of the fault band, so that overlapping faults do not hide each other. */
  row: number;
  /** The lane of the process the fault hit (a paused client), or -1. */
  lane: number;
  /** The process the fault hit (a paused client), when it hit one. */
  process?: number;
  /**
   * How long it kept the client it caught at a point (its stop's `heldMs`): a wire or
   * client-pause fault's window runs longer, waiting for its moment and for the handover.
   */
  heldMs?: number;
  /** Why it let that client go (its stop's `until`: "another client held the lock"). */
  heldUntil?: string;
}

export interface Violation {
  checker: string;
  counted: boolean;
  /** Its checker says it in the words of what failed (checker-words.ts ownWords): the headline quotes it. */
  ownWords?: true;
  kind: ViolationKind;
  words: string;
  /** Op indices to highlight, with a short label each. */
  marks: { index: number; label: string }[];
  /** Overlapping holds: the two holds [lane, startMs, endMs(-1 = end)] and the overlap. */
  holds?: [number, number, number][];
  /** Overlapping holds: the two holders' processes, the earlier holder first. */
  processes?: [number, number];
  overlap?: [number, number];
  /** The time range to show, in ms. */
  view: [number, number];
}

export interface LatencyData {
  kinds: string[];
  /** Invocation time in ms, ascending; one column per kind (null where another kind's point is). */
  x: number[];
  y: (number | null)[][];
  /** Set when points were merged: how. */
  downsampled?: string;
}

export interface ReportData {
  endMs: number;
  fs: string[];
  lanes: Lane[];
  bars: Bar[];
  holds: HoldBar[];
  faults: Fault[];
  latency: LatencyData;
  violations: Violation[];
  /** The violation shown on load, or -1. */
  focus: number;
  notes: string[];
  stats: { ops: number; operations: number; shownOperations: number; processes: number };
}
