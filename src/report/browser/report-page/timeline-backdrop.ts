/**
 * What the timeline draws under its operations: the patterns and markers it fills with, a
 * band and a label per lane, and the time axis with its grid.
 */

import { niceStep, tickDecimals } from './format.js';
import { findingColor, laneTop, type Page } from './page-view.js';
import { el } from './svg.js';
import { AXIS_H, LABEL_W, LANE_H, type TimelineScale } from './timeline-layout.js';

/** Hatches per operation kind (an unknown outcome) and for the lane a fault hit, the plot's clip, the arrowhead. */
export function drawDefs(page: Page, s: TimelineScale): void {
  const defs = el('defs', {}, page.svg);
  page.D.colors.forEach((c, i) => {
    const p = el(
      'pattern',
      { id: `hatch-${i}`, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      defs,
    );
    el('rect', { width: 6, height: 6, fill: '#ffffff' }, p);
    el('rect', { width: 3, height: 6, fill: c }, p);
  });
  const fp = el(
    'pattern',
    { id: 'fault-hatch', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(-45)' },
    defs,
  );
  el('rect', { width: 2, height: 8, fill: 'rgba(71,85,105,0.22)' }, fp);
  const clip = el('clipPath', { id: 'plot-clip' }, defs);
  el('rect', { x: LABEL_W, y: 0, width: s.plotW, height: page.height }, clip);
  const marker = el(
    'marker',
    {
      id: 'arrow',
      viewBox: '0 0 10 10',
      refX: 9,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      orient: 'auto-start-reverse',
    },
    defs,
  );
  el('path', { d: 'M0,0 L10,5 L0,10 z', fill: findingColor(page) }, marker);
}

/** Each lane's band, striped, and its label. */
export function drawLanes(page: Page, s: TimelineScale): void {
  const lanesG = el('g', { class: 'lanes' }, page.svg);
  page.D.lanes.forEach((lane, i) => {
    const top = laneTop(page, i);
    el('rect', { x: 0, y: top, width: s.width, height: LANE_H, fill: i % 2 ? '#f8fafc' : '#ffffff' }, lanesG);
    el('text', { x: LABEL_W - 8, y: top + 16, 'text-anchor': 'end', class: 'lane-label' }, lanesG, lane.label);
  });
}

/** The axis in seconds above the plot, its grid lines in `plotG`, a tick about every 110 px. */
export function drawAxis(page: Page, s: TimelineScale, plotG: Element): void {
  const step = niceStep((s.t1 - s.t0) / Math.max(2, s.plotW / 110));
  const decimals = tickDecimals(step);
  const axisG = el('g', { class: 'axis' }, page.svg);
  el('line', { x1: LABEL_W, x2: LABEL_W + s.plotW, y1: AXIS_H - 0.5, y2: AXIS_H - 0.5, stroke: '#cbd5e1' }, axisG);
  el('text', { x: LABEL_W - 24, y: AXIS_H - 9, 'text-anchor': 'end', class: 'axis-unit' }, axisG, 'seconds');
  for (let t = Math.ceil(s.t0 / step) * step; t <= s.t1; t += step) {
    const x = s.X(t);
    el('line', { x1: x, x2: x, y1: AXIS_H - 5, y2: page.height, stroke: '#e2e8f0' }, plotG);
    el('text', { x: x, y: AXIS_H - 9, 'text-anchor': 'middle', class: 'tick' }, axisG, (t / 1000).toFixed(decimals));
  }
}
