/**
 * The report's data, prepared from a history and its checker results: what the page's
 * script draws. Pure (no I/O), JSON-serialisable, and bounded: a large history keeps at
 * most `maxBars` operation bars and `maxLanes` lanes and `maxLatencyPoints` latency points,
 * and says in `notes` what it left out.
 *
 * Times are milliseconds since the test's origin, rounded to microseconds. Op indices are
 * the stored history's (history.jsonl line = index + 1). The data's types are
 * report-data-types.ts's, which the builders (timeline-data.ts, placed-violations.ts,
 * latency-data.ts) and the page's script share.
 */
import type { CheckResult } from '../../checkers/result.js';
import type { Op } from '../history/op.js';
import { pairLeniently } from '../history/pairs.js';
import { kindOrder } from './bar-words.js';
import { latencyData } from './latency-data.js';
import { focusOf, placedViolations, widenTurnedAway } from './placed-violations.js';
import type { ReportData } from './report-data-types.js';
import { ms, timesByIndex } from './report-time.js';
import { barOf, chooseLanes, chooseOperations, holdBarsOf, placeFaults } from './timeline-data.js';

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
