/**
 * report.html: one self-contained page per run (all scripts, styles and data inline; it
 * loads nothing, and its Content-Security-Policy forbids loading anything and runs only
 * its own scripts). It shows the
 * verdict and the violation in words, a timeline of every client process with the
 * violation highlighted and scrolled to, the latency of each operation kind over time with
 * fault windows shaded (uPlot) and the perf figures in and out of faults, the checkers'
 * results, the configuration and seed, and the commands that run the test again.
 *
 * `writeRunReport(dir)` reads a run folder (also one whose runner was killed: then the
 * checkers run here on the recorded prefix) and writes report.html and junit.xml.
 */

import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { CoverageRow } from '../../checkers/coverage.js';
import { formatMs, formatPercent, type KindStats, type PhaseStats, perfDetailsOf } from '../../checkers/perf.js';
import { type CheckResult, verdictName, verdictWord } from '../../checkers/result.js';
import { warningsOf } from '../../checkers/words-registry.js';
import type { RunCondition } from '../runner/conditions.js';
import { type LoadedRun, loadRun, RUN_FILES } from '../runner/run-folder.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { storageError } from '../util/fs-errors.js';
import { cliCommand } from '../util/paths.js';
import { version } from '../version.js';
import type { ReportPageData } from './browser/report-page.js';
import { cspMeta, type InlineScript } from './csp.js';
import { headline } from './headline.js';
import { type PrepareOptions, prepareReport, type ReportData, type Violation } from './model.js';
import { pageScript, pageStyle, uplot } from './page-assets.js';
import { rerunCommands } from './rerun.js';
import { writeRunJUnit } from './run-junit.js';
import { stoppedEarlyLine } from './summary.js';

/** Colours per operation kind; other kinds take the extras in turn. */
const KIND_COLORS: Record<string, string> = {
  acquire: '#2563eb',
  read: '#0891b2',
  write: '#7c3aed',
  release: '#059669',
};
const EXTRA_COLORS = ['#db2777', '#ca8a04', '#4b5563', '#0d9488', '#9333ea'];

export function colorsFor(fs: readonly string[]): string[] {
  let extra = 0;
  return fs.map((f) => KIND_COLORS[f] ?? (EXTRA_COLORS[extra++ % EXTRA_COLORS.length] as string));
}

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Any value read from a file, as HTML text: a number in a JSON file may be a string. */
export const htmlText = (v: unknown) => escapeHtml(String(v));

/** JSON inside <script type="application/json">: nothing in it can close the element. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * The start of a self-contained page, up to its <title>: a Content-Security-Policy that
 * forbids loading anything and runs only `scripts` (csp.ts), and no favicon request.
 */
