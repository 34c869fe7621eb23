/**
 * The finding shown, drawn over the timeline (#violation, with data-violation, data-kind,
 * data-style and data-ops for tests): its overlap (finding-overlap.ts), a box around each
 * operation it names, an arrow from a lost write to what lost it, and a numbered badge where
 * each named operation takes effect (the numbers are explained in the lists of marks).
 */
import { STYLE_COLORS, violationStyle } from '../../finding-style.js';
import type { Violation } from '../../report-data-types.js';
import { drawEndedOverlaps, drawOverlap } from './finding-overlap.js';
import { barEnd } from './page-data.js';
import { laneTop, type Page } from './page-view.js';
import { el } from './svg.js';
import { BAR_H, BAR_Y, LABEL_W, type TimelineScale } from './timeline-layout.js';

/** A named operation's box: its bar's ends and its lane's top. */
export interface MarkBox {
  x0: number;
  x1: number;
  y: number;
  m: Violation['marks'][number];
}

/** The arrow from the end of box `a` (a lost write) over to the start of box `z`, bending above both. */
export function lostArrowPath(a: MarkBox, z: MarkBox): string {
  const ya = a.y + BAR_Y + BAR_H / 2;
  const yz = z.y + BAR_Y + BAR_H / 2;
  const mid = (a.x1 + z.x0) / 2;
  const bend = Math.min(ya, yz) - 14;
  return `M${a.x1 + 2},${ya} C${mid},${bend} ${mid},${bend} ${z.x0 - 3},${yz}`;
}

/** A badge's x: at the box's end or start, kept 8 px inside the plot. */
export const badgeX = (box: MarkBox, atEnd: boolean, plotW: number) =>
  Math.max(LABEL_W + 8, Math.min(atEnd ? box.x1 : box.x0, LABEL_W + plotW - 8));

/** A box around each named operation that is drawn; returns them in the finding's order. */
function drawMarks(page: Page, s: TimelineScale, v: Violation, g: Element): MarkBox[] {
  const style = violationStyle(v);
  const boxes: MarkBox[] = [];
  v.marks.forEach((m) => {
    const id = page.index.byIndex[m.index];
    if (id === undefined) return;
    const top = laneTop(page, page.D.bars[id][0]);
    const x0 = s.clampX(s.X(page.D.bars[id][3]));
    const x1 = s.clampX(s.X(barEnd(page.D, id)));
    el(
      'rect',
      {
        x: x0 - 2,
        y: top + BAR_Y - 2,
        width: Math.max(4, x1 - x0 + 4),
        height: BAR_H + 4,
        rx: 3,
        fill: 'none',
        stroke: STYLE_COLORS[style],
        'stroke-width': 2.2,
        'stroke-dasharray': style === 'counted' ? undefined : '4 2',
        class: 'mark',
        'data-index': m.index,
      },
      g,
    );
    boxes.push({ x0: x0, x1: x1, y: top, m: m });
  });
  return boxes;
}

/** Numbered badges where each named op takes effect: its completion, or its invocation for a release. */
function drawBadges(page: Page, s: TimelineScale, boxes: readonly MarkBox[], color: string, g: Element): void {
  boxes.forEach((bx, i) => {
    const b = page.D.bars[page.index.byIndex[bx.m.index]];
    const cx = badgeX(bx, b[6] === bx.m.index, s.plotW);
    const cy = bx.y + BAR_Y + BAR_H / 2;
    const badge = el('g', { class: 'badge-mark', 'data-mark': i }, g);
    el('circle', { cx: cx, cy: cy, r: 8, fill: color, stroke: '#fff', 'stroke-width': 1.5 }, badge);
    el('text', { x: cx, y: cy + 3.8, 'text-anchor': 'middle', class: 'badge-num' }, badge, String(i + 1));
  });
}

/** The finding shown (page.current), if any, into `parent`. */
export function drawFinding(page: Page, s: TimelineScale, parent: Element): void {
  if (page.current < 0) return;
  const v = page.D.violations[page.current];
  const style = violationStyle(v);
  const C = STYLE_COLORS[style];
  const g = el(
    'g',
    {
      id: 'violation',
      class: `violation s-${style}`,
      'data-style': style,
      'data-violation': v.checker,
      'data-kind': v.kind,
      'data-counted': v.counted,
      'data-ops': v.marks.map((m) => m.index).join(','),
    },
    parent,
  );
  if (style === 'kept-out') drawEndedOverlaps(page, s, g);
  drawOverlap(page, s, v, style, g);
  const boxes = drawMarks(page, s, v, g);
  if (v.kind === 'lost' && boxes.length === 2) {
    el(
      'path',
      {
        d: lostArrowPath(boxes[0], boxes[1]),
        fill: 'none',
        stroke: C,
        'stroke-width': 1.6,
        'stroke-dasharray': '5 3',
        'marker-end': 'url(#arrow)',
        class: 'lost-arrow',
      },
      g,
    );
  }
  drawBadges(page, s, boxes, C, g);
}
