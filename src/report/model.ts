/**
 * The report's data, prepared from a history and its checker results: what the page's
 * script draws. Pure (no I/O), JSON-serialisable, and bounded: a large history keeps at
 * most `maxBars` operation bars and `maxLanes` lanes and `maxLatencyPoints` latency points,
 * and says in `notes` what it left out.
 *
 * Times are milliseconds since the test's origin, rounded to microseconds. Op indices are
 * the stored history's (history.jsonl line = index + 1).
 */
import { faultWindows } from '../../checkers/fault-windows.js';
import { holdsOf } from '../../checkers/mutual-exclusion.js';
import { decodeGrant, decodeWrite } from '../../checkers/op-values.js';
import type { CheckResult } from '../../checkers/result.js';
import { type HeldSpan, type ViolationKind, violationsOf } from '../../checkers/violations.js';
import type { Op } from '../history/op.js';
import { type LenientOp, type LenientOutcome, pairLeniently } from '../history/pairs.js';
import { faultLabel } from '../nemesis/label.js';
import { plural } from '../util/plural.js';

/** A bar's outcome, as its index in this list. */
export const BAR_OUTCOMES: readonly LenientOutcome[] = ['ok', 'fail', 'info', 'pending'];

/**
 * One operation: [lane, f (index into `fs`), outcome (index into BAR_OUTCOMES), startMs,
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

/** The usual order of the lock-set workload's operation kinds; others follow by name. */
const KIND_ORDER = ['acquire', 'read', 'write', 'release'];

const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;

/** A value in at most ~80 characters: long sets shortened to their ends and length. */
export function brief(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) {
    if (value.length === 2 && Array.isArray(value[0]) && !Array.isArray(value[1])) {
      return `[${brief(value[0])}, ${brief(value[1])}]`;
    }
    if (value.length > 6 && value.every((v) => typeof v === 'number' || typeof v === 'string')) {
      const ends = (xs: unknown[]) => xs.map((v) => JSON.stringify(v)).join(',');
      return `[${ends(value.slice(0, 3))},…,${ends(value.slice(-2))}] (${value.length})`;
    }
  }
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/**
 * The words on a timeline bar: what the operation did, not its raw value. An acquire's
 * token, the element a write adds (and its token), the size of a set read; else brief().
 */
export function barLabel(f: string, value: unknown): string {
  if (f === 'acquire' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { token } = decodeGrant(value);
    return token !== undefined ? `token ${token}` : '';
  }
  if (f === 'write' && Array.isArray(value)) {
    const { set, token } = decodeWrite(value);
    const added = set.at(-1);
    if (typeof added === 'number') return `+${added}${token !== undefined ? ` (token ${token})` : ''}`;
  }
  if (f === 'read') {
    if (value === null) return 'empty';
    if (Array.isArray(value)) return `${plural(value.length, 'element')}`;
  }
  if (f === 'release') return ''; // its value is the grant: in the details, not on the bar
  return brief(value);
}

