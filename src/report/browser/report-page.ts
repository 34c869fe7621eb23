/**
 * report.html's own script: the entry of a bundle (page-bundle.ts) that the page inlines and
 * then calls `reportPage` with its data (#report-data); it reaches the page's DOM and uPlot
 * (inlined before it). Its parts, one concept each, are in report-page/:
 *
 * - the timeline (timeline.ts, SVG, hand-drawn): a lane per client process, each operation a
 *   bar from invocation to completion, lock holds under them, fault windows shaded across all
 *   lanes, the finding shown outlined (#violation): in red only when it counts, a shown-only
 *   overlap amber and dashed, a stale write the store turned away green. Only what is in view
 *   is drawn, and operations narrower than a few pixels merge into one grey bar, so a
 *   100k-op history stays light;
 * - the latency plot (latency-plot.ts, uPlot), sharing the timeline's time range;
 * - the tooltip and a click's details, zooming and panning, the list of findings.
 *
 * When done it sets data-ready="true" on <body>.
 */

import { showFirstFinding, wireFindings } from './report-page/findings.js';
import { latencyPlot } from './report-page/latency-plot.js';
import type { ReportPageData } from './report-page/page-data.js';
import type { Page } from './report-page/page-view.js';
import { renderTimeline } from './report-page/timeline.js';
import { indexTimeline } from './report-page/timeline-index.js';
import { timelineLayout } from './report-page/timeline-layout.js';
import { wireZoom } from './report-page/timeline-zoom.js';
import { type Drag, wireTooltip } from './report-page/tooltip.js';
import { clampView } from './report-page/view-range.js';
import { followWindowSize } from './report-page/window-size.js';

export function reportPage(D: ReportPageData): void {
  const svg = document.querySelector<SVGSVGElement>('#timeline')!;
  const { lanesTop, height } = timelineLayout(D);
  svg.setAttribute('height', String(height));
  const full: [number, number] = [0, Math.max(D.endMs, 1)];
  const page: Page = {
    D,
    index: indexTimeline(D),
    svg,
    height,
    lanesTop,
    full,
    // Start: the finding shown in view; else the whole run.
    view: D.focus >= 0 ? [D.violations[D.focus].view[0], D.violations[D.focus].view[1]] : [full[0], full[1]],
    current: D.focus,
    selected: -1,
    plot: null,
    render: () => renderTimeline(page),
    setView(a, b, withPlot) {
      page.view = clampView(a, b, full);
      page.render();
      if (withPlot && page.plot) page.plot.setScale('x', { min: page.view[0], max: page.view[1] });
    },
  };
  const drag: Drag = { start: null, moved: false };
  wireTooltip(page, drag);
  wireZoom(page, drag);
  wireFindings(page);
  followWindowSize(page);
  page.render();
  page.plot = latencyPlot(page);
  if (page.plot) page.plot.setScale('x', { min: full[0], max: full[1] });
  showFirstFinding(page);
  document.body.setAttribute('data-ready', 'true');
}
