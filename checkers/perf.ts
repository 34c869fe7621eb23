/**
 * perf: how well the lock service served its clients, inside and outside fault windows.
 * Jepsen's perf checker draws this; here it is numbers for results.json and the summary
 * (report.html plots the latencies). It is never a verdict on safety: the runner shows it
 * and does not count it, and it is valid whenever there was something to measure.
 *
 * Per kind of client operation (acquire, release, read, write), and per phase:
 *
 * - `during`: operations invoked while some fault was in effect. A fault is in effect from
 *   its start's ok to its stop's completion, or to the end of the history if never healed
 *   (faultWindows);
 * - `outside`: the others; `all`: both.
 *
 * it gives:
 *
 * - attempts and their outcomes: ok, fail (certainly not done) and info (unknown: timed
 *   out). An invocation that never completed counts as info: the client never learned;
 * - availability: the share of attempts that were ok;
 * - latency of the ok operations, in ms: p50, p95, p99 (nearest rank) and max. Failed and
 *   timed-out operations are left out: their latency is mostly the timeout's;
 * - throughput: ok operations per second of the phase's time.
 *
 * The phase times split the clients' span (first invocation to last completion) by the
 * union of the fault windows within it.
 */

import type { Op } from '../src/history/op.js';
import { pairLeniently } from '../src/history/pairs.js';
import type { RunChecker } from './checker.js';
import { faultWindows } from './fault-windows.js';
import type { CheckResult } from './result.js';

/** The latency of a phase's ok operations, in ms. */
export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface PhaseStats {
  attempts: number;
  ok: number;
  fail: number;
  info: number;
  /** ok / attempts; null without attempts. */
  availability: number | null;
  /** Of the ok operations; null without any. */
  latencyMs: LatencySummary | null;
  /** ok operations per second of the phase; null when the phase took no time. */
  perSecond: number | null;
}

export interface KindStats {
  all: PhaseStats;
  outside: PhaseStats;
  during: PhaseStats;
}

// A type, not an interface: results.json details are a plain record.
export type PerfDetails = {
  /** Seconds from the first client invocation to the last client completion. */
  spanS: number;
  /** Of those, seconds with at least one fault in effect. */
  faultS: number;
  kinds: Record<string, KindStats>;
};

type Phase = 'outside' | 'during';

