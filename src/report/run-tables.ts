/**
 * report.html's tables of a run: the checkers' verdicts, the perf checker's figures in and
 * out of faults, the code points reached and the faults aimed at them, the configuration,
 * and the run folder's files.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type CoverageRow, holdLengthWords } from '../../checkers/coverage.js';
import { formatMs, formatPercent, type KindStats, type PhaseStats, perfDetailsOf } from '../../checkers/perf.js';
import { type CheckResult, verdictName, verdictWord } from '../../checkers/result.js';
import { type LoadedRun, RUN_FILES } from '../run-data/run-folder.js';
import { escapeHtml } from './page-html.js';

/**
 * The perf checker's figures as a table: per operation kind, all operations, those invoked
 * outside fault windows and those invoked during them. Empty for runs stored before perf.
 */
export function perfTable(results: readonly CheckResult[]): string {
  const details = perfDetailsOf(results);
  if (!details || Object.keys(details.kinds).length === 0) return '';
  const phases: [keyof KindStats, string][] =
    details.faultS > 0
      ? [
          ['all', 'all'],
          ['outside', 'outside faults'],
          ['during', `during faults (${details.faultS} of ${details.spanS} s)`],
        ]
      : [['all', 'all (no fault in effect)']];
  const ms = (x: number | undefined) => (x === undefined ? '–' : formatMs(x));
  const rows = Object.entries(details.kinds).flatMap(([f, k]) =>
    phases.map(([phase, label], i) => {
      const s: PhaseStats = k[phase];
      const l = s.latencyMs;
      return `<tr data-perf="${escapeHtml(f)}:${phase}"><td>${i === 0 ? escapeHtml(f) : ''}</td><td>${escapeHtml(label)}</td><td>${s.attempts}</td><td>${formatPercent(s.availability)}</td><td>${s.fail}</td><td>${s.info}</td><td>${ms(l?.p50)}</td><td>${ms(l?.p95)}</td><td>${ms(l?.p99)}</td><td>${ms(l?.max)}</td><td>${s.perSecond ?? '–'}</td></tr>`;
    }),
  );
  return `<table id="perf"><thead><tr><th>kind</th><th>invoked</th><th>attempts</th><th>ok</th><th>fail</th><th>info</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th><th>ok/s</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
<div class="hint">From the perf checker (not counted): outcomes of every client operation, and the latency of the ok ones, split by whether a fault was in effect when it was invoked. An operation that never completed counts as info.</div>`;
}

/** The code points (checkers/coverage.ts): reached, the faults aimed at them, hits and what followed. */
export function coverageSection(rows: readonly CoverageRow[] | undefined): string {
  if (!rows?.length) return '';
  const body = rows
    .map((r) => {
      const reached = r.reached === undefined ? '?' : r.reached === 0 ? 'not exercised' : String(r.reached);
      const fault =
        r.fault === undefined
          ? ['–', '', '']
          : [r.fault, `${r.hits}${holdLengthWords(r)}`, `${r.followed} of ${r.hits}`];
      return `<tr class="${r.fault !== undefined && r.hits === 0 ? 'not-hit' : ''}"><td><code>${escapeHtml(r.point)}</code></td><td>${escapeHtml(reached)}</td>${fault.map((x) => `<td>${escapeHtml(x)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  return `<section id="code-points">
<h2>Code points</h2>
<table><thead><tr><th>point</th><th>reached</th><th>fault aimed at it</th><th>hits</th><th>a violation followed</th></tr></thead>
<tbody>${body}</tbody></table>
<p class="hint">How often the clients reached each code point (the standard ones, a client program's own, each request they sent on the wire), and each fault aimed at one: how often it hit there, and how many hits a counted violation followed. A point no client reached was not exercised: the verdict says nothing about it.</p>
</section>`;
}

export function checkerRows(results: readonly CheckResult[]): string {
  return results
    .map((r) => {
      const counted = r.counts !== false;
      // A checker that does not count shows what it found, not a verdict: "INVALID" there
      // would read as a failure on a valid run (the terminal says "shown" too).
      const verdict = counted
        ? `<td class="v-${verdictName(r.valid)}">${verdictWord(r.valid)}</td>`
        : `<td class="v-shown" title="its own verdict, not counted: ${verdictName(r.valid)}">shown</td>`;
      return `<tr class="${counted ? 'counted' : 'not-counted'}" data-checker="${escapeHtml(r.checker)}"><td>${escapeHtml(r.checker)}</td>${verdict}<td>${counted ? 'yes' : 'no (shown for information)'}</td><td>${escapeHtml(r.summary)}</td></tr>`;
    })
    .join('\n');
}

export function configTable(run: LoadedRun): string {
  const rows = Object.entries(run.config).map(
    ([k, v]) =>
      `<tr><td>${escapeHtml(k)}</td><td><code>${escapeHtml(typeof v === 'string' ? v : JSON.stringify(v))}</code></td></tr>`,
  );
  if (run.timings) {
    rows.push(
      `<tr><td>run time</td><td>${run.timings.totalS.toFixed(1)} s (cluster start ${run.timings.clusterS.toFixed(1)} s)</td></tr>`,
    );
  }
  return `<table class="kv">${rows.join('')}</table>`;
}

export function filesHtml(dir: string): string {
  const { test, history, results, junit } = RUN_FILES;
  const links = [test, history, results, junit]
    .filter((n) => n === junit || existsSync(join(dir, n)))
    .map((n) => `<a href="${escapeHtml(n)}">${n}</a>`);
  try {
    for (const log of readdirSync(join(dir, RUN_FILES.nodes))
      .filter((n) => n.endsWith('.log'))
      .sort()) {
      links.push(`<a href="nodes/${encodeURIComponent(log)}">nodes/${escapeHtml(log)}</a>`);
    }
  } catch {
    // no node logs (the run did not get that far)
  }
  return `<div class="files">${links.join('')}</div>`;
}
