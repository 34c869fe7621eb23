/**
 * The findings report.html shows: each checker's violations placed on the timeline (lanes,
 * times, the range to show, the faults in effect), a rejected write widened to the fault
 * that made it stale, and the one the page opens on.
 */
import type { CheckResult } from '../../checkers/result.js';
import { type HeldSpan, violationsOf } from '../../checkers/violations.js';
import { wordsOf } from '../../checkers/words-registry.js';
import type { Op } from '../history/op.js';
import type { Fault, Violation } from './report-data-types.js';
import { ms } from './report-time.js';

/**
 * The violations the checkers name (each decodes its own stored result), placed on the
 * timeline: lanes, times in ms, the range to show, and for an overlap the faults in effect
 * then. Counted checkers' first; a result found invalid that names none in structure is
 * shown by its summary.
 */
export function placedViolations(
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
    const own = wordsOf(r).ownWords ? { ownWords: true as const } : {};
    for (const v of found) {
      const placed: Violation = {
        checker: v.checker ?? r.checker,
        counted: !v.shownOnly && r.counts !== false,
        ...own,
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
        ...own,
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
export function widenTurnedAway(
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