/** Nearest-rank percentile of ascending `sorted` (not empty). */
function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Intervals [start, end) merged into disjoint ones, ascending. */
function union(intervals: [number, number][]): [number, number][] {
  const merged: [number, number][] = [];
  for (const [s, e] of [...intervals].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

/** One phase's operations of one kind, as counted: ok latencies and the other outcomes. */
interface Tally {
  latenciesNs: number[];
  attempts: number;
  fail: number;
  info: number;
}

function stats(tally: Tally, phaseNs: number): PhaseStats {
  const ok = tally.latenciesNs.length;
  // A typed array sorts numerically in native code: a comparator call per comparison costs
  // seconds on a million operations.
  const sorted = Float64Array.from(tally.latenciesNs, (ns) => ns / 1e6).sort();
  return {
    attempts: tally.attempts,
    ok,
    fail: tally.fail,
    info: tally.info,
    availability: tally.attempts > 0 ? round(ok / tally.attempts, 4) : null,
    latencyMs:
      ok > 0
        ? {
            p50: round(percentile(sorted, 50), 3),
            p95: round(percentile(sorted, 95), 3),
            p99: round(percentile(sorted, 99), 3),
            max: round(sorted[ok - 1] as number, 3),
          }
        : null,
    perSecond: phaseNs > 0 ? round(ok / (phaseNs / 1e9), 2) : null,
  };
}

export function checkPerf(history: readonly Op[]): CheckResult & { details: PerfDetails } {
  const ops = pairLeniently(history);
  if (ops.length === 0) {
    return {
      checker: 'perf',
      valid: 'unknown',
      summary: 'no client operations to measure',
      details: { spanS: 0, faultS: 0, kinds: {} },
    };
  }

  // The clients' span, and the fault windows' union within it.
  // (A loop, not Math.min(...): a long history has more operations than a call has arguments.)
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const o of ops) {
    first = Math.min(first, o.invoke.time);
    last = Math.max(last, (o.completion ?? o.invoke).time);
  }
  const windows = faultWindows(history);
  const faults = union(
    windows
      .map((w): [number, number] => [Math.max(w.start, first), Math.min(w.end ?? last, last)])
      .filter(([s, e]) => e > s),
  );
  const faultNs = faults.reduce((n, [s, e]) => n + (e - s), 0);
  const spanNs = last - first;
  const phaseNs: Record<Phase | 'all', number> = { all: spanNs, during: faultNs, outside: spanNs - faultNs };
  const inFault = (t: number) => windows.some((w) => t >= w.start && t < (w.end ?? Number.POSITIVE_INFINITY));

  // Per kind and phase: ok latencies and the other outcomes.
  const tallies = new Map<string, Record<Phase, Tally>>();
  const empty = (): Tally => ({ latenciesNs: [], attempts: 0, fail: 0, info: 0 });
  for (const op of ops) {
    let byPhase = tallies.get(op.f);
    if (!byPhase) {
      byPhase = { outside: empty(), during: empty() };
      tallies.set(op.f, byPhase);
    }
    const t = byPhase[inFault(op.invoke.time) ? 'during' : 'outside'];
    t.attempts++;
    if (op.outcome === 'ok') t.latenciesNs.push((op.completion as Op).time - op.invoke.time);
    else if (op.outcome === 'fail') t.fail++;
    else t.info++;
  }

  const kinds: Record<string, KindStats> = {};
  for (const [f, { outside, during }] of tallies) {
    const all: Tally = {
      latenciesNs: [...outside.latenciesNs, ...during.latenciesNs],
      attempts: outside.attempts + during.attempts,
      fail: outside.fail + during.fail,
      info: outside.info + during.info,
    };
    kinds[f] = {
      all: stats(all, phaseNs.all),
      outside: stats(outside, phaseNs.outside),
      during: stats(during, phaseNs.during),
    };
  }
  const details: PerfDetails = { spanS: round(spanNs / 1e9, 3), faultS: round(faultNs / 1e9, 3), kinds };
  return { checker: 'perf', valid: true, summary: summarize(details), details };
}

/** The perf checker's figures among a run's results; undefined for runs stored before perf. */
export function perfDetailsOf(results: readonly CheckResult[]): PerfDetails | undefined {
  const details = results.find((r) => r.checker === 'perf')?.details as PerfDetails | undefined;
  return details?.kinds ? details : undefined;
}

/** A share as a percentage, to a tenth: 33.3%; a dash when there was nothing to share. */
export const formatPercent = (x: number | null) => (x === null ? '–' : `${round(x * 100, 1)}%`);
/** Milliseconds to a useful precision: 4206, 12.3, 0.34. */
export const formatMs = (x: number) => `${round(x, x >= 100 ? 0 : x >= 1 ? 1 : 2)}`;

/**
 * One line about the lock (acquire) or else the first kind: availability and latency, and
 * how they differ while faults were in effect.
 */
function summarize(d: PerfDetails): string {
  const f = 'acquire' in d.kinds ? 'acquire' : (Object.keys(d.kinds).sort()[0] as string);
  const k = d.kinds[f] as KindStats;
  const latency = k.all.latencyMs
    ? `ok latency p50 ${formatMs(k.all.latencyMs.p50)} ms, p99 ${formatMs(k.all.latencyMs.p99)} ms`
    : 'none ok';
  const rate = k.all.perSecond === null ? '' : `, ${k.all.perSecond}/s`;
  const head = `${f}: ${k.all.attempts} attempts, ${formatPercent(k.all.availability)} ok${rate}, ${latency}`;
  if (d.faultS === 0) return `${head}; no fault in effect`;
  const phase = (name: string, s: PhaseStats) =>
    `${name} ${formatPercent(s.availability)} ok${s.latencyMs ? `, p99 ${formatMs(s.latencyMs.p99)} ms` : ''}`;
  return `${head}; ${phase('outside faults', k.outside)}; ${phase(`during faults (${d.faultS} of ${d.spanS} s)`, k.during)}`;
}

/** How the service served its clients in and out of faults: shown for every run, never a verdict. */
export const perfChecker: RunChecker = {
  name: () => 'perf',
  counts: () => false,
  check: (run) => checkPerf(run.history),
};
