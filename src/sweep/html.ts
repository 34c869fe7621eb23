/**
 * sweep.html: observed P(two holders) against the formula's prediction, one plot per TTL
 * and concurrency (x: the pause as a multiple of the TTL), a table of every point, and
 * for points where the two disagree, the runs that show why, linked to their reports.
 */
import { relative } from 'node:path';
import { cell, measurementPage } from '../report/measure-page.js';
import { escapeHtml } from '../report/page-html.js';
import type { Interval } from '../stats/binomial-interval.js';
import { plural } from '../util/plural.js';
import { stamped } from '../version.js';
import type { PointResult, SweepRun } from './analyse.js';
import type { SweepPageData } from './browser/plots.js';
import type { SweepSpec } from './grid.js';

export interface SweepResult {
  spec: SweepSpec;
  /** The campaign folder (sweep.json and sweep.html are written there). */
  dir: string;
  startedAt: string;
  finishedAt: string;
  points: PointResult[];
}

/** A 95% interval for a table cell, or an en dash for none. */
export const interval = (i: Interval | null) => (i ? `${cell(i.low)}–${cell(i.high)}` : '–');

/** A run folder's link from the sweep's folder (each part encoded). */
export const runHref = (sweepDir: string, runDir: string) =>
  relative(sweepDir, runDir)
    .split('/')
    .map((x) => encodeURIComponent(x))
    .join('/');

function runLinks(r: SweepResult, runs: readonly SweepRun[]): string {
  const href = (p: string) => runHref(r.dir, p);
  return runs
    .map((run) => {
      const why =
        run.outlived > 0
          ? `${run.outlived} of ${run.pauses} pauses outlived the lease, no two holders`
          : `two holders (${run.overlaps} overlaps), no pause outlived the lease`;
      return `<a href="${escapeHtml(href(run.dir))}/report.html">seed ${run.seed}</a> <span class="note">(${escapeHtml(why)})</span>`;
    })
    .join('<br>');
}

export function sweepHtml(r: SweepResult, generatedAt = new Date()): string {
  const s = r.spec;
  const rows = r.points
    .map((p) => {
      const odd = p.runs.filter((x) => x.disagrees);
      return `<tr class="${p.disagree ? 'disagree' : ''}">
<td class="num">${p.pauseTtl}</td><td class="num">${p.ttlMs}</td><td class="num">${p.concurrency}</td>
<td class="num">${p.observed.k} / ${p.observed.n}</td><td class="num">${cell(p.observed.p)}</td><td class="num">${interval(p.observed.wilson)}</td><td class="num">${interval(p.observed.clopperPearson)}</td>
<td class="num">${cell(p.predicted?.p)}</td><td class="num">${p.predicted ? `${cell(p.predicted.low)}–${cell(p.predicted.high)}` : '–'}</td>
<td class="num">${p.runsInvalid}</td><td class="num${p.runsDataViolation > 0 && s.fencing ? ' bad' : ''}">${p.runsDataViolation}</td>
<td class="num">${cell(p.violationsPerHold, 3)}</td><td class="num">${cell(p.violationsPerPause, 2)}</td>
<td class="num">${p.pauses.k} / ${p.pauses.n}</td><td class="num">${cell(p.pauses.measuredMs?.median, 0)} (${cell(p.pauses.measuredMs?.min, 0)}–${cell(p.pauses.measuredMs?.max, 0)})</td>
<td class="num">${cell(p.pauses.validityLeftMs?.median, 0)}</td><td class="num">${cell(p.validityMs?.median, 0)}</td>
<td>${p.disagree ? `<b>formula and observation disagree</b><br>${runLinks(r, odd.length > 0 ? odd : p.runs)}` : odd.length > 0 ? runLinks(r, odd) : ''}</td></tr>`;
    })
    .join('\n');
  const body = `
<h2>Observed against the formula</h2>
<div class="plots" id="plots"></div>
<p class="note">Red dots: the share of runs in which two clients believed they held the lock at once, with its exact
(Clopper–Pearson) 95% interval dashed. Blue: the formula P = 1 − Π(1 − P(Pause<sub>i</sub> &gt; T<sub>valid</sub>)), with
P(Pause &gt; T<sub>valid</sub>) the share of this point's pauses, as measured from the nemesis's start and stop, that
outlived the validity their holder believed it had left, and the product over each run's pauses.
Purple: runs with a data violation (lost update, stale token accepted)${s.fencing ? ': with fencing on, any is a failure' : ''}.</p>
<h2>Points</h2>
<table id="points">
<thead><tr><th>pause/TTL</th><th>TTL ms</th><th>clients</th><th>two holders</th><th>P</th><th>Wilson 95%</th><th>exact 95%</th><th>formula</th><th>formula range</th><th>runs invalid</th><th>data violations</th><th>overlaps per hold</th><th>overlaps per pause</th><th>pauses outliving lease</th><th>pause ms, median (min–max)</th><th>validity left at pause, ms</th><th>validity at grant, ms</th><th>runs that show why</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p class="note">The formula assumes pauses independent of each other, a fixed T<sub>valid</sub> (the holder's belief: for Redlock
TTL − elapsed − drift, so clock drift on the masters enters only through that term) and that a pause outliving
T<sub>valid</sub> is a violation: someone acquires before the paused holder wakes. A run where a pause outlived its lease
but nobody acquired in the gap (or the reverse: two holders with no pause outliving its lease) is linked above.
Overlaps count pairs of overlapping beliefs, as the mutual-exclusion checker does.</p>`;
  return measurementPage(
    {
      title: `lockchaos sweep · ${s.backend} · fencing ${s.fencing ? 'on' : 'off'}`,
      meta: escapeHtml(
        `${plural(s.trials, 'trial')} a point · ${s.timeLimitS} s runs · a client pause every ~${s.nemesisIntervalS} s · hold ${s.holdMs} ms · seeds ${s.firstSeed}–${s.firstSeed + s.trials - 1} · started ${r.startedAt} · finished ${r.finishedAt}`,
      ),
      body,
      data: { points: r.points } satisfies SweepPageData,
      script: {
        module: new URL('./browser/plots.js', import.meta.url),
        entry: 'sweepPlots' satisfies keyof typeof import('./browser/plots.js'),
      },
    },
    generatedAt,
  );
}

/** sweep.json: the points with run folders relative to the sweep's folder, so it can move. */
export function sweepJson<R extends { dir: string; points: readonly { runs: readonly { dir: string }[] }[] }>(
  r: R,
): string {
  const rel = (p: string) => relative(r.dir, p);
  return `${JSON.stringify(
    stamped({
      ...r,
      dir: undefined,
      points: r.points.map((p) => ({ ...p, runs: p.runs.map((run) => ({ ...run, dir: rel(run.dir) })) })),
    }),
    null,
    2,
  )}\n`;
}
