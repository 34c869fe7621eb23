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

import { basename, join, resolve } from 'node:path';
import { verdictName, verdictWord } from '../../checkers/result.js';
import { warningsOf } from '../../checkers/words-registry.js';
import type { RunCondition } from '../run-data/conditions.js';
import { type LoadedRun, loadRun } from '../run-data/run-folder.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { storageError } from '../util/fs-errors.js';
import { cliCommand } from '../util/paths.js';
import { version } from '../version.js';
import type { ReportPageData } from './browser/report-page/page-data.js';
import { focusButton, focusHtml, legendHtml } from './findings-html.js';
import { headline } from './headline.js';
import { pageScript, pageStyle, uplot } from './page-assets.js';
import { escapeHtml, pageHead, scriptJson } from './page-html.js';
import { type PrepareOptions, prepareReport } from './report-data.js';
import type { ReportData } from './report-data-types.js';
import { rerunCommands } from './rerun-commands.js';
import { writeRunJUnit } from './run-junit.js';
import { checkerRows, configTable, coverageSection, filesHtml, perfTable } from './run-tables.js';
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

/** report.html's script: its entry beside this module, bundled (page-assets.ts, page-bundle.ts). */
export const REPORT_SCRIPT = new URL('./browser/report-page.js', import.meta.url);

/** The header's second badge: INTERRUPTED, or NOT AS CONFIGURED for the other conditions. */
const conditionBadge = (conditions: readonly RunCondition[]) =>
  conditions.some((c) => c.kind === 'interrupted') ? 'INTERRUPTED' : 'NOT AS CONFIGURED';

function renderReportHtml(run: LoadedRun, data: ReportData, sentence: string, generatedAt = new Date()): string {
  const { config } = run;
  const assets = uplot();
  const colors = colorsFor(data.fs);
  // Paths on the page are from its own folder: a page copied by a merge, or downloaded
  // as a CI artifact, is read far from the machine that wrote it.
  const rerun = rerunCommands('.', config);
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
<div class="sub" id="run-folder">run folder: this page's folder, <code>${escapeHtml(basename(folder))}</code> (written at <code>${escapeHtml(folder)}</code> on the machine that ran it)</div>
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
<div>Run it again from its configuration, in the run's folder:</div>
<pre id="rerun-replay">${escapeHtml(rerun.replay)}</pre>
<div>or with the equivalent flags:</div>
<pre id="rerun-flags">${escapeHtml(rerun.flags)}</pre>${rerun.unmapped.length ? `<div class="hint">test.json also sets ${escapeHtml(rerun.unmapped.join(', '))}, which these flags do not: --replay keeps them.</div>` : ''}
<div>Rebuild this report and junit.xml, in the run's folder:</div>
<pre id="rerun-report">${escapeHtml(`${cliCommand} report .`)}</pre>
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
    { valid: run.valid, fencing: run.config.fencing, results: run.results, conditions: run.conditions },
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
