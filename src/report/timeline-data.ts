/**
 * The timeline's data, bounded: the lanes (one per client process; past the cap, those in
 * the findings, then the busiest), the fault windows in rows, the operations drawn (past
 * the cap, every one a finding names, every info and unfinished one, and a stride of the
 * rest) as bars, and the lock holds.
 */
import { faultWindows } from '../../checkers/fault-windows.js';
import { holdsOf } from '../../checkers/mutual-exclusion.js';
import type { CheckResult } from '../../checkers/result.js';
import type { Op } from '../history/op.js';
import type { LenientOp } from '../history/pairs.js';
import { faultLabel } from '../nemesis/label.js';
import { BAR_OUTCOMES, barLabel, brief } from './bar-words.js';
import { placedViolations } from './placed-violations.js';
import type { Bar, Fault, HoldBar, Lane } from './report-data-types.js';
import { ms } from './report-time.js';

export interface ChosenLanes {
  /** The processes with a lane, in order. */
  processes: number[];
  /** How many client processes the history has. */
  allProcesses: number;
  lanes: Lane[];
  /** A process's lane, -1 for none. */
  laneOf: (process: number) => number;
  /** What was left out, when something was. */
  note?: string;
}

export function chooseLanes(
  history: readonly Op[],
  pairs: readonly LenientOp[],
  results: readonly CheckResult[],
  timeOf: (index: number) => number | undefined,
  endMs: number,
  maxLanes: number,
): ChosenLanes {
  const opsPerProcess = new Map<number, number>();
  for (const p of pairs)
    opsPerProcess.set(p.invoke.process as number, (opsPerProcess.get(p.invoke.process as number) ?? 0) + 1);
  let processes = [...opsPerProcess.keys()].sort((a, b) => a - b);
  const allProcesses = processes.length;
  let note: string | undefined;
  if (processes.length > maxLanes) {
    const wanted = new Set<number>();
    const processOfIndex = new Map<number, number>();
    for (const op of history) if (op.process !== 'nemesis') processOfIndex.set(op.index, op.process);
    const provisional = placedViolations(results, timeOf, () => -1, endMs);
    for (const v of provisional.slice(0, 20)) {
      for (const m of v.marks) {
        const p = processOfIndex.get(m.index);
        if (p !== undefined) wanted.add(p);
      }
    }
    const busiest = [...processes].sort((a, b) => (opsPerProcess.get(b) ?? 0) - (opsPerProcess.get(a) ?? 0));
    for (const p of busiest) {
      if (wanted.size >= maxLanes) break;
      wanted.add(p);
    }
    processes = [...wanted].slice(0, maxLanes).sort((a, b) => a - b);
    note = `${allProcesses} client processes: the timeline shows ${processes.length} lanes (those in the violations shown, then the busiest); the latency plot has every process.`;
  }
  const laneIndex = new Map(processes.map((p, i) => [p, i]));
  const lanes: Lane[] = processes.map((p) => ({ process: p, label: `process ${p}`, ops: opsPerProcess.get(p) ?? 0 }));
  const chosen: ChosenLanes = { processes, allProcesses, lanes, laneOf: (p) => laneIndex.get(p) ?? -1 };
  if (note !== undefined) chosen.note = note;
  return chosen;
}

/** The fault windows, each in the first row free at its start, on the lane of the process it hit when it hit one. */
export function placeFaults(history: readonly Op[], laneOf: (process: number) => number): Fault[] {
  const rowEnds: number[] = [];
  return faultWindows(history).map((w) => {
    const hit = (w.value as { process?: unknown } | undefined)?.process;
    const startMs = ms(w.start);
    const endMs = w.end !== undefined ? ms(w.end) : -1;
    // The first row free at this start (windows come in start order).
    let row = rowEnds.findIndex((end) => end <= startMs);
    if (row === -1) row = rowEnds.length;
    rowEnds[row] = endMs < 0 ? Number.POSITIVE_INFINITY : endMs;
    const fault: Fault = {
      f: w.f,
      label: faultLabel(w.f, w.value),
      startMs,
      endMs,
      row,
      lane: typeof hit === 'number' ? laneOf(hit) : -1,
    };
    if (typeof hit === 'number') fault.process = hit;
    const stopped = w.stopValue as { heldMs?: unknown; until?: unknown } | undefined;
    if (typeof stopped?.heldMs === 'number' && Number.isFinite(stopped.heldMs) && stopped.heldMs >= 0) {
      fault.heldMs = stopped.heldMs;
    }
    if (typeof stopped?.until === 'string') fault.heldUntil = stopped.until;
    return fault;
  });
}

/**
 * The operations the timeline draws out of `visible`: all of them up to `maxBars`; past it,
 * every one a finding names (`marked`), ended info or never ended is kept (the first
 * maxBars/2 of those), and every stride-th other one.
 */
export function chooseOperations(
  visible: readonly LenientOp[],
  marked: ReadonlySet<number>,
  maxBars: number,
): { chosen: readonly LenientOp[]; note?: string } {
  if (visible.length <= maxBars) return { chosen: visible };
  const isPriority = (p: LenientOp) =>
    marked.has(p.invoke.index) ||
    (p.completion !== undefined && marked.has(p.completion.index)) ||
    p.outcome === 'info' ||
    p.outcome === 'pending';
  // Marks, not sets and copies of a million operations: the first maxBars/2 priority ones,
  // then every stride-th of the rest.
  const keep = new Uint8Array(visible.length);
  let priority = 0;
  for (let i = 0; i < visible.length && priority < Math.floor(maxBars / 2); i++) {
    if (isPriority(visible[i] as LenientOp)) {
      keep[i] = 1;
      priority++;
    }
  }
  const rest = visible.length - priority;
  const stride = Math.ceil(rest / Math.max(1, maxBars - priority));
  for (let i = 0, r = 0; i < visible.length; i++) {
    if (keep[i] === 1) continue;
    if (r % stride === 0) keep[i] = 1;
    r++;
  }
  const chosen = visible.filter((_, i) => keep[i] === 1);
  return {
    chosen,
    note: `${visible.length.toLocaleString('en-US')} operations: the timeline draws ${chosen.length.toLocaleString('en-US')} of them: every one a violation names, every info and unfinished one, and every ${stride}${stride === 2 ? 'nd' : stride === 3 ? 'rd' : 'th'} other one. history.jsonl has them all.`,
  };
}

/** An operation's bar (report-data-types.ts's Bar). */
export function barOf(p: LenientOp, laneOf: (process: number) => number, fIndex: ReadonlyMap<string, number>): Bar {
  const c = p.completion;
  const value = c?.value !== undefined ? c.value : p.invoke.value;
  return [
    laneOf(p.invoke.process as number),
    fIndex.get(p.invoke.f) ?? 0,
    BAR_OUTCOMES.indexOf(p.outcome),
    ms(p.invoke.time),
    c ? ms(c.time) : -1,
    p.invoke.index,
    c ? c.index : -1,
    brief(value),
    c?.error ?? '',
    barLabel(p.invoke.f, value),
  ];
}

/** The lock holds of the processes with a lane. */
export function holdBarsOf(history: readonly Op[], laneOf: (process: number) => number): HoldBar[] {
  const holdBars: HoldBar[] = [];
  for (const h of holdsOf(history)) {
    const lane = laneOf(h.process);
    if (lane < 0) continue;
    holdBars.push([
      lane,
      ms(h.start),
      Number.isFinite(h.end) ? ms(h.end) : -1,
      h.acquireIndex,
      h.releaseIndex ?? -1,
      h.token ?? -1,
    ]);
  }
  return holdBars;
}