export const pageHead = (title: string, scripts: readonly InlineScript[]) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${cspMeta(scripts)}
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>`;

/** report.html's script, compiled beside this module (page-assets.ts). */
export const REPORT_SCRIPT = new URL('./browser/report-page.js', import.meta.url);

const NOT_COUNTED = ' — shown, not counted toward the verdict';

/**
 * How the page draws a violation: in red only when it counts; a shown-only one (an overlap
 * on a fenced run) in amber, dashed; a stale write the store turned away (what makes a
 * fenced run valid) in green. The page's script (browser/report-page.ts) has the same.
 */
export type ViolationStyle = 'counted' | 'not-counted' | 'kept-out';
export const violationStyle = (v: Violation): ViolationStyle =>
  v.counted ? 'counted' : v.kind === 'turned-away' ? 'kept-out' : 'not-counted';
const STYLE_COLORS: Record<ViolationStyle, string> = {
  counted: '#dc2626',
  'not-counted': '#d97706',
  'kept-out': '#15803d',
};
/** The focus box's title for a violation. */
const whoText = (v: Violation) =>
  v.kind === 'turned-away' && !v.counted
    ? 'fencing at work: the store rejected a stale write (why this run is valid)'
    : `${v.checker}${v.counted ? '' : NOT_COUNTED}`;
/** The header's second badge: INTERRUPTED, or NOT AS CONFIGURED for the other conditions. */
const conditionBadge = (conditions: readonly RunCondition[]) =>
  conditions.some((c) => c.kind === 'interrupted') ? 'INTERRUPTED' : 'NOT AS CONFIGURED';

function legendHtml(data: ReportData, colors: string[]): string {
  const kinds = data.fs.map(
    (f, i) => `<span><span class="sw" style="background:${colors[i]}"></span>${escapeHtml(f)}</span>`,
  );
  const c = '#64748b';
  const outcomes = [
    `<span><span class="sw" style="background:${c}"></span>ok</span>`,
    `<span><span class="sw" style="background:${c}33;border:1px dashed ${c}"></span>fail (certainly did not happen)</span>`,
    `<span><span class="sw" style="background:repeating-linear-gradient(45deg,${c} 0 2px,#fff 2px 4px);border:1px solid ${c}"></span>info (outcome unknown)</span>`,
    `<span><span class="sw" style="background:repeating-linear-gradient(45deg,${c}99 0 2px,#fff 2px 4px);border:1px dashed ${c}"></span>pending (never completed)</span>`,
  ];
  const others = [
    '<span><span class="sw" style="background:#f59e0b;height:5px;vertical-align:2px"></span>holds the lock (acquire ok → release)</span>',
    '<span><span class="sw" style="background:rgba(100,116,139,.25)"></span>fault window</span>',
    '<span><span class="sw" style="background:#94a3b8"></span>several operations (zoom in)</span>',
  ];
  // What the outline means: only what the page can show (a valid run has no violation to name).
  const styles = new Set(data.violations.map(violationStyle));
  if (styles.has('counted')) {
    others.push(
      `<span data-legend="counted"><span class="sw" style="background:#fff;border:2px solid ${STYLE_COLORS.counted}"></span>the violation</span>`,
    );
  }
  if (styles.has('not-counted')) {
    others.push(
      `<span data-legend="not-counted"><span class="sw" style="background:#fff;border:2px dashed ${STYLE_COLORS['not-counted']}"></span>${data.violations.some((v) => v.kind === 'turned-away') ? 'overlap, not counted: the store rejected the stale write' : 'shown, not counted toward the verdict'}</span>`,
    );
  }
  if (styles.has('kept-out')) {
    others.push(
      `<span data-legend="kept-out"><span class="sw" style="background:#fff;border:2px solid ${STYLE_COLORS['kept-out']}"></span>a stale write the store rejected (fencing at work)</span>`,
    );
  }
  return `<div class="legend">${[...kinds, ...outcomes, ...others].join('')}</div>`;
}

/**
 * The perf checker's figures as a table: per operation kind, all operations, those invoked
 * outside fault windows and those invoked during them. Empty for runs stored before perf.
 */
function perfTable(results: readonly CheckResult[]): string {
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
function coverageSection(rows: readonly CoverageRow[] | undefined): string {
  if (!rows?.length) return '';
  const body = rows
    .map((r) => {
      const reached = r.reached === undefined ? '?' : r.reached === 0 ? 'not exercised' : String(r.reached);
      const fault = r.fault === undefined ? ['–', '', ''] : [r.fault, String(r.hits), `${r.followed} of ${r.hits}`];
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

function checkerRows(results: readonly CheckResult[]): string {
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

function focusHtml(run: LoadedRun, data: ReportData): string {
  const v = data.focus >= 0 ? data.violations[data.focus] : undefined;
  if (!v) {
    if (run.valid === true) {
      return '<div class="callout ok"><div class="who">No violation</div>Every counted checker passed: the history shows no violation of the checked properties.</div>';
    }
    const undecided = run.results.filter((r) => r.valid === 'unknown').map((r) => `${r.checker}: ${r.summary}`);
    return `<div class="callout undecided"><div class="who">Undecided</div>${escapeHtml(undecided.join('; ') || 'the checkers could not decide')}</div>`;
  }
  const items = data.violations
    .map(
      (x, i) =>
        `<li data-violation-index="${i}" class="s-${violationStyle(x)}"><span class="tag">${escapeHtml(x.checker)}${x.counted ? '' : ' (not counted)'}</span>${escapeHtml(x.words)}</li>`,
    )
    .join('\n');
  const counted = data.violations.filter((x) => x.counted).length;
  const verdict =
    run.valid === true
      ? '<p class="verdict-line">Every counted checker passed. Shown below for information: what a checker that does not count toward the verdict found.</p>'
      : '';
  const list =
    data.violations.length > 1
      ? `<details${data.violations.length <= 12 ? ' open' : ''}><summary>${counted > 0 ? `${data.violations.length} violations listed (${counted} counted)` : `${data.violations.length} findings listed, none counted`}: click one to show it in the timeline</summary>
<ul id="violations-list">${items}</ul></details>`
      : '';
  const style = violationStyle(v);
  const box = style === 'counted' ? '' : style === 'kept-out' ? ' ok' : ' undecided';
  return `${verdict}<div class="callout${box}" id="focus-box" data-style="${style}"><div class="who" id="focus-checker">${escapeHtml(whoText(v))}</div><div id="focus-words">${escapeHtml(v.words)}</div><ol id="focus-marks" class="marks s-${style}"></ol></div>
