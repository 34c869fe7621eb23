/**
 * bench.html's script: per backend, side by side, acquire latency (p50, p99, p99.9)
 * against concurrency and throughput (grants and handoffs a second) against concurrency,
 * one line style per backoff jitter. Bundled, inlined, then called (page-assets.ts,
 * pageScript): it reaches the page's DOM and uPlot.
 */
import type UPlot from 'uplot';
import type { BenchResult } from '../measure.js';

/** The global uPlot's script defines, in the page. */
declare const uPlot: typeof UPlot;

export interface BenchPageData {
  points: BenchResult[];
}

export function benchPlots(data: BenchPageData): void {
  const host = document.getElementById('plots')!;
  const backends = [...new Set(data.points.map((p) => p.backend))];
  const jitters = [...new Set(data.points.map((p) => p.jitterMs))];
  const conc = [...new Set(data.points.map((p) => p.concurrency))].sort((a, b) => a - b);
  const q = (p: BenchResult | undefined, want: number) => {
    const x = p?.latencyMs.find((l) => l.q === want);
    return x && x.value !== null ? Math.max(x.value, 0.01) : null;
  };
  const colors = ['#2563eb', '#dc2626', '#7c3aed'];
  // The y axis as wide as its longest label (uPlot's default 50 px cut "10,000" to "0,000").
  const yAxis: UPlot.Axis = {
    size: (_u, values) => Math.max(50, 16 + 7 * Math.max(0, ...(values ?? []).map((v) => String(v).length))),
  };
  const quantiles: [number, string][] = [
    [0.5, 'p50'],
    [0.99, 'p99'],
    [0.999, 'p99.9'],
  ];
  for (const backend of backends) {
    const at = (c: number, j: number) =>
      data.points.find((p) => p.backend === backend && p.concurrency === c && p.jitterMs === j);
    const div = document.createElement('div');
    div.className = 'plot';
    div.innerHTML = '<h3></h3>';
    div.querySelector('h3')!.textContent = backend;
    host.append(div);
    const lat: (number | null)[][] = [conc];
    const latSeries: UPlot.Series[] = [{ label: 'clients' }];
    const thr: (number | null)[][] = [conc];
    const thrSeries: UPlot.Series[] = [{ label: 'clients' }];
    jitters.forEach((j, ji) => {
      const dash = ji === 0 ? undefined : [6, 4];
      quantiles.forEach(([want, name], qi) => {
        lat.push(conc.map((c) => q(at(c, j), want)));
        latSeries.push({ label: `${name} jitter ${j}`, stroke: colors[qi], dash, width: 2 });
      });
      thr.push(conc.map((c) => at(c, j)?.grantsPerS ?? null));
      thrSeries.push({ label: `grants/s jitter ${j}`, stroke: '#059669', dash, width: 2 });
      thr.push(conc.map((c) => at(c, j)?.handoffsPerS ?? null));
      thrSeries.push({ label: `handoffs/s jitter ${j}`, stroke: '#ca8a04', dash, width: 2 });
    });
    const x: UPlot.Scale = { time: false, distr: 3 };
    new uPlot(
      {
        width: 420,
        height: 260,
        title: 'acquire latency, ms',
        scales: { x, y: { distr: 3 } },
        axes: [{ label: 'clients' }, yAxis],
        series: latSeries,
      },
      lat as UPlot.AlignedData,
      div,
    );
    new uPlot(
      {
        width: 420,
        height: 220,
        title: 'throughput, per s',
        scales: { x },
        axes: [{ label: 'clients' }, yAxis],
        series: thrSeries,
      },
      thr as UPlot.AlignedData,
      div,
    );
  }
  document.body.dataset.ready = 'true';
}
