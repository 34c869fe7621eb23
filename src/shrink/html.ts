/**
 * shrink.html: the original failing run and the smallest reproducer side by side (faults,
 * time, clients, operations, the violation in words), the command that reproduces it, and
 * every candidate the search tried. One self-contained page, no script.
 */
import { relative } from 'node:path';
import type { ScheduledFault } from '../nemesis/schedule.js';
import { cspMeta } from '../report/csp.js';
import { pageStyle } from '../report/page-assets.js';
import { escapeHtml } from '../report/page-html.js';
import type { FailingRun, ShrinkResult } from './result.js';
import type { Candidate } from './search.js';

function faultRows(faults: readonly ScheduledFault[]): string {
  if (faults.length === 0) return '<tr><td colspan="4" class="no">no faults</td></tr>';
  return faults
    .map(
      (f) =>
        `<tr><td>${escapeHtml(f.kind)}</td><td class="num">${(f.atMs / 1000).toFixed(2)} s</td><td class="num">${(f.durationMs / 1000).toFixed(2)} s</td><td><code>${escapeHtml(JSON.stringify(f.did ?? null))}</code></td></tr>`,
    )
    .join('\n');
}

function side(title: string, cls: string, c: Candidate, run: FailingRun, report: string): string {
  return `<div class="side ${cls}"><h2>${escapeHtml(title)}</h2>
<table><tr><th>faults</th><td>${c.faults.length}</td></tr>
<tr><th>time limit</th><td>${c.timeLimitS} s</td></tr>
<tr><th>clients</th><td>${c.concurrency}</td></tr>
<tr><th>operations</th><td>${run.operations.toLocaleString('en-US')}</td></tr>
<tr><th>violation</th><td class="violation">${escapeHtml(run.violation)}</td></tr>
<tr><th>report</th><td><a href="${escapeHtml(report)}">report.html</a></td></tr></table>
<h2>Faults</h2><table><tr><th>kind</th><th>at</th><th>for</th><th>what it did</th></tr>
${faultRows(c.faults)}</table></div>`;
}

export function shrinkHtml(r: ShrinkResult, minimal: FailingRun, reproduce: string): string {
  const href = (p: string) =>
    relative(r.out, p)
      .split('/')
      .map((x) => encodeURIComponent(x))
      .join('/');
  const start: Candidate = {
    faults: r.original.config.schedule,
    timeLimitS: r.original.config.timeLimitS,
    concurrency: r.original.config.concurrency,
  };
  const outcome = r.smaller
    ? `A smaller reproducer: ${r.best.faults.length} of ${start.faults.length} faults, ${r.best.timeLimitS} of ${start.timeLimitS} s, ${r.best.concurrency} of ${start.concurrency} clients.`
    : 'Nothing smaller failed often enough: the original is already minimal.';
  const ended = r.stoppedBy ? ` The search ended at its budget (${r.stoppedBy}) with the best found so far.` : '';
  const rows = r.tried
    .map((t, i) => {
      const hits = t.trials.filter((x) => x.invalid).length;
      const runs = t.trials
        .map((x) =>
          x.dir
            ? `<a href="${escapeHtml(href(x.dir))}/report.html">${escapeHtml(x.verdict)}</a>`
            : escapeHtml(x.verdict),
        )
        .join(' · ');
      return `<tr><td class="num">${i + 1}</td><td>${escapeHtml(t.step)}</td><td>${t.candidate.faults.length}</td><td class="num">${t.candidate.timeLimitS} s</td><td class="num">${t.candidate.concurrency}</td><td class="num">${hits} of ${t.trials.length}</td><td class="${t.kept ? 'kept' : 'no'}">${t.kept ? 'kept' : 'not kept'}</td><td>${runs}</td></tr>`;
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${cspMeta()}
<link rel="icon" href="data:,">
<title>shrink · ${escapeHtml(r.original.config.name)} · ${r.smaller ? 'smaller reproducer' : 'already minimal'}</title>
<style>${pageStyle('shrink')}</style></head><body>
<h1>Shrink of ${escapeHtml(r.original.config.name)} (seed ${r.original.config.seed})</h1>
<p id="outcome"><b>${escapeHtml(outcome)}</b>${escapeHtml(ended)} <span class="sub">${r.runs} runs in ${r.elapsedS} s; a candidate was kept when invalid in enough of its fresh runs.</span></p>
<p>Reproduce (fresh seeds each time):</p><pre id="reproduce">${escapeHtml(reproduce)}</pre>
<div class="sides">
${side('Original', 'original', start, r.original, href(`${r.original.dir}/report.html`))}
${side('Minimal', 'minimal', { ...r.best, faults: minimal.config.schedule }, minimal, href(`${r.minimalRun}/report.html`))}
</div>
<h2>Candidates tried</h2>
<table id="candidates"><tr><th>#</th><th>step</th><th>faults</th><th>time limit</th><th>clients</th><th>invalid</th><th></th><th>runs</th></tr>
${rows}</table>
</body></html>
`;
}
