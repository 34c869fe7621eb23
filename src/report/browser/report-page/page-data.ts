/** What report.html embeds for its script (#report-data), and how its bars' fields are read. */
import type { ReportData } from '../../report-data-types.js';

/** The report's data and a colour per operation kind. */
export interface ReportPageData extends ReportData {
  colors: string[];
}

/** A bar's outcome by its number (bar-words.ts's BAR_OUTCOMES, which the page does not import: bar-words.ts reaches the checkers). */
export const OUTCOME = ['ok', 'fail', 'info', 'pending'];

/** When a bar's operation ends: its completion, or the end of the history for one that never completed. */
export function barEnd(D: ReportPageData, bar: number): number {
  const e = D.bars[bar][4];
  return e < 0 ? D.endMs : e;
}

/** When a hold ends: its release, or the end of the history. */
export function holdEnd(D: ReportPageData, hold: number): number {
  const e = D.holds[hold][2];
  return e < 0 ? D.endMs : e;
}

/**
 * When the history entry `index` of bar `bar` takes effect: the bar's completion when
 * `index` is its completion, else its invocation (a release, an operation that never completed).
 */
export function entryTime(D: ReportPageData, bar: number, index: number): number {
  const b = D.bars[bar];
  return b[6] === index ? b[4] : b[3];
}
