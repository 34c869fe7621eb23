/**
 * A finding's overlap in the timeline: the two holds that overlap, outlined in the finding's
 * style, the overlap tinted in each holder's lane and framed across the lanes between them;
 * for a rejected stale write, the not-counted overlaps in view that it ended.
 */
import { STYLE_COLORS, type ViolationStyle } from '../../finding-style.js';
import type { Violation } from '../../report-data-types.js';
import { laneTop, type Page } from './page-view.js';
import { el } from './svg.js';
import { HOLD_H, HOLD_Y, LANE_H, type TimelineScale, twoLaneSpan } from './timeline-layout.js';

/** The overlap's tint in each holder's lane. */
const TINT: Record<ViolationStyle, string> = {
  counted: 'rgba(220,38,38,0.14)',
  'not-counted': 'rgba(217,119,6,0.12)',
  'kept-out': 'rgba(21,128,61,0.12)',
};
/** The overlapping holds' fill. */
const HOLD_FILL: Record<ViolationStyle, string> = {
  counted: '#fca5a5',
  'not-counted': '#fde68a',
  'kept-out': '#bbf7d0',
};

/**
 * A rejected stale write is shown with the overlap it ended: the not-counted overlaps in
 * view, framed amber and dashed (their own style), behind the write's green mark.
 */
export function drawEndedOverlaps(page: Page, s: TimelineScale, g: Element): void {
  const { view } = page;
  page.D.violations.forEach((o) => {
    if (o.counted || !o.overlap || !o.holds || o.overlap[1] < view[0] || o.overlap[0] > view[1]) return;
    const span = twoLaneSpan((lane) => laneTop(page, lane), o.holds);
    if (!span) return;
    const [ya, yb] = span;
    const x0 = s.clampX(s.X(o.overlap[0]));
    el(
      'rect',
      {
        x: x0,
        y: ya,
        width: Math.max(2, s.clampX(s.X(o.overlap[1])) - x0),
        height: yb - ya,
        fill: TINT['not-counted'],
        stroke: STYLE_COLORS['not-counted'],
        'stroke-width': 1.2,
        'stroke-dasharray': '5 3',
        class: 'context-overlap',
      },
      g,
    );
  });
}

/** The finding `v`'s overlapping holds and their overlap, when it has them. */
export function drawOverlap(page: Page, s: TimelineScale, v: Violation, style: ViolationStyle, g: Element): void {
  if (!v.overlap || !v.holds) return;
  const C = STYLE_COLORS[style];
  const o0 = s.clampX(s.X(v.overlap[0]));
  const o1 = s.clampX(s.X(v.overlap[1]));
  v.holds.forEach((h) => {
    if (h[0] < 0) return;
    const top = laneTop(page, h[0]);
    el('rect', { x: o0, y: top, width: Math.max(2, o1 - o0), height: LANE_H, fill: TINT[style], class: 'overlap' }, g);
    const x0 = s.clampX(s.X(h[1]));
    const x1 = s.clampX(s.X(h[2] < 0 ? page.D.endMs : h[2]));
    el(
      'rect',
      {
        x: x0,
        y: top + HOLD_Y - 1,
        width: Math.max(2, x1 - x0),
        height: HOLD_H + 2,
        fill: HOLD_FILL[style],
        stroke: C,
        'stroke-width': 1.5,
        'stroke-dasharray': style === 'counted' ? undefined : '4 2',
        class: 'violating-hold',
      },
      g,
    );
  });
  const span = twoLaneSpan((lane) => laneTop(page, lane), v.holds);
  if (!span) return;
  const [ya, yb] = span;
  el(
    'rect',
    {
      x: o0,
      y: ya,
      width: Math.max(2, o1 - o0),
      height: yb - ya,
      fill: 'none',
      stroke: C,
      'stroke-width': 1.5,
      'stroke-dasharray': '5 3',
      class: 'overlap-frame',
    },
    g,
  );
}
