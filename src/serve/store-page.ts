/**
 * The page `lockchaos serve` answers at /: the nights' campaigns with their tallies, each
 * configuration's outcome night by night as a row of marks (a flip stands out), and every
 * run, filtered by a plain GET form (no script needed), newest first. Links go to the
 * store's own pages under /files/.
 */

import { MARK_TEXT } from '../campaign-data/mark.js';
import { progressText } from '../campaign-data/state.js';
import { htmlText } from '../report/page-html.js';
import { plural } from '../util/plural.js';
import {
  type CampaignEntry,
  type CampaignTrend,
  filterRuns,
  type RunEntry,
  type RunFilter,
  type StoreIndex,
} from './store-index.js';

/** Rows of the runs table drawn at most; a filter narrows the rest. */
export const RUNS_SHOWN = 500;

/** Everything on the page but its own markup comes from the store's files: escaped, whatever its type. */
const h = htmlText;

/** A store path as a link under /files/, each segment encoded. */
export const fileHref = (path: string) => `/files/${path.split('/').map(encodeURIComponent).join('/')}`;

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1f24; }
h1 { font-size: 1.4em; margin: 0 0 .2em; } h2 { font-size: 1.15em; margin: 1.6em 0 .4em; }
.meta { color: #57606a; }
table { border-collapse: collapse; margin: .3em 0; }
th, td { border-bottom: 1px solid #d0d7de; padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
th { font-weight: 600; }
td.num { text-align: right; }
.valid, .met { color: #1a7f37; } .invalid, .not-met { color: #cf222e; font-weight: 600; }
.unknown, .flaky { color: #9a6700; } .none, .not-run { color: #8c959f; }
.running { color: #1f4a7a; } .cut-short { color: #6b4d00; } .failed { color: #cf222e; }
td.mark a { color: inherit; text-decoration: none; display: block; }
td.mark a:hover { background: #eaeef2; }
td.mark { text-align: center; font-size: 1.1em; padding: 3px 6px; }
tr.flipped td.configuration::after { content: " flipped"; color: #cf222e; font-size: .8em; font-weight: 600; }
tr.flipped { background: #fff1f0; }
form.filter label { margin-right: .8em; }
form.filter input[type=text] { width: 9em; }
.note { color: #57606a; font-size: .9em; }
`;

/**
 * A campaign's outcome: met or not once finished; a running one says how far it is, a
 * cut-short one by what and which cells never ran (neither is a failure in red), and a
 * failed one (its runner ended in an internal error) the error, in red, and the same list.
 */
function outcomeCell(c: CampaignEntry): string {
  if (c.state === 'running') {
    const p = c.progress;
    return `<td class="running">running${p ? `: ${h(progressText(p))}` : ''}</td>`;
  }
  if (c.state === 'cut-short' || c.state === 'failed') {
    const list = c.notRun
      .slice(0, 200)
      .map((x) => `<li>#${h(x.index + 1)} ${h(x.id)}</li>`)
      .join('');
    const more = c.notRun.length > 200 ? `<li>and ${h(c.notRun.length - 200)} more</li>` : '';
    const what =
      c.state === 'failed'
        ? `failed: ${h(c.failedBy ?? 'an error')}`
        : `cut short by ${h(c.cutShortBy ?? 'an interruption')}`;
    return `<td class="${c.state}">${what}${
      c.notRun.length
        ? `<details class="never-ran"><summary>${h(plural(c.notRun.length, 'cell'))} never ran</summary><ul>${list}${more}</ul></details>`
        : ''
    }</td>`;
  }
  return `<td class="${c.met ? 'met' : 'not-met'}">${c.met ? 'met' : 'not met'}</td>`;
}

function nightsSection(campaigns: readonly CampaignEntry[]): string {
  if (campaigns.length === 0) return '<h2>Campaigns</h2><p class="note">No campaign in this store.</p>';
  const rows = campaigns.map((c) => {
    const links = [
      c.summaryHtml ? `<a href="${fileHref(`${c.path}/summary.html`)}">summary</a>` : '',
      c.page ? `<a href="${fileHref(`${c.path}/${c.page}`)}">${c.page.replace('.html', '')}</a>` : '',
      `<a href="${fileHref(`${c.path}/`)}">folder</a>`,
    ].filter(Boolean);
    const t = c.totals;
    return `<tr data-campaign="${h(c.path)}" data-state="${h(c.state)}"><td>${h(c.night)}</td><td>${h(c.name)}${c.shard ? ` <span class="note">shard ${h(c.shard)}</span>` : ''}${c.merged ? ' <span class="note">merged</span>' : ''}</td>
${outcomeCell(c)}<td class="num">met ${h(t.met)} of ${h(t.cells)}</td>
<td class="num">${h(t.mismatched)}</td><td class="num">${h(t.errors)}</td><td class="num">${h(t.interrupted)}</td>
<td class="note">${h(c.startedAt)}</td><td>${links.join(' · ')}</td></tr>`;
  });
  return `<h2>Campaigns by night</h2>
<table id="campaigns"><thead><tr><th>night</th><th>campaign</th><th>outcome</th><th>tally</th><th>mismatched</th><th>errors</th><th>interrupted</th><th>started</th><th></th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function trendTable(t: CampaignTrend): string {
  const head = t.nights.map((n) => `<th class="mark">${h(n.slice(5))}</th>`).join('');
  const rows = t.rows.map((r) => {
    const marks = r.marks
      .map((m) => {
        const { symbol, word } = MARK_TEXT[m.mark];
        const title = `${m.night}: ${word}${m.ran ? ` (${m.met} of ${m.ran} runs met ${r.expect})` : ''}`;
        // The night's runs of this configuration, in the runs list below.
        const query = new URLSearchParams({ campaign: t.name, configuration: r.configuration, night: m.night });
        const mark = m.mark === 'not-run' ? symbol : `<a href="/?${h(query.toString())}#runs">${symbol}</a>`;
        return `<td class="mark ${m.mark}" data-mark="${m.mark}" title="${h(title)}">${mark}</td>`;
      })
      .join('');
    const cls = [r.flipped ? 'flipped' : '', r.flaky ? 'flaky-row' : ''].filter(Boolean).join(' ');
    return `<tr data-configuration="${h(r.configuration)}"${cls ? ` class="${cls}"` : ''}><td class="configuration">${h(r.configuration)}</td><td>${h(r.expect)}</td>${marks}</tr>`;
  });
  return `<h3>${h(t.name)}</h3>
<table class="trend" data-trend="${h(t.name)}"><thead><tr><th>configuration</th><th>expects</th>${head}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function trendsSection(trends: readonly CampaignTrend[]): string {
  if (trends.length === 0) return '';
  return `<h2>Configurations over the nights</h2>
<p class="note">One column a night: ● every run met its expectation, ✕ none did, ◐ some did (flaky), · not run; each mark opens that night's runs of its configuration.
A configuration whose last night differs from the night before is marked <span class="invalid">flipped</span> and listed first.</p>
${trends.map(trendTable).join('\n')}`;
}

function select(name: keyof RunFilter, label: string, options: readonly string[], value: string | undefined): string {
  const opts = ['', ...options]
    .map((o) => `<option value="${h(o)}"${o === (value ?? '') ? ' selected' : ''}>${o === '' ? 'any' : h(o)}</option>`)
    .join('');
  return `<label>${label} <select name="${name}">${opts}</select></label>`;
}

/**
 * A campaign run's outcome against its expectation: an INVALID that was expected is met
 * (green), so the verdict's red is not read as a failure. A run of no campaign: empty.
 */
function metCell(r: RunEntry): string {
  if (r.met === undefined) return '<td class="met-cell"></td>';
  return r.met ? '<td class="met-cell met">✓ met</td>' : '<td class="met-cell not-met">✗ not met</td>';
}

const distinct = (runs: readonly RunEntry[], pick: (r: RunEntry) => string) => [...new Set(runs.map(pick))].sort();

function runsSection(runs: readonly RunEntry[], filter: RunFilter): string {
  const matching = filterRuns(runs, filter);
  const shown = matching.slice(0, RUNS_SHOWN);
  const form = `<form class="filter" method="get" action="/">
${select('verdict', 'verdict', ['invalid', 'unknown', 'valid', 'none'], filter.verdict)}
${select(
  'backend',
  'backend',
  distinct(runs, (r) => r.backend),
  filter.backend,
)}
${select(
  'nemesis',
  'nemesis',
  distinct(runs, (r) => r.nemesis),
  filter.nemesis,
)}
${select('fencing', 'fencing', ['on', 'off'], filter.fencing)}
<label>seed <input type="text" name="seed" value="${h(filter.seed ?? '')}" size="6"></label>
<label>name <input type="text" name="text" value="${h(filter.text ?? '')}"></label>
${(['campaign', 'configuration', 'night'] as const)
  .filter((k) => filter[k])
  .map((k) => `<input type="hidden" name="${k}" value="${h(filter[k])}">`)
  .join('')}
<button type="submit">filter</button> <a href="/">clear</a></form>
${
  filter.configuration || filter.night || filter.campaign
    ? `<p class="note" id="cell-filter">Runs of ${h([filter.campaign, filter.configuration, filter.night].filter(Boolean).join(' · '))} (from a mark): <a href="/">all runs</a></p>`
    : ''
}`;
  const rows = shown.map((r) => {
    const links = [
      r.report ? `<a class="report" href="${fileHref(`${r.path}/report.html`)}">report</a>` : '',
      r.shrink ? `<a href="${fileHref(`${r.path}/shrink/shrink.html`)}">shrink</a>` : '',
      `<a href="${fileHref(`${r.path}/`)}">folder</a>`,
    ].filter(Boolean);
    const verdict = r.verdict === 'none' ? 'no verdict' : r.verdict === 'invalid' ? 'INVALID' : r.verdict;
    const campaign = r.campaign
      ? `<a href="${fileHref(`${r.campaign}/summary.html`)}">${h(r.campaign.split('/').slice(-2).join('/'))}</a>`
      : '';
    return `<tr data-run="${h(r.path)}" data-verdict="${h(r.verdict)}"><td class="note">${h(r.startedAt || '?')}</td><td>${h(r.name)}</td>
<td class="${h(r.verdict)}">${h(verdict)}${r.conditions.length ? ` <span class="note" title="${h(r.conditions.join('; '))}">(not as configured)</span>` : ''}</td>
<td>${h(r.backend)}</td><td>${h(r.nemesis)}</td><td>${r.fencing ? 'on' : 'off'}</td><td class="num">${h(r.seed ?? '')}</td>
<td class="expected">${h(r.expect ?? '')}</td>${metCell(r)}
<td>${campaign}</td><td>${links.join(' · ')}</td></tr>`;
  });
  const count =
    matching.length > shown.length
      ? `showing the newest ${shown.length} of ${matching.length} matching runs (of ${runs.length}): narrow the filter for the rest`
      : `${matching.length} of ${runs.length} runs`;
  return `<h2>Runs</h2>
${form}
<p class="note" id="runs-count">${count}</p>
<table id="runs"><thead><tr><th>started</th><th>test</th><th>verdict</th><th>backend</th><th>nemesis</th><th>fencing</th><th>seed</th><th>expected</th><th>met</th><th>campaign</th><th></th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

/** The whole page for an index and the filter from the query string. */
export function storePage(index: StoreIndex, filter: RunFilter, version: string): string {
  const problems = index.problems.length
    ? `<details class="note"><summary>${index.problems.length} folder${index.problems.length > 1 ? 's' : ''} could not be read</summary><ul>${index.problems
        .slice(0, 100)
        .map((p) => `<li>${h(p)}</li>`)
        .join('')}</ul></details>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lockchaos store: ${h(index.store)}</title>
<style>${STYLE}</style></head>
<body data-ready="true">
<h1>lockchaos store</h1>
<p class="meta">${h(index.store)}: ${plural(index.runs.length, 'run')}, ${plural(index.campaigns.length, 'campaign folder')}; read in ${Math.round(index.scanMs)} ms · lockchaos ${h(version)}</p>
${problems}
${nightsSection(index.campaigns)}
${trendsSection(index.trends)}
${runsSection(index.runs, filter)}
</body></html>
`;
}