function kindOrder(fs: Iterable<string>): string[] {
  return [...new Set(fs)].sort((a, b) => {
    const ia = KIND_ORDER.indexOf(a);
    const ib = KIND_ORDER.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/**
 * The violations the checkers name (each decodes its own stored result), placed on the
 * timeline: lanes, times in ms, the range to show, and for an overlap the faults in effect
 * then. Counted checkers' first; a result found invalid that names none in structure is
 * shown by its summary.
 */
function placedViolations(
  results: readonly CheckResult[],
  timeOf: (index: number) => number | undefined,
  laneOf: (process: number) => number,
  endMs: number,
  faults: readonly Fault[] = [],
): Violation[] {
  const out: Violation[] = [];
  const around = (times: (number | undefined)[]): [number, number] => {
    const ts = times.filter((t): t is number => t !== undefined && t >= 0);
    if (ts.length === 0) return [0, endMs];
    const lo = Math.min(...ts);
    const hi = Math.max(...ts);
    const pad = Math.max((hi - lo) * 0.25, 50);
    return [Math.max(0, lo - pad), Math.min(Math.max(endMs, hi), hi + pad)];
  };
  const endOf = (h: HeldSpan) => (Number.isFinite(h.end) ? ms(h.end) : -1);
  const until = (h: HeldSpan) => (Number.isFinite(h.end) ? ms(h.end) : endMs);
  /** The faults in effect during [from, to] ms, in words. */
  const inEffect = (from: number, to: number) =>
    faults
      .filter((f) => f.startMs <= to && (f.endMs < 0 ? endMs : f.endMs) >= from)
      .map(
        (f) =>
          `${f.label} (${(f.startMs / 1e3).toFixed(3)} s–${f.endMs < 0 ? 'end' : `${(f.endMs / 1e3).toFixed(3)} s`})`,
      );
  const ordered = [...results].sort((a, b) => Number(b.counts !== false) - Number(a.counts !== false));
  for (const r of ordered) {
    const found = violationsOf(r);
    for (const v of found) {
      const placed: Violation = {
        checker: v.checker ?? r.checker,
        counted: !v.shownOnly && r.counts !== false,
        kind: v.kind,
        words: v.words,
        marks: v.marks,
        view: around(v.marks.map((m) => timeOf(m.index))),
      };
      if (v.holds) {
        const [a, b] = v.holds;
        const overlap: [number, number] = [Math.max(ms(a.start), ms(b.start)), Math.min(until(a), until(b))];
        const during = inEffect(overlap[0], overlap[1]);
        if (during.length) placed.words += `; faults in effect: ${during.join(', ')}`;
        placed.holds = [
          [laneOf(a.process), ms(a.start), endOf(a)],
          [laneOf(b.process), ms(b.start), endOf(b)],
        ];
        placed.processes = [a.process, b.process];
        placed.overlap = overlap;
        placed.view = around([ms(a.start), ms(b.start), until(a), until(b)]);
      }
      out.push(placed);
    }
    if (r.valid === false && !found.some((v) => !v.shownOnly)) {
      out.push({
        checker: r.checker,
        counted: r.counts !== false,
        kind: 'other',
        words: r.summary,
        marks: [],
        view: [0, endMs],
      });
    }
  }
  // Every kind shows near the top: the first of each (checker, kind) before the rest, so a
  // lost update is not buried under fifty overlaps; turned-away writes come last.
  const seen = new Set<string>();
  const firsts: Violation[] = [];
  const rest: Violation[] = [];
  for (const v of out) {
    const key = `${v.checker}/${v.kind}`;
    if (v.kind !== 'turned-away' && !seen.has(key)) {
      seen.add(key);
      firsts.push(v);
    } else rest.push(v);
  }
  rest.sort((a, b) => Number(a.kind === 'turned-away') - Number(b.kind === 'turned-away'));
  return [...firsts, ...rest];
}

/**
 * A stale write the store turned away is shown with what made it stale: its view starts
 * at the last fault that hit its writer (the pause it outlived its lease in), not at the
 * few milliseconds of the write alone.
 */
function widenTurnedAway(
  violations: Violation[],
  history: readonly Op[],
  faults: readonly Fault[],
  timeOf: (index: number) => number | undefined,
  endMs: number,
): void {
  const away = violations.filter((v) => v.kind === 'turned-away' && v.marks.length > 0);
  if (away.length === 0 || faults.length === 0) return;
  const wanted = new Set(away.map((v) => (v.marks[0] as { index: number }).index));
  const processOf = new Map<number, number>();
  for (const op of history) if (wanted.has(op.index) && op.process !== 'nemesis') processOf.set(op.index, op.process);
  for (const v of away) {
    const index = (v.marks[0] as { index: number }).index;
    const at = timeOf(index);
    const p = processOf.get(index);
    if (at === undefined || p === undefined) continue;
    const hit = faults.filter((f) => f.process === p && f.startMs <= at).at(-1);
    if (!hit) continue;
    const pad = Math.max((at - hit.startMs) * 0.15, 50);
    v.view = [Math.max(0, hit.startMs - pad), Math.min(Math.max(endMs, at), at + pad)];
  }
}

/**
 * The violation a page opens on: the first counted one; with none counted, the first
 * stale write the store turned away (what made a fenced run valid); else the first shown.
 */
export function focusOf(violations: readonly Violation[]): number {
  const drawn = (v: Violation) => v.marks.length > 0 || v.kind === 'other';
  const counted = violations.findIndex((v) => v.counted && drawn(v));
  if (counted >= 0) return counted;
  const keptOut = violations.findIndex((v) => v.kind === 'turned-away' && drawn(v));
  return keptOut >= 0 ? keptOut : violations.findIndex(drawn);
}

/**
 * Each op's time in ms by its index (undefined: no such op); the last op wins when indices
 * repeat. An array when the indices are about 0..n (a run's always are), else a map.
 */
function timesByIndex(history: readonly Op[]): (index: number) => number | undefined {
  let max = -1;
  for (const op of history) if (op.index > max) max = op.index;
  if (max < 2 * history.length + 1024) {
    const times = new Float64Array(max + 1).fill(Number.NaN);
    for (const op of history) times[op.index] = ms(op.time);
    return (i) => {
      const t = Number.isInteger(i) && i >= 0 && i <= max ? times[i] : Number.NaN;
      return Number.isNaN(t) ? undefined : t;
    };
  }
  const times = new Map<number, number>();
  for (const op of history) times.set(op.index, ms(op.time));
  return (i) => times.get(i);
}

export function prepareReport(
  history: readonly Op[],
  results: readonly CheckResult[],
  options: PrepareOptions = {},
): ReportData {
  const limits = { ...LIMITS, ...options };
  const notes: string[] = [];
  const endNs = history.reduce((m, op) => Math.max(m, op.time), 0);
  const endMs = ms(endNs);
  const pairs: readonly LenientOp[] = pairLeniently(history);
  const timeOf = timesByIndex(history);

  // Lanes: one per client process, by number; past the cap, the processes in violations
  // and then the busiest.
  const opsPerProcess = new Map<number, number>();
  for (const p of pairs)
    opsPerProcess.set(p.invoke.process as number, (opsPerProcess.get(p.invoke.process as number) ?? 0) + 1);
  let processes = [...opsPerProcess.keys()].sort((a, b) => a - b);
  const allProcesses = processes.length;
  if (processes.length > limits.maxLanes) {
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
      if (wanted.size >= limits.maxLanes) break;
      wanted.add(p);
    }
    processes = [...wanted].slice(0, limits.maxLanes).sort((a, b) => a - b);
    notes.push(
      `${allProcesses} client processes: the timeline shows ${processes.length} lanes (those in the violations shown, then the busiest); the latency plot has every process.`,
    );
  }
  const laneIndex = new Map(processes.map((p, i) => [p, i]));
  const laneOf = (p: number) => laneIndex.get(p) ?? -1;
  const lanes: Lane[] = processes.map((p) => ({ process: p, label: `process ${p}`, ops: opsPerProcess.get(p) ?? 0 }));

  const rowEnds: number[] = [];
  const faults: Fault[] = faultWindows(history).map((w) => {
    const target = (w.value as { process?: unknown } | undefined)?.process;
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
      lane: typeof target === 'number' ? laneOf(target) : -1,
    };
    if (typeof target === 'number') fault.process = target;
    return fault;
  });
  const violations = placedViolations(results, timeOf, laneOf, endMs, faults);
  widenTurnedAway(violations, history, faults, timeOf, endMs);
  const marked = new Set(violations.flatMap((v) => v.marks.map((m) => m.index)));

  // Operation bars, bounded: past maxBars, every op that a violation names, ended info or
  // never ended is kept, and every k-th other one.
  const kinds = new Set<string>();
  for (const p of pairs) kinds.add(p.invoke.f);
  const fs = kindOrder(kinds);
  const fIndex = new Map(fs.map((f, i) => [f, i]));
  const visible =
    processes.length === allProcesses ? pairs : pairs.filter((p) => laneIndex.has(p.invoke.process as number));
  let chosen = visible;
  if (visible.length > limits.maxBars) {
    const isPriority = (p: LenientOp) =>
      marked.has(p.invoke.index) ||
      (p.completion !== undefined && marked.has(p.completion.index)) ||
      p.outcome === 'info' ||
      p.outcome === 'pending';
    // Marks, not sets and copies of a million operations: the first maxBars/2 priority ones,
    // then every stride-th of the rest.
    const keep = new Uint8Array(visible.length);
    let priority = 0;
    for (let i = 0; i < visible.length && priority < Math.floor(limits.maxBars / 2); i++) {
      if (isPriority(visible[i] as LenientOp)) {
        keep[i] = 1;
        priority++;
      }
    }
    const rest = visible.length - priority;
    const stride = Math.ceil(rest / Math.max(1, limits.maxBars - priority));
    for (let i = 0, r = 0; i < visible.length; i++) {
      if (keep[i] === 1) continue;
      if (r % stride === 0) keep[i] = 1;
      r++;
    }
    chosen = visible.filter((_, i) => keep[i] === 1);
    notes.push(
      `${visible.length.toLocaleString('en-US')} operations: the timeline draws ${chosen.length.toLocaleString('en-US')} of them: every one a violation names, every info and unfinished one, and every ${stride}${stride === 2 ? 'nd' : stride === 3 ? 'rd' : 'th'} other one. history.jsonl has them all.`,
    );
  }
  const bars: Bar[] = chosen.map((p) => {
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
  });

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

  const latency = latencyData(pairs, fs, limits.maxLatencyPoints, endMs);
  if (latency.downsampled) notes.push(latency.downsampled);

  return {
    endMs,
    fs,
    lanes,
    bars,
    holds: holdBars,
    faults,
    latency,
    violations,
    focus: focusOf(violations),
    notes,
    stats: { ops: history.length, operations: pairs.length, shownOperations: bars.length, processes: allProcesses },
  };
}

/**
 * Latency (completion − invocation) of every completed client operation at its invocation
 * time, one series per kind. Past `maxPoints`, each kind keeps its slowest operation per
 * time bucket: the spikes are what a reader looks for. `kinds`: the operation kinds in
 * report order (as kindOrder gives them), one series each.
 */
export function latencyData(
  pairs: readonly LenientOp[],
  kinds: readonly string[],
  maxPoints: number,
  endMs: number,
): LatencyData {
  const kindIndex = new Map(kinds.map((k, i) => [k, i]));
  /** Each completed operation of a known kind: its kind, invocation time and latency, in ms. */
  const each = (visit: (k: number, x: number, y: number) => void) => {
    for (const p of pairs) {
      if (!p.completion) continue;
      const k = kindIndex.get(p.invoke.f);
      if (k === undefined) continue;
      const lat = Math.max((p.completion.time - p.invoke.time) / 1e6, 0.001);
      visit(k, ms(p.invoke.time), Math.round(lat * 1000) / 1000);
    }
  };
  let total = 0;
  each(() => total++);
  let downsampled: string | undefined;
  let series: [number, number][][];
  if (total > maxPoints && kinds.length > 0) {
    // Bucketed as the points come: a million points are never all made.
    const buckets = Math.max(1, Math.floor(maxPoints / kinds.length));
    const width = Math.max(endMs, 1) / buckets;
    const slowest = kinds.map(() => new Map<number, [number, number]>());
    each((k, x, y) => {
      const b = Math.min(buckets - 1, Math.floor(x / width));
      const perBucket = slowest[k] as Map<number, [number, number]>;
      const cur = perBucket.get(b);
      if (!cur || y > cur[1]) perBucket.set(b, [x, y]);
    });
    series = slowest.map((perBucket) => [...perBucket.values()]);
    const bucketMs = width >= 10 ? Math.round(width) : Math.round(width * 100) / 100;
    downsampled = `${total.toLocaleString('en-US')} latency points: the plot shows the slowest operation of each kind per ${bucketMs} ms.`;
  } else {
    series = kinds.map(() => []);
    each((k, x, y) => (series[k] as [number, number][]).push([x, y]));
  }
  const rows: [number, number, number][] = [];
  series.forEach((points, k) => {
    for (const [x, y] of points) rows.push([x, k, y]);
  });
  rows.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const x = rows.map((r) => r[0]);
  const y = kinds.map((_, k) => rows.map((r) => (r[1] === k ? r[2] : null)));
  return downsampled ? { kinds: [...kinds], x, y, downsampled } : { kinds: [...kinds], x, y };
}