${list}`;
}

/** The button that brings the focused finding back into view, named for what it is. */
function focusButton(data: ReportData): string {
  const v = data.violations[data.focus];
  if (!v) return 'Show the violation';
  const style = violationStyle(v);
  return style === 'counted' ? 'Show the violation' : style === 'kept-out' ? 'Show the rejected write' : 'Show it';
}

function configTable(run: LoadedRun): string {
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

function filesHtml(dir: string): string {
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

function renderReportHtml(run: LoadedRun, data: ReportData, sentence: string, generatedAt = new Date()): string {
  const { config } = run;
  const assets = uplot();
  const colors = colorsFor(data.fs);
  const rerun = rerunCommands(run.dir, config);
  const folder = resolve(run.dir);
  const started = /^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)/.exec(basename(folder));
  const sub = [
    `seed <b>${escapeHtml(String(config.seed))}</b>`,
    escapeHtml(config.backend),
    escapeHtml(config.workload),
    `nemesis ${escapeHtml(config.nemesis)}`,
    `fencing ${config.fencing ? 'on' : 'off'}`,
    `${escapeHtml(String(config.timeLimitS))} s`,
    `${data.stats.ops.toLocaleString('en-US')} history entries`,
    started ? `started ${started[1]} ${started[2]}:${started[3]}:${started[4]} UTC` : '',
  ].filter(Boolean);
  const banners: string[] = [];
  if (run.cutShort) {
    banners.push(
      `<div class="banner warn" id="cut-short"><b>Incomplete run.</b> ${escapeHtml(run.cutShort)}. The verdict below is about the operations recorded before the run stopped.</div>`,
    );
  }
  if (run.conditions.length > 0) {
    const items = run.conditions.map((c) => `<li>${escapeHtml(c.message)}</li>`).join('');
    banners.push(
      `<div class="banner warn" id="not-as-configured"><b>This run did not run as configured.</b> The verdict is about what did run; a violation found is real, but no violation is not the evidence this configuration was meant to give.<ul>${items}</ul></div>`,
    );
  }
  if (run.stoppedEarly) {
    banners.push(
      `<div class="banner note" id="stopped-early"><b>Stopped early.</b> ${escapeHtml(stoppedEarlyLine(run.stoppedEarly, config.timeLimitS))}. Healed, read and checked as usual.</div>`,
    );
  }
  for (const w of warningsOf(run.results)) {
    banners.push(`<div class="banner warn warning"><b>Warning.</b> ${escapeHtml(w)}</div>`);
  }
  for (const note of data.notes) banners.push(`<div class="banner note">${escapeHtml(note)}</div>`);
  const payload: ReportPageData = { ...data, colors };
  const scripts = [
    assets.script,
    pageScript(REPORT_SCRIPT, 'reportPage' satisfies keyof typeof import('./browser/report-page.js'), 'report-data'),
  ];
  return `${pageHead(`${verdictWord(run.valid)}${run.conditions.length ? ` (${conditionBadge(run.conditions)})` : ''} · ${config.name} · seed ${config.seed}`, scripts)}
