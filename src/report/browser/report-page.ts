/**
 * report.html's own script: this module, compiled, is inlined into the page, which then
 * calls `reportPage` (page-assets.ts, pageScript); it may import types only, and reaches
 * the page's DOM and uPlot (inlined before it). Given the page's data (#report-data), it
 * draws:
 *
 * - the timeline (SVG, hand-drawn): a lane per client process, each operation a bar from
 *   invocation to completion, lock holds under them, fault windows shaded across all
 *   lanes, the selected finding outlined (#violation, with data-violation, data-kind,
 *   data-style and data-ops for tests): in red only when it counts, a shown-only overlap
 *   amber and dashed, a stale write the store turned away green. Only what is in view is drawn, and operations
 *   narrower than a few pixels merge into one grey bar, so a 100k-op history stays light;
 * - the latency plot (uPlot), sharing the timeline's time range.
 *
 * When done it sets data-ready="true" on <body>.
 */
import type UPlot from 'uplot';
import type { ReportData, Violation } from '../model.js';

/** What report.html embeds for its script: the report's data and a colour per operation kind. */
export interface ReportPageData extends ReportData {
  colors: string[];
}

/** The global uPlot's script defines, in the page (its types come from the package). */
declare const uPlot: typeof UPlot;

type Attrs = Record<string, string | number | boolean | undefined | null>;
/** An interval list drawn with level of detail: ids into bars or holds, and their ends. */
type TimeOf = (id: number) => number;
interface Merged {
  x0: number;
  x1: number;
  ids: number[];
}

