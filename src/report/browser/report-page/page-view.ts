/**
 * What the report page's parts share: the data, the timeline's element and size, what is in
 * view and selected, the latency plot once drawn, and the two ways to change the view.
 */
import type UPlot from 'uplot';
import { STYLE_COLORS, violationStyle } from '../../finding-style.js';
import type { ReportPageData } from './page-data.js';
import type { TimelineIndex } from './timeline-index.js';
import { LANE_H } from './timeline-layout.js';
import type { Range } from './view-range.js';

export interface Page {
  readonly D: ReportPageData;
  readonly index: TimelineIndex;
  readonly svg: SVGSVGElement;
  /** The timeline's height: every lane, always. */
  readonly height: number;
  /** Where the first lane begins, under the axis and the fault rows. */
  readonly lanesTop: number;
  /** The whole run, [0, end]. */
  readonly full: Range;
  /** What the timeline shows. */
  view: Range;
  /** The finding shown (a position in D.violations), -1 for none. */
  current: number;
  /** The bar clicked (its id), -1 for none. */
  selected: number;
  plot: UPlot | null;
  /** Draws the timeline again (the view, the selection or the finding changed). */
  render(): void;
  /** Shows [a, b] (kept inside the run) in the timeline; with `withPlot`, in the latency plot too. */
  setView(a: number, b: number, withPlot?: boolean): void;
}

/** A lane's top. */
export const laneTop = (page: Pick<Page, 'lanesTop'>, lane: number) => page.lanesTop + lane * LANE_H;

/** The colour of the finding shown: its style's, red when there is none. */
export const findingColor = (page: Pick<Page, 'D' | 'current'>) =>
  page.current >= 0 ? STYLE_COLORS[violationStyle(page.D.violations[page.current])] : STYLE_COLORS.counted;