<style>${assets.css}</style>
<style>${pageStyle('report')}${pageStyle('uplot-fonts')}</style>
</head>
<body data-verdict="${verdictName(run.valid)}">
<header>
<h1>${escapeHtml(config.name)} <span class="badge ${verdictName(run.valid)}" id="verdict">${verdictWord(run.valid)}</span>${run.conditions.length ? ` <span class="badge unknown" id="verdict-condition" title="${escapeHtml(run.conditions.map((c) => c.message).join('; '))}">${escapeHtml(conditionBadge(run.conditions))}</span>` : ''}</h1>
<p id="headline" class="headline ${verdictName(run.valid)}">${escapeHtml(sentence)}</p>
<div class="sub">${sub.join(' · ')}</div>
<div class="sub">run folder <code>${escapeHtml(folder)}</code></div>
</header>
<main>
${banners.join('\n')}
<section id="focus">
<h2>${run.valid === false ? 'What went wrong' : 'Verdict'}</h2>
${focusHtml(run, data)}
</section>
<section id="checkers">
<h2>Checkers</h2>
<table><thead><tr><th>checker</th><th>verdict</th><th>counted</th><th>summary</th></tr></thead>
<tbody>${checkerRows(run.results)}</tbody></table>
<p class="hint">The run's verdict is the worst of the counted checkers: INVALID beats unknown beats valid.${run.checkedHere ? ' These results were computed by the report, on the recorded history.' : ''}</p>
</section>
${coverageSection(run.coverage)}
<section id="timeline-section">
<h2>Timeline</h2>
<div class="timeline-head" id="timeline-head">
${legendHtml(data, colors)}
${data.focus >= 0 ? '<ol id="timeline-marks" class="marks" aria-label="the numbered badges in the timeline"></ol>' : ''}
<div class="toolbar">
<button id="btn-violation" type="button"${data.focus < 0 ? ' hidden' : ''}>${focusButton(data)}</button>
<button id="btn-all" type="button">Whole run</button>
<button id="btn-in" type="button">Zoom in</button>
<button id="btn-out" type="button">Zoom out</button>
<button id="btn-left" type="button" aria-label="earlier">◀</button>
<button id="btn-right" type="button" aria-label="later">▶</button>
<span id="view-range"></span>
</div>
</div>
<div id="timeline-wrap"><svg id="timeline" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="timeline of operations per client process"></svg></div>
<div id="op-details"></div>
<div class="hint">One lane per client process (a client takes a new process number after an operation with an unknown outcome). Each bar runs from an operation's invocation to its completion; the amber line under it is when the process believed it held the lock. Drag across the timeline to zoom in, double-click for the whole run, Ctrl+wheel to zoom, Shift+wheel to pan; click an operation for its details. Op numbers (#) are history.jsonl line numbers minus one.</div>
</section>
<section id="latency-section">
<h2>Latency by operation kind</h2>
<div id="latency"></div>
<div class="hint">Each point is one operation at its invocation time (acquire includes waiting for the lock). Shaded: fault windows; red dashed lines: the violation shown above. Drag across the plot to zoom both charts; click a kind in the legend to hide it.</div>
${perfTable(run.results)}
</section>
<section id="config">
<h2>Configuration and how to run it again</h2>
<div class="cols">
<div>${configTable(run)}</div>
<div>
<div>Run it again from its configuration:</div>
<pre id="rerun-replay">${escapeHtml(rerun.replay)}</pre>
<div>or with the equivalent flags:</div>
<pre id="rerun-flags">${escapeHtml(rerun.flags)}</pre>${rerun.unmapped.length ? `<div class="hint">test.json also sets ${escapeHtml(rerun.unmapped.join(', '))}, which these flags do not: --replay keeps them.</div>` : ''}
<div>Rebuild this report and junit.xml:</div>
<pre>${escapeHtml(`${cliCommand} report ${folder}`)}</pre>
<div style="margin-top:10px">Files of this run:</div>
${filesHtml(run.dir)}
</div>
</div>
</section>
<footer>lockchaos ${escapeHtml(version)} · report written ${escapeHtml(generatedAt.toISOString())} · latency chart: uPlot ${escapeHtml(assets.version)} (MIT)</footer>
</main>
<div id="tip" hidden></div>
<script type="application/json" id="report-data">${scriptJson(payload)}</script>
${scripts.map((x) => x.html).join('\n')}
</body>
</html>
`;
}

export interface RunReport {
  run: LoadedRun;
  reportPath: string;
  junitPath: string;
  /** The verdict in one sentence (headline.ts): the report's first line, and the summary's. */
  headline: string;
}

/** Reads the run folder, writes report.html and junit.xml; throws UserError on bad input. */
export function buildRunReport(
  dir: string,
  options: PrepareOptions = {},
  /** Called once the run is read and checked, just before its files are replaced. */
  beforeWrite?: () => void,
): RunReport {
  const run = loadRun(dir);
  const data = prepareReport(run.history, run.results, options);
  beforeWrite?.();
  const sentence = headline(
    { valid: run.valid, fenced: run.config.fencing, results: run.results, conditions: run.conditions },
    data,
  );
  const reportPath = join(dir, 'report.html');
  try {
    writeFileAtomic(reportPath, renderReportHtml(run, data, sentence));
    const junitPath = writeRunJUnit(run, resolve(reportPath));
    return { run, reportPath, junitPath, headline: sentence };
  } catch (err) {
    throw storageError(err, dir, 'free space there (what was there is kept), then report again') ?? err;
  }
}

/** Writes report.html (and junit.xml) into the run folder `dir`; returns report.html's path. */
export async function writeRunReport(dir: string): Promise<string> {
  return buildRunReport(dir).reportPath;
}
