/**
 * A drift sweep's sweep.html and terminal table: observed P(two holders) per ρ against the
 * model's bound (drift-formula.ts), the clocks as read back, and the runs behind every
 * point where the two disagree, linked to their reports.
 */
import { cell, measurementPage } from '../report/measure-page.js';
import { escapeHtml } from '../report/page-html.js';
import { plural } from '../util/plural.js';
import { textTable } from '../util/text-table.js';
import type { DriftSweepPageData } from './browser/plots.js';
import type { DriftPointResult } from './drift-analyse.js';
import type { SweepSpec } from './grid.js';
import { interval, runHref } from './html.js';

export interface DriftSweepResult {
  spec: SweepSpec;
  /** The campaign folder (sweep.json and sweep.html are written there). */
  dir: string;
  startedAt: string;
  finishedAt: string;
  points: DriftPointResult[];
}

const rhoCell = (x: number) => (Number.isFinite(x) ? String(Math.round(x * 10_000) / 10_000) : '∞');

function boundWords(p: DriftPointResult): string {
  return p.lease.kind === 'renewed'
    ? `renewed ${p.lease.renewalsPerTtl}× a TTL`
    : p.lease.driftMs > 0
      ? `${p.lease.driftMs} ms drift allowance`
      : 'no drift allowance';
}

function runLinks(r: DriftSweepResult, p: DriftPointResult): string {
  const href = (dir: string) => runHref(r.dir, dir);
  const runs = p.predicted.unsafe ? p.runs : p.runs.filter((x) => x.overlaps > 0);
  return runs
    .map((run) => {
      const why =
        run.drifts === 0 && p.rho !== 0
          ? `no drift moved a clock (${run.driftsNotApplied} refused)`
          : run.overlaps > 0
            ? `two holders (${run.overlaps} overlaps)`
            : 'no two holders';
      return `<a href="${escapeHtml(href(run.dir))}/report.html">seed ${run.seed}</a> <span class="note">(${escapeHtml(why)})</span>`;
    })
    .join('<br>');
}

export function driftSweepHtml(r: DriftSweepResult, generatedAt = new Date()): string {
  const s = r.spec;
  const rows = r.points
    .map(
      (p) => `<tr class="${p.disagree ? 'disagree' : ''}">
<td class="num">${rhoCell(p.rho)}</td><td class="num">${p.ttlMs}</td><td class="num">${p.holdMs}</td><td class="num">${p.concurrency}</td>
<td>${escapeHtml(boundWords(p))}</td><td class="num">${rhoCell(p.predicted.coveredRho)}</td><td class="num">${rhoCell(p.predicted.breakingRho)}</td>
<td class="num">${cell(p.predicted.leaseTrueMs, 0)}</td><td>${p.predicted.unsafe ? 'two holders' : 'safe'}</td>
<td class="num">${p.observed.k} / ${p.observed.n}</td><td class="num">${interval(p.observed.clopperPearson)}</td>
<td class="num">${p.runsInvalid}</td><td class="num${p.runsDataViolation > 0 && s.fencing ? ' bad' : ''}">${p.runsDataViolation}</td>
<td class="num">${p.drifts}${p.driftsNotApplied > 0 ? ` (${p.driftsNotApplied} refused)` : ''}</td>
<td class="num">${cell(p.readRho?.median, 3)} (${cell(p.readRho?.min, 3)}–${cell(p.readRho?.max, 3)})</td><td class="num">${cell(p.offsetMs?.median, 0)}</td>
<td>${p.disagree ? `<b>model and observation disagree</b><br>${runLinks(r, p)}` : ''}</td></tr>`,
    )
    .join('\n');
  const body = `
<h2>Observed against the model</h2>
<div class="plots" id="plots"></div>
<p class="note">Red dots: the share of runs in which two clients believed they held the lock at once, with its exact
(Clopper–Pearson) 95% interval dashed. Blue: the model's step, 1 where a clock at 1 + ρ outruns both the bound the
lock assumes and the hold. Purple: runs with a data violation${s.fencing ? ': with fencing on, any is a failure' : ''}.</p>
<h2>Points</h2>
<table id="points">
<thead><tr><th>ρ</th><th>TTL ms</th><th>hold ms</th><th>clients</th><th>the lock's bound</th><th>ρ covered</th><th>ρ breaking the hold</th><th>lease by true time, ms</th><th>model</th><th>two holders</th><th>exact 95%</th><th>runs invalid</th><th>data violations</th><th>drifts applied</th><th>ρ read back, median (min–max)</th><th>offset reached, ms</th><th>runs that show why</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p class="note">A lease granted once (a Redis key, each Redlock master's) lives TTL/(1 + ρ) of true time on a clock at 1 + ρ;
the client's drift allowance covers ρ ≤ drift/(TTL − drift), and a hold of h ms outlives the key once ρ &gt; TTL/h − 1. A lease
renewed k times a TTL (etcd's keepalives, ZooKeeper's pings: k = 3) lapses only once TTL/(1 + ρ) &lt; TTL/k, ρ &gt; k − 1.
The model leaves out the acquire's latency and whether a client is waiting when the key goes. ρ read back: each drift's
clock offset, read from the server at its end (Redis TIME; elsewhere the warp's own parameters), over its window;
a little under ρ, as the reading comes before the window closes.</p>`;
  return measurementPage(
    {
      title: `lockchaos sweep · clock drift · ${s.backend} · fencing ${s.fencing ? 'on' : 'off'}`,
      meta: escapeHtml(
        `${plural(s.trials, 'trial')} a point · ${s.timeLimitS} s runs · a fault every ~${s.nemesisIntervalS} s · hold ${s.holdMs} ms · seeds ${s.firstSeed}–${s.firstSeed + s.trials - 1} · started ${r.startedAt} · finished ${r.finishedAt}`,
      ),
      body,
      data: { points: r.points } satisfies DriftSweepPageData,
      script: {
        module: new URL('./browser/plots.js', import.meta.url),
        entry: 'driftPlots' satisfies keyof typeof import('./browser/plots.js'),
      },
    },
    generatedAt,
  );
}

/** The terminal table: one line a point. */
export function driftSweepTable(r: DriftSweepResult): string {
  const head = [
    'ρ',
    'TTL',
    'hold',
    'clients',
    'breaks at ρ',
    'model',
    'two holders',
    'exact 95%',
    'data viol.',
    'ρ read',
  ];
  const rows = r.points.map((p) => [
    rhoCell(p.rho),
    String(p.ttlMs),
    String(p.holdMs),
    String(p.concurrency),
    rhoCell(p.predicted.breakingRho),
    p.predicted.unsafe ? 'unsafe' : 'safe',
    `${p.observed.k}/${p.observed.n}`,
    interval(p.observed.clopperPearson),
    String(p.runsDataViolation),
    `${p.readRho ? cell(p.readRho.median, 3) : '-'}${p.disagree ? '  disagree' : ''}`,
  ]);
  return textTable(head, rows);
}
