/**
 * The report's data, prepared from a history and its checker results: what the page's
 * script draws. Pure (no I/O), JSON-serialisable, and bounded: a large history keeps at
 * most `maxBars` operation bars and `maxLanes` lanes and `maxLatencyPoints` latency points,
 * and says in `notes` what it left out.
 *
 * Times are milliseconds since the test's origin, rounded to microseconds. Op indices are
 * the stored history's (history.jsonl line = index + 1).
 */
import type { CheckResult } from '../../checkers/result.js';
import type { ViolationKind } from '../../checkers/violations.js';
import type { Op } from '../history/op.js';
import { pairLeniently } from '../history/pairs.js';
import { kindOrder } from './bar-words.js';
import { latencyData } from './latency-data.js';
import { focusOf, placedViolations, widenTurnedAway } from './placed-violations.js';
import { ms, timesByIndex } from './report-time.js';
import { barOf, chooseLanes, chooseOperations, holdBarsOf, placeFaults } from './timeline-data.js';

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
  /** The lane of the process the fault targeted (a paused client), or -1. */
  lane: number;
  /** The process the fault targeted (a paused client), when it targeted one. */
  process?: number;
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

export interface PrepareOptions {
  maxBars?: number;
  maxLanes?: number;
  maxLatencyPoints?: number;
}

export const LIMITS = { maxBars: 50_000, maxLanes: 48, maxLatencyPoints: 24_000 };

export function prepareReport(
  history: readonly Op[],
  results: readonly CheckResult[],
  options: PrepareOptions = {},
): ReportData {
  const limits = { ...LIMITS, ...options };
  const notes: string[] = [];
  const endMs = ms(history.reduce((m, op) => Math.max(m, op.time), 0));
  const pairs = pairLeniently(history);
  const timeOf = timesByIndex(history);

  const lanes = chooseLanes(history, pairs, results, timeOf, endMs, limits.maxLanes);
  if (lanes.note) notes.push(lanes.note);
  const faults = placeFaults(history, lanes.laneOf);
  const violations = placedViolations(results, timeOf, lanes.laneOf, endMs, faults);
  widenTurnedAway(violations, history, faults, timeOf, endMs);
  const marked = new Set(violations.flatMap((v) => v.marks.map((m) => m.index)));

  const kinds = new Set<string>();
  for (const p of pairs) kinds.add(p.invoke.f);
  const fs = kindOrder(kinds);
  const fIndex = new Map(fs.map((f, i) => [f, i]));
  const shown = new Set(lanes.processes);
  const visible =
    lanes.processes.length === lanes.allProcesses ? pairs : pairs.filter((p) => shown.has(p.invoke.process as number));
  const { chosen, note } = chooseOperations(visible, marked, limits.maxBars);
  if (note) notes.push(note);
  const bars = chosen.map((p) => barOf(p, lanes.laneOf, fIndex));

  const latency = latencyData(pairs, fs, limits.maxLatencyPoints, endMs);
  if (latency.downsampled) notes.push(latency.downsampled);

  return {
    endMs,
    fs,
    lanes: lanes.lanes,
    bars,
    holds: holdBarsOf(history, lanes.laneOf),
    faults,
    latency,
    violations,
    focus: focusOf(violations),
    notes,
    stats: {
      ops: history.length,
      operations: pairs.length,
      shownOperations: bars.length,
      processes: lanes.allProcesses,
    },
  };
}