export function reportPage(D: ReportPageData): void {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const OUTCOME = ['ok', 'fail', 'info', 'pending'];
  const RED = '#dc2626';
  // How a finding is drawn (html.ts's violationStyle): red only when it counts; a shown-only
  // overlap amber and dashed; a stale write the store turned away green.
  type Style = 'counted' | 'not-counted' | 'kept-out';
  const styleOf = (v: Violation): Style =>
    v.counted ? 'counted' : v.kind === 'turned-away' ? 'kept-out' : 'not-counted';
  const COLOR: Record<Style, string> = { counted: RED, 'not-counted': '#d97706', 'kept-out': '#15803d' };
  const TINT: Record<Style, string> = {
    counted: 'rgba(220,38,38,0.14)',
    'not-counted': 'rgba(217,119,6,0.12)',
    'kept-out': 'rgba(21,128,61,0.12)',
  };
  const HOLD_FILL: Record<Style, string> = { counted: '#fca5a5', 'not-counted': '#fde68a', 'kept-out': '#bbf7d0' };
  const colorNow = () => (current >= 0 ? COLOR[styleOf(D.violations[current])] : RED);
  const LABEL_W = 92;
  const RIGHT = 14;
  const AXIS_H = 24;
  const FAULT_H = 18;
  const LANE_H = 30;
  const BAR_Y = 5;
  const BAR_H = 14;
  const HOLD_Y = 22;
  const HOLD_H = 5;
  const svg = document.querySelector<SVGSVGElement>('#timeline')!;
  const tip = document.getElementById('tip')!;
  const details = document.getElementById('op-details')!;
  const faultRows = D.faults.reduce((n, f) => Math.max(n, f.row + 1), 1);
  const lanesTop = AXIS_H + faultRows * FAULT_H;
  const height = lanesTop + D.lanes.length * LANE_H + 6;
  svg.setAttribute('height', String(height));

  const laneBars: number[][] = D.lanes.map(() => []);
  const laneHolds: number[][] = D.lanes.map(() => []);
  /** Bar id by op index (its invocation's and its completion's). */
  const byIndex: Record<number, number> = {};
  D.bars.forEach((b, i) => {
    laneBars[b[0]].push(i);
    byIndex[b[5]] = i;
    if (b[6] >= 0) byIndex[b[6]] = i;
  });
  D.holds.forEach((h, i) => {
    laneHolds[h[0]].push(i);
  });
  const barStart: TimeOf = (i) => D.bars[i][3];
  const barEnd: TimeOf = (i) => {
    const e = D.bars[i][4];
    return e < 0 ? D.endMs : e;
  };
  const holdStart: TimeOf = (i) => D.holds[i][1];
  const holdEnd: TimeOf = (i) => {
    const e = D.holds[i][2];
    return e < 0 ? D.endMs : e;
  };

  const full: [number, number] = [0, Math.max(D.endMs, 1)];
  let view: [number, number] = [full[0], full[1]];
  let current = D.focus;
  let plot: UPlot | null = null;
  let selected = -1;
  // Dragging across the timeline: where it started, whether it moved, the band drawn.
  let drag: { x: number } | null = null;
  let moved = false;
  let band: SVGElement | null = null;

  function fmtS(ms: number): string {
    const s = ms / 1000;
    return `${Math.abs(s) >= 100 ? s.toFixed(2) : s.toFixed(3)} s`;
  }
  function fmtMs(v: number | null | undefined): string {
    if (v == null) return '–';
    return `${v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(1) : String(Math.round(v))} ms`;
  }
  function el(tag: string, attrs: Attrs, parent?: Element | null, text?: string): SVGElement {
    const n = document.createElementNS(SVGNS, tag);
    for (const k in attrs) {
      const a = attrs[k];
      if (a !== undefined && a !== null) n.setAttribute(k, String(a));
    }
    if (text !== undefined) n.textContent = text;
    if (parent) parent.appendChild(n);
    return n;
  }
  function laneTop(lane: number): number {
    return lanesTop + lane * LANE_H;
  }

  /** The top and bottom of the band from one holder's lane to the other's; undefined unless both are drawn. */
  function twoLaneSpan(holds: NonNullable<Violation['holds']>): [number, number] | undefined {
    const drawn = holds.map((h) => h[0]).filter((l) => l >= 0);
    if (drawn.length !== 2) return undefined;
    return [laneTop(Math.min(drawn[0], drawn[1])), laneTop(Math.max(drawn[0], drawn[1])) + LANE_H];
  }

  /** First position in list (sorted, disjoint intervals) whose end is >= t. */
  function firstEnding(list: readonly number[], endOf: TimeOf, t: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (endOf(list[mid]) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function niceStep(raw: number): number {
    const p = 10 ** Math.floor(Math.log10(raw));
    const m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function render(): void {
    const W = Math.max(svg.clientWidth || 0, 480);
    svg.setAttribute('viewBox', `0 0 ${W} ${height}`);
    const plotW = W - LABEL_W - RIGHT;
    const t0 = view[0];
    const t1 = view[1];
    const k = plotW / (t1 - t0);
    const X = (t: number) => LABEL_W + (t - t0) * k;
    const clampX = (x: number) => Math.max(LABEL_W - 3, Math.min(LABEL_W + plotW + 3, x));
    while (svg.lastChild) svg.removeChild(svg.lastChild);

    const defs = el('defs', {}, svg);
    D.colors.forEach((c, i) => {
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
    el('rect', { x: LABEL_W, y: 0, width: plotW, height: height }, clip);
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
    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: colorNow() }, marker);

    // Lanes: background and label.
    const lanesG = el('g', { class: 'lanes' }, svg);
    D.lanes.forEach((lane, i) => {
      el('rect', { x: 0, y: laneTop(i), width: W, height: LANE_H, fill: i % 2 ? '#f8fafc' : '#ffffff' }, lanesG);
      el('text', { x: LABEL_W - 8, y: laneTop(i) + 16, 'text-anchor': 'end', class: 'lane-label' }, lanesG, lane.label);
    });

    const plotG = el('g', { 'clip-path': 'url(#plot-clip)' }, svg);

    // Axis and grid.
    const step = niceStep((t1 - t0) / Math.max(2, plotW / 110));
    const decimals = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / 1000))));
    const axisG = el('g', { class: 'axis' }, svg);
    el('line', { x1: LABEL_W, x2: LABEL_W + plotW, y1: AXIS_H - 0.5, y2: AXIS_H - 0.5, stroke: '#cbd5e1' }, axisG);
    el('text', { x: LABEL_W - 24, y: AXIS_H - 9, 'text-anchor': 'end', class: 'axis-unit' }, axisG, 'seconds');
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const x = X(t);
      el('line', { x1: x, x2: x, y1: AXIS_H - 5, y2: height, stroke: '#e2e8f0' }, plotG);
      el('text', { x: x, y: AXIS_H - 9, 'text-anchor': 'middle', class: 'tick' }, axisG, (t / 1000).toFixed(decimals));
    }

    // Fault windows: shaded across every lane, the targeted lane hatched.
    const faultG = el('g', { class: 'faults' }, plotG);
    D.faults.forEach((f, i) => {
      const end = f.endMs < 0 ? D.endMs : f.endMs;
      if (end < t0 || f.startMs > t1) return;
      const x0 = clampX(X(f.startMs));
      const x1 = clampX(X(end));
      const w = Math.max(1, x1 - x0);
      el(
        'rect',
        {
          x: x0,
          y: AXIS_H,
          width: w,
          height: height - AXIS_H,
          fill: 'rgba(100,116,139,0.13)',
          class: 'fault',
          'data-fault': i,
        },
        faultG,
      );
      const fy = AXIS_H + f.row * FAULT_H;
      el('rect', { x: x0, y: fy + 2, width: w, height: FAULT_H - 4, rx: 2, fill: '#64748b', 'data-fault': i }, faultG);
      if (w > 40) {
        const chars = Math.floor((w - 8) / 6.2);
        const label = f.label.length > chars ? `${f.label.slice(0, Math.max(1, chars - 1))}…` : f.label;
        el('text', { x: x0 + 4, y: fy + 13, class: 'fault-label', 'data-fault': i }, faultG, label);
      }
      if (f.lane >= 0) {
        el(
          'rect',
          { x: x0, y: laneTop(f.lane), width: w, height: LANE_H, fill: 'url(#fault-hatch)', 'data-fault': i },
          faultG,
        );
      }
    });

    // Level of detail: items narrower than 3 px that touch merge into one.
    function lod(
      list: readonly number[],
      s: TimeOf,
      e: TimeOf,
      one: (id: number, x0: number, x1: number) => void,
      many: (ids: number[], x0: number, x1: number) => void,
    ): void {
      let merged: Merged | null = null;
      function flush(): void {
        if (!merged) return;
        if (merged.ids.length === 1) one(merged.ids[0], merged.x0, merged.x1);
        else many(merged.ids, merged.x0, merged.x1);
        merged = null;
      }
      for (let j = firstEnding(list, e, t0); j < list.length; j++) {
        const id = list[j];
        const st = s(id);
        if (st > t1) break;
        const x0 = clampX(X(st));
        const x1 = clampX(X(e(id)));
        if (x1 - x0 < 3) {
          if (merged && x0 - merged.x1 < 2) {
            merged.x1 = Math.max(merged.x1, x1);
            merged.ids.push(id);
            continue;
          }
          flush();
          merged = { x0: x0, x1: x1, ids: [id] };
          continue;
        }
        flush();
        one(id, x0, x1);
      }
      flush();
    }

    const holdG = el('g', { class: 'holds' }, plotG);
    const barG = el('g', { class: 'bars' }, plotG);
    D.lanes.forEach((_lane, li) => {
      const top = laneTop(li);
      lod(
        laneHolds[li],
        holdStart,
        holdEnd,
        (id, x0, x1) => {
          el(
            'rect',
            { x: x0, y: top + HOLD_Y, width: Math.max(1, x1 - x0), height: HOLD_H, rx: 1, class: 'hold', 'data-h': id },
            holdG,
          );
        },
        (ids, x0, x1) => {
          el(
            'rect',
            {
              x: x0,
              y: top + HOLD_Y,
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
      lod(
        laneBars[li],
        barStart,
        barEnd,
        (id, x0, x1) => {
          const b = D.bars[id];
          const c = D.colors[b[1]];
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
          };
          if (o === 0) attrs.fill = c;
          else if (o === 1) {
            attrs.fill = c;
            attrs['fill-opacity'] = 0.22;
            attrs.stroke = c;
            attrs['stroke-dasharray'] = '3 2';
          } else {
            attrs.fill = `url(#hatch-${b[1]})`;
            attrs.stroke = c;
            if (o === 3) {
              attrs['stroke-dasharray'] = '4 3';
              attrs['fill-opacity'] = 0.6;
            }
          }
          if (id === selected) {
            attrs.stroke = '#0f172a';
            attrs['stroke-width'] = 2;
          }
          el('rect', attrs, barG);
          if (w > 46) {
            let text = D.fs[b[1]] + (OUTCOME[o] === 'ok' ? '' : ` ${OUTCOME[o]}`) + (b[9] ? ` ${b[9]}` : '');
            const n = Math.floor((w - 6) / 6.1);
            if (text.length > n) text = `${text.slice(0, Math.max(1, n - 1))}…`;
            el(
              'text',
              { x: x0 + 3, y: top + BAR_Y + 10.5, class: o === 0 ? 'bar-label' : 'bar-label dark', 'data-i': id },
              barG,
              text,
            );
          }
        },
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
    });

    drawViolation(X, clampX, plotG);
    updateRange();
  }

  function drawViolation(X: (t: number) => number, clampX: (x: number) => number, parent: Element): void {
    if (current < 0) return;
    const v = D.violations[current];
    const style = styleOf(v);
    const C = COLOR[style];
    const dash = style === 'counted' ? undefined : '4 2';
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
    // A rejected stale write is shown with the overlap it ended: the not-counted overlaps in
    // view, framed amber and dashed (their own style), behind the write's green mark.
    if (style === 'kept-out') {
      D.violations.forEach((o) => {
        if (o.counted || !o.overlap || !o.holds || o.overlap[1] < view[0] || o.overlap[0] > view[1]) return;
        const span = twoLaneSpan(o.holds);
        if (!span) return;
        const [ya, yb] = span;
        const x0 = clampX(X(o.overlap[0]));
        el(
          'rect',
          {
            x: x0,
            y: ya,
            width: Math.max(2, clampX(X(o.overlap[1])) - x0),
            height: yb - ya,
            fill: TINT['not-counted'],
            stroke: COLOR['not-counted'],
            'stroke-width': 1.2,
            'stroke-dasharray': '5 3',
            class: 'context-overlap',
          },
          g,
        );
      });
    }
    if (v.overlap && v.holds) {
      const o0 = clampX(X(v.overlap[0]));
      const o1 = clampX(X(v.overlap[1]));
      v.holds.forEach((h) => {
        if (h[0] < 0) return;
        const top = laneTop(h[0]);
        el(
          'rect',
          {
            x: o0,
            y: top,
            width: Math.max(2, o1 - o0),
            height: LANE_H,
            fill: TINT[style],
            class: 'overlap',
          },
          g,
        );
        const x0 = clampX(X(h[1]));
        const x1 = clampX(X(h[2] < 0 ? D.endMs : h[2]));
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
            'stroke-dasharray': dash,
            class: 'violating-hold',
          },
          g,
        );
      });
      const span = twoLaneSpan(v.holds);
      if (span) {
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
    }
    const boxes: { x0: number; x1: number; y: number; m: Violation['marks'][number] }[] = [];
    v.marks.forEach((m) => {
      const id = byIndex[m.index];
      if (id === undefined) return;
      const b = D.bars[id];
      const top = laneTop(b[0]);
      const x0 = clampX(X(b[3]));
      const x1 = clampX(X(barEnd(id)));
      el(
        'rect',
        {
          x: x0 - 2,
          y: top + BAR_Y - 2,
          width: Math.max(4, x1 - x0 + 4),
          height: BAR_H + 4,
          rx: 3,
          fill: 'none',
          stroke: C,
          'stroke-width': 2.2,
          'stroke-dasharray': dash,
          class: 'mark',
          'data-index': m.index,
        },
        g,
      );
      boxes.push({ x0: x0, x1: x1, y: top, m: m });
    });
    if (v.kind === 'lost' && boxes.length === 2) {
      const a = boxes[0];
      const z = boxes[1];
      const ya2 = a.y + BAR_Y + BAR_H / 2;
      const yz = z.y + BAR_Y + BAR_H / 2;
      const mid = (a.x1 + z.x0) / 2;
      const bend = Math.min(ya2, yz) - 14;
      el(
        'path',
        {
          d: `M${a.x1 + 2},${ya2} C${mid},${bend} ${mid},${bend} ${z.x0 - 3},${yz}`,
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
    // Numbered badges where each named op takes effect (its completion, or its invocation
    // for a release); the numbers are explained in the list under the violation's words.
    boxes.forEach((bx, i) => {
      const b = D.bars[byIndex[bx.m.index]];
      const atEnd = b[6] === bx.m.index;
      const cx = Math.max(
        LABEL_W + 8,
        Math.min(atEnd ? bx.x1 : bx.x0, LABEL_W + (svg.viewBox.baseVal.width - LABEL_W - RIGHT) - 8),
      );
      const cy = bx.y + BAR_Y + BAR_H / 2;
      const badge = el('g', { class: 'badge-mark', 'data-mark': i }, g);
      el('circle', { cx: cx, cy: cy, r: 8, fill: C, stroke: '#fff', 'stroke-width': 1.5 }, badge);
      el('text', { x: cx, y: cy + 3.8, 'text-anchor': 'middle', class: 'badge-num' }, badge, String(i + 1));
    });
  }

  /** Shows [a, b] in the timeline; with withPlot, in the latency plot too. */
  function setView(a: number, b: number, withPlot?: boolean): void {
    let span = Math.max(b - a, 0.5);
    const max = full[1] - full[0];
    if (span > max) span = max;
    const lo = Math.max(full[0], Math.min(a, full[1] - span));
    view = [lo, lo + span];
    render();
    if (withPlot && plot) plot.setScale('x', { min: view[0], max: view[1] });
  }
  function violationView(i: number): [number, number] {
    const v = D.violations[i].view;
    return [v[0], v[1]];
  }
  function updateRange(): void {
    const r = document.getElementById('view-range');
    if (r) r.textContent = `${fmtS(view[0])} – ${fmtS(view[1])} of ${fmtS(full[1])}`;
  }

  // Latency plot (uPlot), sharing the timeline's range; fault windows shaded.
  function latencyPlot(): UPlot | null {
    const L = D.latency;
    const host = document.getElementById('latency')!;
    if (!L.x.length || typeof uPlot === 'undefined') {
      host.textContent = 'No completed operations to plot.';
      return null;
    }
    const series: UPlot.Series[] = [{ label: 'time', value: (_u, v) => (v == null ? '–' : fmtS(v)) }];
    L.kinds.forEach((kind) => {
      const c = D.colors[D.fs.indexOf(kind)] || '#475569';
      series.push({
        label: kind,
        stroke: c,
        width: 1,
        paths: () => null,
        points: { show: true, size: 4, width: 1, stroke: c, fill: c },
        value: (_u, v) => fmtMs(v),
      });
    });
    function shade(u: UPlot): void {
      const ctx = u.ctx;
      ctx.save();
      ctx.fillStyle = 'rgba(100,116,139,0.16)';
      D.faults.forEach((f) => {
        const end = f.endMs < 0 ? D.endMs : f.endMs;
        const x0 = Math.max(u.bbox.left, u.valToPos(f.startMs, 'x', true));
        const x1 = Math.min(u.bbox.left + u.bbox.width, u.valToPos(end, 'x', true));
        if (x1 > x0) ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
      });
      ctx.restore();
    }
    function markViolation(u: UPlot): void {
      if (current < 0) return;
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = colorNow();
      ctx.lineWidth = 1.5 * (window.devicePixelRatio || 1);
      ctx.setLineDash([6, 4]);
      D.violations[current].marks.forEach((m) => {
        const id = byIndex[m.index];
        if (id === undefined) return;
        const b = D.bars[id];
        const x = u.valToPos(b[6] === m.index ? b[4] : b[3], 'x', true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
      });
      ctx.restore();
    }
    const decimalsFor = (vals: number[]) => {
      const step = vals.length > 1 ? Math.abs(vals[1] - vals[0]) : 1000;
      return Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / 1000))));
    };
    const opts: UPlot.Options = {
      width: Math.max(host.clientWidth, 480),
      height: 300,
      scales: { x: { time: false }, y: { distr: 3, log: 10 } },
      axes: [
        {
          label: 'seconds since the test began',
          values: (_u, vals) => {
            const d = decimalsFor(vals);
            return vals.map((v) => (v / 1000).toFixed(d));
          },
        },
        {
          label: 'latency, ms (log scale)',
          size: 60,
          values: (_u, vals) =>
            vals.map((v) => (v == null ? '' : v >= 1 ? String(Math.round(v)) : String(+v.toPrecision(2)))),
        },
      ],
      series: series,
      cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 7 } },
      legend: { live: true },
      hooks: {
        drawClear: [shade],
        draw: [markViolation],
        setSelect: [
          (u) => {
            if (u.select.width > 4) {
              const a = u.posToVal(u.select.left, 'x');
              const b = u.posToVal(u.select.left + u.select.width, 'x');
              u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
              setView(a, b, true);
            }
          },
        ],
      },
    };
    const data: UPlot.AlignedData = [L.x, ...L.y];
    const p = new uPlot(opts, data, host);
    host.addEventListener('dblclick', () => {
      setView(full[0], full[1], true);
    });
    return p;
  }

  // Tooltip and details.
  function describeBar(id: number): string[] {
    const b = D.bars[id];
    const o = OUTCOME[b[2]];
    const lines = [
      `${D.fs[b[1]]} by process ${D.lanes[b[0]].process}: ${o}${b[8] ? ` (${b[8]})` : ''}`,
      `invoked ${fmtS(b[3])} (op #${b[5]})${b[4] >= 0 ? `, completed ${fmtS(b[4])} (op #${b[6]}), ${fmtMs(b[4] - b[3])}` : ', never completed'}`,
    ];
    if (b[7]) lines.push(`value: ${b[7]}`);
    return lines;
  }
  function describeHold(id: number): string[] {
    const h = D.holds[id];
    return [
      `process ${D.lanes[h[0]].process} believes it holds the lock`,
      `from ${fmtS(h[1])} (acquire ok, op #${h[3]}) to ${h[2] < 0 ? 'the end' : fmtS(h[2])}${h[4] >= 0 ? ` (release invoked, op #${h[4]})` : ''}`,
      h[5] >= 0 ? `fencing token ${h[5]}` : 'no fencing token',
    ];
  }
  /** The element an event happened on, or the nearest ancestor that matches `selector`. */
  function closest(target: EventTarget | null, selector: string): Element | null {
    return target instanceof Element ? target.closest(selector) : null;
  }
  const numberAttr = (n: Element, name: string) => +(n.getAttribute(name) as string);
  function tipLines(target: EventTarget | null): string[] | null {
    const n = closest(target, '[data-mark],[data-i],[data-n],[data-h],[data-fault]');
    if (!n) return null;
    if (n.hasAttribute('data-mark')) {
      const m = D.violations[current].marks[numberAttr(n, 'data-mark')];
      return [`${numberAttr(n, 'data-mark') + 1}: ${m.label} (op #${m.index})`].concat(describeBar(byIndex[m.index]));
    }
    if (n.hasAttribute('data-n'))
      return [`${n.getAttribute('data-n')} operations, too close to tell apart here`, 'drag across them to zoom in'];
    if (n.hasAttribute('data-i')) return describeBar(numberAttr(n, 'data-i'));
    if (n.hasAttribute('data-hn')) return [`${n.getAttribute('data-hn')} short holds; zoom in to see them`];
    if (n.hasAttribute('data-h')) return describeHold(numberAttr(n, 'data-h'));
    const f = D.faults[numberAttr(n, 'data-fault')];
    return [`fault: ${f.label}`, `${fmtS(f.startMs)} – ${f.endMs < 0 ? 'not healed in this history' : fmtS(f.endMs)}`];
  }
  svg.addEventListener('mousemove', (ev) => {
    if (drag) return;
    const lines = tipLines(ev.target);
    if (!lines) {
      tip.hidden = true;
      return;
    }
    tip.textContent = lines.join('\n');
    tip.hidden = false;
    const x = Math.max(4, Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8));
    let y = ev.clientY + 16;
    if (y + tip.offsetHeight > window.innerHeight - 4) y = ev.clientY - tip.offsetHeight - 10;
    tip.style.left = `${x}px`;
    tip.style.top = `${y}px`;
  });
  svg.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });
  svg.addEventListener('click', (ev) => {
    const n = closest(ev.target, '[data-i],[data-h]');
    if (!n || moved) return;
    if (n.hasAttribute('data-i')) {
      selected = numberAttr(n, 'data-i');
      details.textContent = `${describeBar(selected).join(' · ')} · history.jsonl line ${D.bars[selected][5] + 1}`;
      render();
    } else {
      details.textContent = describeHold(numberAttr(n, 'data-h')).join(' · ');
    }
  });

  // Drag across the timeline to zoom into a span; Ctrl/Alt + wheel zooms, Shift + wheel pans.
  function plotX(ev: MouseEvent): number {
    const r = svg.getBoundingClientRect();
    return (ev.clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
  }
  function timeAt(x: number): number {
    const W = svg.viewBox.baseVal.width;
    const plotW = W - LABEL_W - RIGHT;
    return view[0] + ((Math.max(LABEL_W, Math.min(LABEL_W + plotW, x)) - LABEL_W) / plotW) * (view[1] - view[0]);
  }
  svg.addEventListener('mousedown', (ev) => {
    if (ev.button !== 0) return;
    drag = { x: plotX(ev) };
    moved = false;
  });
  window.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const x = plotX(ev);
    if (Math.abs(x - drag.x) > 4) moved = true;
    if (!moved) return;
    if (!band) {
      band = el(
        'rect',
        { y: AXIS_H, height: height - AXIS_H, fill: 'rgba(37,99,235,0.12)', stroke: '#2563eb', class: 'brush' },
        svg,
      );
    }
    band.setAttribute('x', String(Math.min(x, drag.x)));
    band.setAttribute('width', String(Math.abs(x - drag.x)));
    tip.hidden = true;
  });
  window.addEventListener('mouseup', (ev) => {
    if (!drag) return;
    const x = plotX(ev);
    const start = drag.x;
    drag = null;
    if (band) {
      band.remove();
      band = null;
    }
    if (moved) {
      const a = timeAt(Math.min(x, start));
      const b = timeAt(Math.max(x, start));
      if (b - a > 0) setView(a, b);
      setTimeout(() => {
        moved = false;
      }, 0);
    }
  });
  svg.addEventListener('dblclick', () => {
    setView(full[0], full[1]);
  });
  svg.addEventListener(
    'wheel',
    (ev) => {
      if (!(ev.ctrlKey || ev.altKey || ev.metaKey || ev.shiftKey)) return;
      ev.preventDefault();
      const span = view[1] - view[0];
      const delta = ev.deltaY || ev.deltaX;
      if (ev.shiftKey) {
        setView(view[0] + Math.sign(delta) * span * 0.15, view[1] + Math.sign(delta) * span * 0.15);
        return;
      }
      const at = timeAt(plotX(ev));
      const f = delta > 0 ? 1.25 : 0.8;
      setView(at - (at - view[0]) * f, at + (view[1] - at) * f);
    },
    { passive: false },
  );

  function zoom(f: number): void {
    const mid = (view[0] + view[1]) / 2;
    const half = ((view[1] - view[0]) * f) / 2;
    setView(mid - half, mid + half);
  }
  function pan(f: number): void {
    const d = (view[1] - view[0]) * f;
    setView(view[0] + d, view[1] + d);
  }
  function on(id: string, fn: () => void): void {
    const b = document.getElementById(id);
    if (b) b.addEventListener('click', fn);
  }
  on('btn-all', () => setView(full[0], full[1], true));
  on('btn-in', () => zoom(0.5));
  on('btn-out', () => zoom(2));
  on('btn-left', () => pan(-0.4));
  on('btn-right', () => pan(0.4));
  on('btn-violation', () => {
    if (current >= 0) {
      const v = violationView(current);
      setView(v[0], v[1]);
    }
  });

  // The list of violations: each one shows itself in the timeline.
  function select(i: number, scroll: boolean): void {
    current = i;
    const v = D.violations[i];
    const words = document.getElementById('focus-words');
    if (words) words.textContent = v.words;
    const who = document.getElementById('focus-checker');
    const style = styleOf(v);
    if (who) {
      who.textContent =
        style === 'kept-out'
          ? 'fencing at work: the store rejected a stale write (why this run is valid)'
          : v.checker + (v.counted ? '' : ' — shown, not counted toward the verdict');
    }
    const box = document.getElementById('focus-box');
    if (box) {
      box.className = `callout${style === 'counted' ? '' : style === 'kept-out' ? ' ok' : ' undecided'}`;
      box.setAttribute('data-style', style);
    }
    for (const id of ['focus-marks', 'timeline-marks']) {
      const ol = document.getElementById(id);
      if (ol) ol.className = `marks s-${style}`;
    }
    listMarks(v);
    const items = document.querySelectorAll('[data-violation-index]');
    for (let j = 0; j < items.length; j++) {
      items[j].classList.toggle('current', numberAttr(items[j], 'data-violation-index') === i);
    }
    const vv = violationView(i);
    setView(vv[0], vv[1]);
    if (plot) plot.redraw(false, false);
    if (scroll) {
      const g = document.getElementById('violation');
      if (g) g.scrollIntoView({ block: 'center', behavior: 'smooth' });
    }
  }
  // The numbered badges' key, under the violation's words and again above the timeline
  // (which stays in view as the timeline scrolls): the badges are read there.
  function listMarks(v: Violation): void {
    for (const id of ['focus-marks', 'timeline-marks']) {
      const ol = document.getElementById(id);
      if (!ol) continue;
      while (ol.lastChild) ol.removeChild(ol.lastChild);
      v.marks.forEach((m) => {
        const li = document.createElement('li');
        const bar = byIndex[m.index];
        const at = bar === undefined ? '' : ` at ${fmtS(D.bars[bar][6] === m.index ? D.bars[bar][4] : D.bars[bar][3])}`;
        li.textContent = `${m.label} (op #${m.index})${at}${bar === undefined ? ' (not drawn)' : ''}`;
        ol.appendChild(li);
      });
    }
  }
  const list = document.querySelectorAll('[data-violation-index]');
  for (let j = 0; j < list.length; j++) {
    list[j].addEventListener('click', (ev) => {
      select(numberAttr(ev.currentTarget as Element, 'data-violation-index'), true);
    });
  }

  // The timeline's sticky head sits under the page's sticky header, whose height follows the
  // headline's length and the window's width.
  const headerHeight = () => {
    const header = document.querySelector('header');
    if (header)
      document.documentElement.style.setProperty('--header-height', `${header.getBoundingClientRect().height}px`);
  };
  headerHeight();
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      headerHeight();
      render();
      if (plot) plot.setSize({ width: Math.max(document.getElementById('latency')!.clientWidth, 480), height: 300 });
    }, 100);
  });

  // Start: the violation in view, scrolled to; else the whole run.
  if (current >= 0) {
    const v0 = violationView(current);
    view = [v0[0], v0[1]];
  }
  render();
  plot = latencyPlot();
  if (plot) plot.setScale('x', { min: full[0], max: full[1] });
  if (current >= 0) {
    listMarks(D.violations[current]);
    const items0 = document.querySelectorAll(`[data-violation-index="${current}"]`);
    for (let q = 0; q < items0.length; q++) items0[q].classList.add('current');
    const g0 = document.getElementById('violation');
    if (g0) g0.scrollIntoView({ block: 'center' });
  }
  document.body.setAttribute('data-ready', 'true');
}
