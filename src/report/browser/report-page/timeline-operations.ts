/**
 * The operations in the timeline, lane by lane: lock holds as thin amber bars under the
 * operations, each operation a bar from invocation to completion styled by its outcome, and
 * runs of operations too narrow to tell apart as one grey bar (level-of-detail.ts).
 */
import { levelOfDetail } from './level-of-detail.js';
import { barEnd, holdEnd, OUTCOME, type ReportPageData } from './page-data.js';
import { laneTop, type Page } from './page-view.js';
import { type Attrs, el } from './svg.js';
import { BAR_H, BAR_Y, HOLD_H, HOLD_Y, type TimelineScale } from './timeline-layout.js';

/** A bar's fill and stroke by outcome: ok solid, fail faint and dashed, info hatched, pending hatched and dashed. */
export function outcomeStyle(outcome: number, color: string, kind: number): Attrs {
  if (outcome === 0) return { fill: color };
  if (outcome === 1) return { fill: color, 'fill-opacity': 0.22, stroke: color, 'stroke-dasharray': '3 2' };
  const attrs: Attrs = { fill: `url(#hatch-${kind})`, stroke: color };
  if (outcome === 3) {
    attrs['stroke-dasharray'] = '4 3';
    attrs['fill-opacity'] = 0.6;
  }
  return attrs;
}

/** The text inside a bar `width` px wide: its kind, outcome unless ok, and label, cut with an ellipsis. */
export function barText(D: ReportPageData, bar: number, width: number): string {
  const b = D.bars[bar];
  const text = D.fs[b[1]] + (OUTCOME[b[2]] === 'ok' ? '' : ` ${OUTCOME[b[2]]}`) + (b[9] ? ` ${b[9]}` : '');
  const n = Math.floor((width - 6) / 6.1);
  return text.length > n ? `${text.slice(0, Math.max(1, n - 1))}…` : text;
}

function drawHolds(page: Page, s: TimelineScale, lane: number, holdG: Element): void {
  const top = laneTop(page, lane);
  const y = top + HOLD_Y;
  levelOfDetail(
    page.index.laneHolds[lane],
    (i) => page.D.holds[i][1],
    (i) => holdEnd(page.D, i),
    { t0: s.t0, t1: s.t1, x: (t) => s.clampX(s.X(t)) },
    (id, x0, x1) => {
      el('rect', { x: x0, y, width: Math.max(1, x1 - x0), height: HOLD_H, rx: 1, class: 'hold', 'data-h': id }, holdG);
    },
    (ids, x0, x1) => {
      el(
        'rect',
        {
          x: x0,
          y,
          width: Math.max(1, x1 - x0),
          height: HOLD_H,
          class: 'hold',
          'data-hn': ids.length,
          'data-h': ids[0],
        },
        holdG,
      );
    },
  );
}

function drawBar(page: Page, id: number, x0: number, x1: number, top: number, barG: Element): void {
  const b = page.D.bars[id];
  const o = b[2];
  const w = Math.max(1, x1 - x0);
  const attrs: Attrs = {
    x: x0,
    y: top + BAR_Y,
    width: w,
    height: BAR_H,
    rx: w > 4 ? 2 : 0,
    class: `op o-${OUTCOME[o]}`,
    'data-i': id,
    'data-op': b[5],
    ...outcomeStyle(o, page.D.colors[b[1]], b[1]),
  };
  if (id === page.selected) {
    attrs.stroke = '#0f172a';
    attrs['stroke-width'] = 2;
  }
  el('rect', attrs, barG);
  if (w > 46) {
    el(
      'text',
      { x: x0 + 3, y: top + BAR_Y + 10.5, class: o === 0 ? 'bar-label' : 'bar-label dark', 'data-i': id },
      barG,
      barText(page.D, id, w),
    );
  }
}

function drawBars(page: Page, s: TimelineScale, lane: number, barG: Element): void {
  const top = laneTop(page, lane);
  levelOfDetail(
    page.index.laneBars[lane],
    (i) => page.D.bars[i][3],
    (i) => barEnd(page.D, i),
    { t0: s.t0, t1: s.t1, x: (t) => s.clampX(s.X(t)) },
    (id, x0, x1) => drawBar(page, id, x0, x1, top, barG),
    (ids, x0, x1) => {
      el(
        'rect',
        {
          x: x0,
          y: top + BAR_Y,
          width: Math.max(1, x1 - x0),
          height: BAR_H,
          class: 'cluster',
          'data-n': ids.length,
          'data-first': ids[0],
          'data-last': ids[ids.length - 1],
        },
        barG,
      );
    },
  );
}

/** Every lane's holds and bars in view, into `plotG`. */
export function drawOperations(page: Page, s: TimelineScale, plotG: Element): void {
  const holdG = el('g', { class: 'holds' }, plotG);
  const barG = el('g', { class: 'bars' }, plotG);
  page.D.lanes.forEach((_lane, li) => {
    drawHolds(page, s, li, holdG);
    drawBars(page, s, li, barG);
  });
}
