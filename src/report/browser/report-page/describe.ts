/** What the page says about a timeline element, in the tooltip and under the timeline: lines of text. */
import type { Violation } from '../../report-data-types.js';
import { fmtMs, fmtS } from './format.js';
import { entryTime, OUTCOME, type ReportPageData } from './page-data.js';

export function describeBar(D: ReportPageData, id: number): string[] {
  const b = D.bars[id];
  const o = OUTCOME[b[2]];
  const lines = [
    `${D.fs[b[1]]} by process ${D.lanes[b[0]].process}: ${o}${b[8] ? ` (${b[8]})` : ''}`,
    `invoked ${fmtS(b[3])} (op #${b[5]})${b[4] >= 0 ? `, completed ${fmtS(b[4])} (op #${b[6]}), ${fmtMs(b[4] - b[3])}` : ', never completed'}`,
  ];
  if (b[7]) lines.push(`value: ${b[7]}`);
  return lines;
}

export function describeHold(D: ReportPageData, id: number): string[] {
  const h = D.holds[id];
  return [
    `process ${D.lanes[h[0]].process} believes it holds the lock`,
    `from ${fmtS(h[1])} (acquire ok, op #${h[3]}) to ${h[2] < 0 ? 'the end' : fmtS(h[2])}${h[4] >= 0 ? ` (release invoked, op #${h[4]})` : ''}`,
    h[5] >= 0 ? `fencing token ${h[5]}` : 'no fencing token',
  ];
}

export function describeFault(D: ReportPageData, id: number): string[] {
  const f = D.faults[id];
  return [`fault: ${f.label}`, `${fmtS(f.startMs)} – ${f.endMs < 0 ? 'not healed in this history' : fmtS(f.endMs)}`];
}

/** Badge `i` of a finding: what it marks, then that operation's bar. */
export function describeMark(D: ReportPageData, byIndex: Record<number, number>, v: Violation, i: number): string[] {
  const m = v.marks[i];
  return [`${i + 1}: ${m.label} (op #${m.index})`].concat(describeBar(D, byIndex[m.index]));
}

export const describeCluster = (n: string | null) => [
  `${n} operations, too close to tell apart here`,
  'drag across them to zoom in',
];

export const describeShortHolds = (n: string | null) => [`${n} short holds; zoom in to see them`];

/** A line of the lists of marks: what a badge marks and when, or that it is not drawn. */
export function markLine(D: ReportPageData, byIndex: Record<number, number>, m: Violation['marks'][number]): string {
  const bar = byIndex[m.index];
  const at = bar === undefined ? '' : ` at ${fmtS(entryTime(D, bar, m.index))}`;
  return `${m.label} (op #${m.index})${at}${bar === undefined ? ' (not drawn)' : ''}`;
}
