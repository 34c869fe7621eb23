/**
 * sweep.html's script: one uPlot chart per TTL and concurrency, observed P(two holders)
 * with its exact interval against the formula, x the pause as a multiple of the TTL.
 * Bundled, inlined, then called (page-assets.ts, pageScript): it reaches the page's DOM
 * and uPlot.
 */
import type UPlot from 'uplot';
import type { PointResult } from '../analyse.js';
import type { DriftPointResult } from '../drift-analyse.js';

/** The global uPlot's script defines, in the page. */
declare const uPlot: typeof UPlot;

export interface SweepPageData {
  points: PointResult[];
}

export interface DriftSweepPageData {
  points: DriftPointResult[];
}

/** One titled chart's box, appended to the page's plots. */
function plotBox(title: string): HTMLDivElement {
  const div = document.createElement('div');
  div.className = 'plot';
  div.innerHTML = '<h3></h3>';
  div.querySelector('h3')!.textContent = title;
  document.getElementById('plots')!.append(div);
  return div;
}

const orNull = (v: number | null | undefined) => (v === null || v === undefined ? null : v);

/** A drift sweep's charts: x the clock's ρ, observed P(two holders) against the model's step at its bound. */
export function driftPlots(data: DriftSweepPageData): void {
  const groups = new Map<string, DriftPointResult[]>();
  for (const p of data.points) {
    const key = `TTL ${p.ttlMs} ms, hold ${p.holdMs} ms, ${p.concurrency} clients`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(p);
  }
  for (const [title, points] of groups) {
    points.sort((a, b) => a.rho - b.rho);
    const series: UPlot.AlignedData = [
      points.map((p) => p.rho),
      points.map((p) => orNull(p.observed.p)),
      points.map((p) => orNull(p.observed.clopperPearson?.low)),
      points.map((p) => orNull(p.observed.clopperPearson?.high)),
      points.map((p) => (p.predicted.unsafe ? 1 : 0)),
      points.map((p) => p.runsDataViolation / Math.max(1, p.trials)),
    ];
    new uPlot(
      {
        width: 560,
        height: 340,
        scales: { x: { time: false }, y: { range: [0, 1] } },
        axes: [{ label: 'clock drift ρ (the clock runs at 1 + ρ)' }, { label: 'P(run has two holders)' }],
        series: [
          { label: 'ρ' },
          { label: 'observed', stroke: '#b91c1c', width: 0, points: { show: true, size: 9, fill: '#b91c1c' } },
          { label: 'observed 95% low', stroke: '#b91c1c', dash: [3, 4], width: 1, points: { show: false } },
          { label: 'observed 95% high', stroke: '#b91c1c', dash: [3, 4], width: 1, points: { show: false } },
          { label: 'model: unsafe', stroke: '#2563eb', width: 2, paths: uPlot.paths.stepped?.({ align: 1 }) },
          { label: 'data violations', stroke: '#7c3aed', width: 1, points: { show: true, size: 5 } },
        ],
      },
      series,
      plotBox(title),
    );
  }
  document.body.dataset.ready = 'true';
}

export function sweepPlots(data: SweepPageData): void {
  const groups = new Map<string, PointResult[]>();
  for (const p of data.points) {
    const key = `TTL ${p.ttlMs} ms, ${p.concurrency} clients`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(p);
  }
  for (const [title, points] of groups) {
    points.sort((a, b) => a.pauseTtl - b.pauseTtl);
    const val = (f: (p: PointResult) => number | null | undefined) =>
      points.map((p) => {
        const v = f(p);
        return v === null || v === undefined ? null : v;
      });
    const series: UPlot.AlignedData = [
      points.map((p) => p.pauseTtl),
      val((p) => p.observed.p),
      val((p) => p.observed.clopperPearson?.low),
      val((p) => p.observed.clopperPearson?.high),
      val((p) => p.predicted?.p),
      val((p) => p.runsDataViolation / Math.max(1, p.trials)),
    ];
    new uPlot(
      {
        width: 560,
        height: 340,
        scales: { x: { time: false }, y: { range: [0, 1] } },
        axes: [{ label: 'client pause / TTL' }, { label: 'P(run has two holders)' }],
        series: [
          { label: 'pause/TTL' },
          { label: 'observed', stroke: '#b91c1c', width: 0, points: { show: true, size: 9, fill: '#b91c1c' } },
          { label: 'observed 95% low', stroke: '#b91c1c', dash: [3, 4], width: 1, points: { show: false } },
          { label: 'observed 95% high', stroke: '#b91c1c', dash: [3, 4], width: 1, points: { show: false } },
          { label: 'formula', stroke: '#2563eb', width: 2 },
          { label: 'data violations', stroke: '#7c3aed', width: 1, points: { show: true, size: 5 } },
        ],
      },
      series,
      plotBox(title),
    );
  }
  document.body.dataset.ready = 'true';
}
