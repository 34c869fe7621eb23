/**
 * bench.html and the terminal table: the backends ranked by p99 acquire latency at the
 * highest concurrency, every point with its tail figures (the count behind each, a tail
 * with too few samples beyond it marked), and per backend, side by side, latency against
 * concurrency and throughput against concurrency.
 */
import { relative } from 'node:path';
import { cell, measurementPage } from '../report/measure-page.js';
import { escapeHtml } from '../report/page-html.js';
import { MIN_BEYOND, quantileName, samplesNeeded } from '../stats/quantiles.js';
import { textTable } from '../util/text-table.js';
import { stamped } from '../version.js';
import type { BenchPageData } from './browser/plots.js';
import type { BenchSpec } from './grid.js';
import type { BenchResult } from './measure.js';

export interface BenchReport {
  spec: BenchSpec;
  dir: string;
  startedAt: string;
  finishedAt: string;
  /** Wall-clock seconds the whole bench took (cluster starts included). */
  durationS: number;
  points: BenchResult[];
}

const p99 = (r: BenchResult) => r.latencyMs.find((q) => q.q === 0.99)?.value ?? null;

/** Backends by p99 at the highest concurrency, with the default (first) jitter; a backend without figures last. */
export function ranking(
  report: Pick<BenchReport, 'spec' | 'points'>,
): { backend: string; point: BenchResult | undefined }[] {
  const top = Math.max(...report.spec.concurrency);
  const jitter = report.spec.jitterMs[0];
  const at = (backend: string) =>
    report.points.find((p) => p.backend === backend && p.concurrency === top && p.jitterMs === jitter);
  return report.spec.backends
    .map((backend) => ({ backend, point: at(backend) }))
    .sort(
      (a, b) => (a.point ? (p99(a.point) ?? Infinity) : Infinity) - (b.point ? (p99(b.point) ?? Infinity) : Infinity),
    );
}

const latencyCell = (r: BenchResult, q: number) => {
  const x = r.latencyMs.find((l) => l.q === q);
  if (!x || x.value === null) return '<td class="num">–</td>';
  const title = `${x.n} samples, ~${cell(x.beyond, 1)} beyond; meaningful from ${samplesNeeded(q)}`;
  return `<td class="num${x.meaningful ? '' : ' thin'}" title="${escapeHtml(title)}">${cell(x.value, 1)}${x.meaningful ? '' : '*'}</td>`;
};

