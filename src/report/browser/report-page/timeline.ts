/**
 * The timeline (SVG, hand-drawn), drawn anew for each view: a lane per client process, each
 * operation a bar from invocation to completion, lock holds under them, fault windows shaded
 * across all lanes, the finding shown outlined. Only what is in view is drawn.
 */
import { fmtS } from './format.js';
import type { Page } from './page-view.js';
import { el } from './svg.js';
import { drawAxis, drawDefs, drawLanes } from './timeline-backdrop.js';
import { drawFaults } from './timeline-faults.js';
import { drawFinding } from './timeline-finding.js';
import { timelineScale } from './timeline-layout.js';
import { drawOperations } from './timeline-operations.js';

/** The toolbar's words for what is in view. */
export const rangeText = (view: readonly [number, number], full: readonly [number, number]) =>
  `${fmtS(view[0])} – ${fmtS(view[1])} of ${fmtS(full[1])}`;

export function renderTimeline(page: Page): void {
  const { svg } = page;
  const s = timelineScale(svg.clientWidth, page.view);
  svg.setAttribute('viewBox', `0 0 ${s.width} ${page.height}`);
  while (svg.lastChild) svg.removeChild(svg.lastChild);
  drawDefs(page, s);
  drawLanes(page, s);
  const plotG = el('g', { 'clip-path': 'url(#plot-clip)' }, svg);
  drawAxis(page, s, plotG);
  drawFaults(page, s, plotG);
  drawOperations(page, s, plotG);
  drawFinding(page, s, plotG);
  const range = document.getElementById('view-range');
  if (range) range.textContent = rangeText(page.view, page.full);
}
