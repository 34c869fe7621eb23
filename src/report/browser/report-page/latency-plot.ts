/**
 * The latency plot (uPlot, the page's global): each completed operation at its invocation
 * time, a series per kind on a log scale, fault windows shaded, dashed lines where the
 * finding shown takes effect. It shares the timeline's time range: a drag across it zooms both.
 */
import type UPlot from 'uplot';
import { fmtMs, fmtS, tickDecimals } from './format.js';
import { entryTime } from './page-data.js';
import { findingColor, type Page } from './page-view.js';

/** The global uPlot's script defines, in the page (its types come from the package). */
declare const uPlot: typeof UPlot;

/** The x ticks' decimals, from the step between the first two. */
export const xTickDecimals = (vals: readonly number[]) =>
  tickDecimals(vals.length > 1 ? Math.abs(vals[1] - vals[0]) : 1000);

/** A latency tick: whole from 1 ms, two significant digits under it. */
export const latencyTick = (v: number | null) =>
  v == null ? '' : v >= 1 ? String(Math.round(v)) : String(+v.toPrecision(2));

function shadeFaults(page: Page, u: UPlot): void {
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = 'rgba(100,116,139,0.16)';
  page.D.faults.forEach((f) => {
    const end = f.endMs < 0 ? page.D.endMs : f.endMs;
    const x0 = Math.max(u.bbox.left, u.valToPos(f.startMs, 'x', true));
    const x1 = Math.min(u.bbox.left + u.bbox.width, u.valToPos(end, 'x', true));
    if (x1 > x0) ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
  });
  ctx.restore();
}

function markFinding(page: Page, u: UPlot): void {
  if (page.current < 0) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = findingColor(page);
  ctx.lineWidth = 1.5 * (window.devicePixelRatio || 1);
  ctx.setLineDash([6, 4]);
  page.D.violations[page.current].marks.forEach((m) => {
    const id = page.index.byIndex[m.index];
    if (id === undefined) return;
    const x = u.valToPos(entryTime(page.D, id, m.index), 'x', true);
    if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
  });
  ctx.restore();
}

function plotOptions(page: Page, width: number): UPlot.Options {
  const { D } = page;
  const series: UPlot.Series[] = [{ label: 'time', value: (_u, v) => (v == null ? '–' : fmtS(v)) }];
  D.latency.kinds.forEach((kind) => {
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
  return {
    width,
    height: 300,
    scales: { x: { time: false }, y: { distr: 3, log: 10 } },
    axes: [
      {
        label: 'seconds since the test began',
        values: (_u, vals) => {
          const d = xTickDecimals(vals);
          return vals.map((v) => (v / 1000).toFixed(d));
        },
      },
      { label: 'latency, ms (log scale)', size: 60, values: (_u, vals) => vals.map(latencyTick) },
    ],
    series: series,
    cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 7 } },
    legend: { live: true },
    hooks: {
      drawClear: [(u) => shadeFaults(page, u)],
      draw: [(u) => markFinding(page, u)],
      setSelect: [
        (u) => {
          if (u.select.width > 4) {
            const a = u.posToVal(u.select.left, 'x');
            const b = u.posToVal(u.select.left + u.select.width, 'x');
            u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
            page.setView(a, b, true);
          }
        },
      ],
    },
  };
}

/** The plot in #latency, or null (and a line saying why) when there is nothing to plot or no uPlot. */
export function latencyPlot(page: Page): UPlot | null {
  const L = page.D.latency;
  const host = document.getElementById('latency')!;
  if (!L.x.length || typeof uPlot === 'undefined') {
    host.textContent = 'No completed operations to plot.';
    return null;
  }
  const data: UPlot.AlignedData = [L.x, ...L.y];
  const p = new uPlot(plotOptions(page, Math.max(host.clientWidth, 480)), data, host);
  host.addEventListener('dblclick', () => {
    page.setView(page.full[0], page.full[1], true);
  });
  return p;
}