export function benchHtml(r: BenchReport, generatedAt = new Date()): string {
  const s = r.spec;
  const top = Math.max(...s.concurrency);
  const rank = ranking(r)
    .map(
      ({ backend, point }, i) =>
        `<tr><td class="num">${i + 1}</td><td>${escapeHtml(backend)}</td>${
          point ? latencyCell(point, 0.99) : '<td class="num">–</td>'
        }<td class="num">${cell(point?.handoffsPerS, 1)}</td><td class="num">${cell(point?.fairness, 3)}</td><td class="num">${
          point?.availability === null || point === undefined ? '–' : `${cell(point.availability * 100, 1)}%`
        }</td></tr>`,
    )
    .join('\n');
  const href = (p: string) =>
    relative(r.dir, p)
      .split('/')
      .map((x) => encodeURIComponent(x))
      .join('/');
  const rows = r.points
    .map(
      (
        p,
      ) => `<tr><td>${escapeHtml(p.backend)}</td><td class="num">${p.concurrency}</td><td class="num">${p.jitterMs}</td>
${[0.5, 0.99, 0.999, 0.9999].map((q) => latencyCell(p, q)).join('')}<td class="num">${p.grants}</td>
<td class="num">${cell(p.grantsPerS, 1)}</td><td class="num">${cell(p.handoffsPerS, 1)}</td><td class="num">${cell(p.fairness, 3)}</td>
<td class="num">${p.failed}</td><td class="num">${p.availability === null ? '–' : `${cell(p.availability * 100, 1)}%`}</td>
<td><a href="${escapeHtml(href(p.dir))}/report.html">report</a></td></tr>`,
    )
    .join('\n');
  const body = `
<h2>Ranking by p99 acquire latency at ${top} clients (jitter ${s.jitterMs[0]} ms)</h2>
<table id="ranking"><thead><tr><th>#</th><th>backend</th><th>p99 ms</th><th>handoffs/s</th><th>fairness (Jain)</th><th>availability</th></tr></thead>
<tbody>
${rank}
</tbody></table>
<h2>Per backend</h2>
<div class="plots" id="plots"></div>
<p class="note">Solid: backoff jitter ${s.jitterMs[0]} ms; dashed: the others (${s.jitterMs.slice(1).join(', ') || 'none'}). Log scales.</p>
<h2>Every point</h2>
<table id="points"><thead><tr><th>backend</th><th>clients</th><th>jitter ms</th>${[0.5, 0.99, 0.999, 0.9999]
    .map((q) => `<th>${quantileName(q)} ms</th>`)
    .join(
      '',
    )}<th>grants</th><th>grants/s</th><th>handoffs/s</th><th>fairness</th><th>failed acquires</th><th>availability</th><th>run</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p class="note">Acquire latency is from invocation to grant, waiting for the lock included. * a tail with fewer than
${MIN_BEYOND} samples beyond it (p99 needs ${samplesNeeded(0.99).toLocaleString('en-US')} grants, p99.9
${samplesNeeded(0.999).toLocaleString('en-US')}, p99.99 ${samplesNeeded(0.9999).toLocaleString('en-US')}): it is the largest
few samples, not a tail. Hover a figure for its count. A handoff is a grant to another client than the previous
grant's; fairness is Jain's index of the grants per client (1: equal shares, 1/n: one client got them all).</p>`;
  return measurementPage(
    {
      title: `lockchaos bench · ${s.backends.join(', ')}`,
      meta: escapeHtml(
        `mutex workload, hold ${s.holdMs} ms, nemesis ${s.nemesis}, ${s.timeLimitS} s a point, seed ${s.seed} · ${r.points.length} points in ${Math.round(r.durationS)} s · started ${r.startedAt}`,
      ),
      body,
      data: { points: r.points } satisfies BenchPageData,
      script: {
        module: new URL('./browser/plots.js', import.meta.url),
        entry: 'benchPlots' satisfies keyof typeof import('./browser/plots.js'),
      },
    },
    generatedAt,
  );
}

export function benchJson(r: BenchReport): string {
  return `${JSON.stringify(stamped({ ...r, dir: undefined, points: r.points.map((p) => ({ ...p, dir: relative(r.dir, p.dir) })) }), null, 2)}\n`;
}

/** The terminal table: the ranking, then every point. */
export function benchTable(r: BenchReport): string {
  const fmt = (p: BenchResult, q: number) => {
    const x = p.latencyMs.find((l) => l.q === q);
    return x?.value === null || x === undefined ? '-' : `${x.value.toFixed(1)}${x.meaningful ? '' : '*'}`;
  };
  const head = [
    'backend',
    'clients',
    'jitter',
    'p50',
    'p99',
    'p99.9',
    'p99.99',
    'grants',
    'handoffs/s',
    'Jain',
    'failed',
    'avail',
  ];
  const rows = r.points.map((p) => [
    p.backend,
    String(p.concurrency),
    String(p.jitterMs),
    ...[0.5, 0.99, 0.999, 0.9999].map((q) => fmt(p, q)),
    String(p.grants),
    p.handoffsPerS.toFixed(1),
    p.fairness === null ? '-' : p.fairness.toFixed(3),
    String(p.failed),
    p.availability === null ? '-' : `${(p.availability * 100).toFixed(1)}%`,
  ]);
  const ranked = ranking(r).map(
    ({ backend, point }, i) => `  ${i + 1}. ${backend}  p99 ${point ? fmt(point, 0.99) : '-'} ms`,
  );
  return [
    `ranking by p99 acquire latency at ${Math.max(...r.spec.concurrency)} clients (jitter ${r.spec.jitterMs[0]} ms):`,
    ...ranked,
    '',
    textTable(head, rows),
    `(ms; * fewer than ${MIN_BEYOND} samples beyond that quantile: not a tail)`,
  ].join('\n');
}
