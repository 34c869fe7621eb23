/**
 * What a campaign shows: summary.html (one self-contained page), junit.xml (one test
 * case per run) and the terminal table, all from its summary (campaign-data: the record
 * summary.json holds, its one writer and reader), and its tallies as the record has them
 * (talliesOf: a record's own, a summary in memory's made once by the same rule).
 */

import { relative } from 'node:path';
import { verdictWord } from '../../checkers/result.js';
import type { Actual, Shard } from '../campaign-data/cell.js';
import type { FlipsSince } from '../campaign-data/flips.js';
import { progressText } from '../campaign-data/state.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { type ConfigurationTally, interrupted, type PointTally, talliesOf } from '../campaign-data/tallies.js';
import { cspMeta } from '../report/csp.js';
import { type JUnitCase, junitXml } from '../report/junit.js';
import { pageScript, pageStyle } from '../report/page-assets.js';
import { escapeHtml, htmlText } from '../report/page-html.js';
import { RUN_PHASES } from '../run-data/run-phases.js';
import { cliCommand } from '../util/paths.js';
import { plural } from '../util/plural.js';

/** One line a tally: the configuration, the point, how often reached and hit, what followed. */
export function pointTallyLine(t: PointTally, width = 0): string {
  const reach = t.reached === 0 ? 'not exercised' : `reached ${t.reached}×`;
  const hit =
    t.hits === 0 ? 'never hit' : `hit ${t.hits}× in ${t.runsHit} of ${t.runs} runs, a violation followed ${t.followed}`;
  return `${pad(t.configuration, width)}  ${t.point}  ${reach}  ${t.fault}: ${hit}`;
}

/** At most `n` missing cells in words, "#3 redis/lock-set/none/fenced/seed-2", and how many more. */
function missingList(s: Pick<CampaignSummary, 'missingCells'>, n: number): string[] {
  const cells = s.missingCells ?? [];
  const named = cells.slice(0, n).map((c) => `#${c.index + 1} ${c.id}`);
  return cells.length > n ? [...named, `and ${cells.length - n} more`] : named;
}

/**
 * The campaign's state in one line: "running: 3 of 39 cells, ...", "cut short by SIGINT:
 * 36 cells never ran", "failed: internal error: ...: 36 cells never ran", "finished".
 */
export function stateText(s: CampaignSummary): string {
  if (s.state === 'running')
    return `running: ${s.progress ? progressText(s.progress) : `${s.cells.length} cells done`}`;
  if (s.state === 'cut-short') {
    const n = talliesOf(s).notRun.length;
    return `cut short by ${s.cutShortBy ?? 'an interruption'}: ${plural(n, 'cell')} never ran`;
  }
  if (s.state === 'failed') {
    const n = talliesOf(s).notRun.length;
    return `failed: ${s.failedBy ?? 'an error'}${n ? `: ${plural(n, 'cell')} never ran` : ''}`;
  }
  return 'finished';
}

/** Whether the campaign ended before its cells did: cut short, or failed. */
const endedEarly = (s: CampaignSummary) => s.state === 'cut-short' || s.state === 'failed';

const shardText = (s: Shard | undefined) => (s ? ` shard ${s.index}/${s.count}` : '');

export function campaignJUnit(s: CampaignSummary): string {
  const cases: JUnitCase[] = s.cells.map((r) => {
    const where = [r.dir ? `run folder: ${r.dir}` : undefined, r.report ? `report: ${r.report}` : undefined]
      .filter((x) => x !== undefined)
      .join('\n');
    const c: JUnitCase = {
      name: r.cell.id,
      className: `campaign.${s.name}.${r.cell.backend}`,
      timeS: r.durationS,
    };
    if (interrupted(r)) {
      c.skipped = r.message;
    } else if (!r.met) {
      const checkers = (r.checkers ?? []).map(
        (k) => `  ${k.checker}: ${verdictWord(k.valid)}: ${k.summary}${k.counts ? '' : ' (not counted)'}`,
      );
      c.failure = {
        message: `${r.message}${r.report ? ` (report: ${r.report})` : ''}`,
        body: [r.message, `seed ${r.cell.seed}, ${r.durationS.toFixed(1)} s`, ...checkers, where]
          .filter((x) => x !== '')
          .join('\n'),
      };
    }
    if (where) c.systemOut = where;
    return c;
  });
  // Cells that have no case yet: a running campaign's still to come, a cut-short one's never run.
  const listed = new Set(s.cells.map((r) => r.cell.index));
  for (const m of talliesOf(s).notRun.filter((c) => !listed.has(c.index))) {
    cases.push({
      name: m.id,
      className: `campaign.${s.name}`,
      timeS: 0,
      skipped:
        s.state === 'running'
          ? 'not run yet: the campaign was running when this file was written'
          : `never ran: the campaign was ${stateText(s)}`,
    });
  }
  for (const m of s.missingCells ?? []) {
    cases.push({
      name: m.id,
      className: `campaign.${s.name}`,
      timeS: 0,
      skipped: `missing: cell ${m.index + 1} is in a shard that was not merged`,
    });
  }
  const properties: Record<string, string> = { state: s.state, 'state-text': stateText(s) };
  if (s.cutShortBy !== undefined) properties['cut-short-by'] = s.cutShortBy;
  if (s.failedBy !== undefined) properties['failed-by'] = s.failedBy;
  return junitXml([
    {
      name: `campaign ${s.name}${shardText(s.shard)}`,
      timestamp: s.startedAt.replace(/\.\d+Z$/, ''),
      properties,
      cases,
    },
  ]);
}

const pad = (s: string, n: number) => s.padEnd(n);
const seconds = (s: number) => (s > 0 ? `${s.toFixed(1)} s` : '-');
/** A verdict as verdictWord prints it; the other ends (error, aborted, not-run) as they are. */
const word = (a: Actual) => (a === 'invalid' ? verdictWord(false) : a);

/** The table printed at the end of a campaign. */
/**
 * Which cells stopped early, in one line ("3 of 8 cells stopped early, at their first counted
 * violation: #2 at 4.1 s, ..."): undefined when none did.
 */
export function stoppedEarlyLine(s: CampaignSummary, most = 10): string | undefined {
  const early = s.cells.filter((r) => r.stoppedEarlyS !== undefined);
  if (early.length === 0) return undefined;
  const listed = early.slice(0, most).map((r) => `#${r.cell.index + 1} at ${r.stoppedEarlyS} s`);
  const more = early.length > most ? `, and ${early.length - most} more` : '';
  return `${early.length} of ${plural(s.cells.length, 'cell')} stopped early, at their first counted violation: ${listed.join(', ')}${more}`;
}

/** Where the cells' time went, summed over the cells that recorded their phases. */
export function phasesLine(s: CampaignSummary): string | undefined {
  const timed = s.cells.filter((r) => r.phases !== undefined);
  if (timed.length === 0) return undefined;
  const sums = new Map<string, number>();
  for (const r of timed)
    for (const [phase, seconds] of Object.entries(r.phases ?? {})) sums.set(phase, (sums.get(phase) ?? 0) + seconds);
  const order = [...RUN_PHASES, 'report'];
  const parts = order.filter((p) => sums.has(p)).map((p) => `${p} ${Math.round(sums.get(p) ?? 0)} s`);
  return `time by phase over ${plural(timed.length, 'cell')}: ${parts.join(', ')}`;
}

export function terminalTable(s: CampaignSummary): string {
  const rows = s.cells.map((r) => [
    String(r.cell.index + 1),
    r.cell.id,
    r.cell.expect,
    word(r.actual),
    seconds(r.durationS),
    r.met ? 'ok' : 'MISMATCH',
  ]);
  const head = ['#', 'cell', 'expect', 'actual', 'time', 'result'];
  const widths = head.map((h, i) => rows.reduce((w, r) => Math.max(w, (r[i] as string).length), h.length));
  const line = (r: string[]) => r.map((x, i) => (i === r.length - 1 ? x : pad(x, widths[i] as number))).join('  ');
  const { totals: t, configurations: tallies, points, notRun: notYet } = talliesOf(s);
  const out = [line(head), ...rows.map(line)];
  if (tallies.some((c) => c.seeds > 1) || s.shard || s.missing) {
    const width = tallies.reduce((w, c) => Math.max(w, c.configuration.length), 0);
    out.push('', 'by configuration, over its seeds:');
    for (const c of tallies) {
      const notRun = c.seeds - c.ran;
      out.push(
        `  ${pad(c.configuration, width)}  expect ${pad(c.expect, 7)}  met ${c.met} of ${c.ran}${notRun ? ` (${notRun} not run)` : ''}`,
      );
    }
  }
  if (points.length > 0) {
    const width = points.reduce((w, c) => Math.max(w, c.configuration.length), 0);
    out.push('', 'code points, over each configuration’s seeds:');
    for (const t of points) out.push(`  ${pointTallyLine(t, width)}`);
  }
  if (s.missingCells?.length) {
    out.push('', 'missing (their shards were not merged):');
    for (const line of missingList(s, 20)) out.push(`  ${line}`);
  }
  const early = stoppedEarlyLine(s);
  if (early) out.push('', early);
  const phases = phasesLine(s);
  if (phases) out.push('', phases);
  const misses = s.cells.filter((r) => !r.met && !interrupted(r));
  if (misses.length) {
    out.push('', 'mismatches:');
    for (const r of misses)
      out.push(`  #${r.cell.index + 1} ${r.cell.id}: ${r.message}${r.report ? ` (${r.report})` : ''}`);
  }
  const notRun = endedEarly(s) ? notYet : [];
  if (notRun.length) {
    out.push('', `never ran (${stateText(s)}):`);
    for (const c of notRun.slice(0, 20)) out.push(`  #${c.index + 1} ${c.id}`);
    if (notRun.length > 20) out.push(`  and ${notRun.length - 20} more`);
  }
  out.push(
    '',
    `campaign ${s.name}${shardText(s.shard)}${s.state === 'running' ? ' (running)' : s.state === 'cut-short' ? ` (cut short by ${s.cutShortBy})` : s.state === 'failed' ? ` (failed: ${s.failedBy})` : ''}: ${plural(t.cells, 'cell')}${s.shard ? ` of ${s.totalCells}` : ''}, ${t.met} met their expectation` +
      (t.mismatched ? `, ${t.mismatched} did not` : '') +
      (t.errors ? `, ${t.errors} failed with an error` : '') +
      (t.interrupted ? `, ${t.interrupted} interrupted or not run` : '') +
      (s.missing ? `, ${s.missing} missing (their shards were not merged)` : ''),
    `campaign folder: ${s.dir}  (summary.html, summary.json, junit.xml)`,
  );
  return out.join('\n');
}

/** Rows in the order a reader wants them: mismatches and errors first, then interrupted, then met. */
const OUTCOME_ORDER = { miss: 0, skip: 1, met: 2 } as const;
const outcomeOf = (r: CellResult): keyof typeof OUTCOME_ORDER => (r.met ? 'met' : interrupted(r) ? 'skip' : 'miss');

/** "expected valid, got INVALID": a cell's message without the checkers' lines after it. */
const verdictPhrase = (message: string) => message.split(': ')[0] as string;

/**
 * What happened in a cell, as the job summary says it: its run's headline (one sentence,
 * report.html's first) leading, the verdict against the expectation after it, and the
 * checkers' lines (hundreds of characters) folded away; the message alone without a headline.
 */
function cellWhat(r: CellResult): string {
  if (r.headline === undefined) return htmlText(r.message);
  const phrase = verdictPhrase(r.message);
  if (phrase === r.message) return `<span class="headline">${htmlText(r.headline)}</span> (${htmlText(phrase)})`;
  return `<span class="headline">${htmlText(r.headline)}</span><details class="checkers"><summary>${htmlText(phrase)}</summary>${htmlText(r.message.slice(phrase.length + 2))}</details>`;
}

/** How many cells that did not meet their expectation the page names at its head. */
const LEADING_MISSES = 20;

/**
 * The page's lead, under its verdict: each cell that did not meet its expectation by its
 * run's headline (as the job summary names them), linked to its report.
 */
function missesLead(s: CampaignSummary, href: (p: string) => string): string {
  const misses = s.cells.filter((r) => !r.met && !interrupted(r));
  if (misses.length === 0) return '';
  const items = misses.slice(0, LEADING_MISSES).map((r) => {
    const id = `#${r.cell.index + 1} ${r.cell.id}`;
    const name = r.report ? `<a href="${escapeHtml(href(r.report))}">${htmlText(id)}</a>` : htmlText(id);
    const what =
      r.headline === undefined
        ? htmlText(r.message)
        : `<span class="headline">${htmlText(r.headline)}</span> (${htmlText(verdictPhrase(r.message))})`;
    return `<li>${name}: ${what}</li>`;
  });
  const more =
    misses.length > LEADING_MISSES ? `<li>and ${htmlText(misses.length - LEADING_MISSES)} more in the table</li>` : '';
  return `<section id="misses"><h2>Did not meet their expectation</h2><ul class="misses">${items.join('')}${more}</ul></section>`;
}

/** What flipped since the night before (flips.ts), as the job summary says it; nothing without a night before. */
function flipsSection(since: FlipsSince | undefined, night: string): string {
  if (since === undefined) return '';
  const head = `<h2>Flips since ${htmlText(since.night)}</h2>`;
  if (since.flips.length === 0) {
    return `<section id="flips">${head}<p class="note">No configuration changed its outcome since ${htmlText(since.night)}.</p></section>`;
  }
  const rows = since.flips
    .map(
      (f) =>
        `<tr><td><code>${htmlText(f.configuration)}</code></td><td>${htmlText(f.expect)}</td><td class="m-${f.before}">${htmlText(f.text.before)}</td><td class="m-${f.now}">${htmlText(f.text.now)}</td></tr>`,
    )
    .join('');
  return `<section id="flips">${head}<table class="flips"><thead><tr><th>configuration</th><th>expected</th><th>${htmlText(since.night)}</th><th>${htmlText(night)}</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** Shards a merged campaign came from, for its page's head ("merged from 3 shards"); empty for a campaign run as one. */
function mergedText(s: CampaignSummary): string {
  if (s.mergedShards !== undefined) return ` · merged from ${plural(s.mergedShards, 'shard')} (campaign merge)`;
  return s.missing !== undefined ? ' · merged from shards (campaign merge)' : '';
}

export interface SummaryHtmlOptions {
  /** The night before and what flipped since (flips.ts): the page names the flips. */
  since?: FlipsSince;
}

/**
 * A self-contained page: no external script or style, links relative to the campaign
 * folder. It leads with its verdict and the runs that did not meet their expectation by
 * their headlines, says whether it was merged from shards and what flipped since the
 * night before (when given). Rows are coloured by outcome (met or not), not by verdict: an
 * INVALID that was expected is a success. Mismatches come first; every column sorts on a click.
 */
export function summaryHtml(s: CampaignSummary, o: SummaryHtmlOptions = {}): string {
  const tallies = talliesOf(s);
  const t = tallies.totals;
  const href = (p: string) =>
    relative(s.dir, p)
      .split('/')
      .map((x) => encodeURIComponent(x))
      .join('/');
  const rows = [...s.cells]
    .sort((a, b) => OUTCOME_ORDER[outcomeOf(a)] - OUTCOME_ORDER[outcomeOf(b)] || a.cell.index - b.cell.index)
    .map((r) => {
      const c = r.cell;
      const status = outcomeOf(r);
      const links = [
        r.report ? `<a href="${escapeHtml(href(r.report))}">report</a>` : '',
        r.dir ? `<a href="${escapeHtml(href(r.dir))}/">folder</a>` : '',
        r.shrink ? `<a href="${escapeHtml(href(r.shrink))}" class="shrink">smallest reproducer</a>` : '',
      ]
        .filter(Boolean)
        .join(' · ');
      return `<tr class="${status}">
<td data-key="${htmlText(c.index + 1)}">${htmlText(c.index + 1)}</td><td>${htmlText(c.backend)}</td><td>${htmlText(c.workload)}</td><td>${htmlText(c.scenario ? `scenario ${c.scenario}` : c.nemesis)}</td><td>${c.fencing ? 'on' : 'off'}</td><td>${htmlText(c.seed)}</td>
<td>${htmlText(c.expect)}</td><td class="o-${status}">${htmlText(word(r.actual))}</td><td class="o-${status}" data-key="${OUTCOME_ORDER[status]}">${r.met ? '✓ met' : status === 'skip' ? '– not run' : '✗ not met'}</td>
<td class="num" data-key="${htmlText(r.durationS)}"${r.stoppedEarlyS !== undefined ? ` title="workload stopped at ${htmlText(r.stoppedEarlyS)} s: ${htmlText(r.stoppedEarlyWhy ?? 'its first counted violation')}"` : ''}>${htmlText(seconds(r.durationS))}${r.stoppedEarlyS !== undefined ? ' <span class="early">stopped early</span>' : ''}</td><td class="msg">${cellWhat(r)}</td><td>${links}</td></tr>`;
    })
    .join('\n');
  const verdict =
    s.state !== 'finished'
      ? stateText(s)
      : s.met
        ? 'every cell met its expectation'
        : s.missing && t.cells === t.met
          ? `${s.missing} of ${s.totalCells} cells missing: their shards were not merged`
          : `${t.cells - t.met} of ${plural(t.cells, 'cell')} did not meet their expectation`;
  const sortable = pageScript(
    new URL('../report/browser/sortable-tables.js', import.meta.url),
    'sortableTables' satisfies keyof typeof import('../report/browser/sortable-tables.js'),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
${cspMeta([sortable])}
<title>lockchaos campaign ${escapeHtml(s.name)}${escapeHtml(shardText(s.shard))}</title>
<style>${pageStyle('campaign-summary')}</style></head><body>
<h1>Campaign ${escapeHtml(s.name)}${escapeHtml(shardText(s.shard))}</h1>
<p class="meta">${s.description ? `${htmlText(s.description)}<br>` : ''}from ${htmlText(s.source)} · ${plural(t.cells, 'cell')}${s.shard ? ` of ${htmlText(s.totalCells)}` : ''} · started ${htmlText(s.startedAt)}${s.finishedAt ? ` · ended ${htmlText(s.finishedAt)}` : ''}${mergedText(s)}</p>
<p><span class="verdict ${s.state === 'running' ? 'running' : s.state === 'cut-short' ? 'cut' : s.met ? 'ok' : 'bad'}" id="state" data-state="${s.state}">${escapeHtml(verdict)}</span>
 ${htmlText(t.met)} met · ${htmlText(t.mismatched)} mismatched · ${htmlText(t.errors)} errors${t.interrupted ? ` · ${htmlText(t.interrupted)} interrupted or not run` : ''}${s.missing ? ` · ${htmlText(s.missing)} missing (shards not merged)` : ''}</p>
${missesLead(s, href)}
${flipsSection(o.since, s.startedAt.slice(0, 10))}
${pointsTable(tallies.points)}
${tallyTable(tallies.configurations, Boolean(s.shard) || Boolean(s.missing))}
${stateNote(s)}
${s.missingCells?.length ? `<p class="missing">Missing, their shards not merged: ${missingList(s, 50).map(escapeHtml).join(' · ')}</p>` : ''}
<table class="sortable" id="cells">
<thead><tr><th>#</th><th>backend</th><th>workload</th><th>faults</th><th>fencing</th><th>seed</th><th>expected</th><th>actual</th><th>outcome</th><th>time</th><th>what happened</th><th>run</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p class="meta">Mismatches first; click a column's head to sort by it. Each run's folder holds test.json (enough to re-run it: <code>${cliCommand} run --replay FOLDER</code>), history.jsonl, results.json and nodes/*.log.</p>
${sortable.html}
</body></html>
`;
}

/**
 * Below the headline: a running campaign's page says how to tell it from a stopped one; a
 * cut-short or failed one names the cells that never ran.
 */
function stateNote(s: CampaignSummary): string {
  if (s.state === 'running') {
    return `<p class="note" id="state-note">As of ${htmlText(s.updatedAt ?? s.startedAt)}: this page is rewritten as cells finish. If it stays like this, the runner was stopped; <code>${cliCommand} serve</code> tells the two apart.</p>`;
  }
  if (!endedEarly(s)) return '';
  const notRun = talliesOf(s).notRun;
  if (notRun.length === 0) return '';
  const items = notRun.map((c) => `<li>#${htmlText(c.index + 1)} ${htmlText(c.id)}</li>`).join('');
  return `<details class="never-ran" id="never-ran" open><summary>${htmlText(plural(notRun.length, 'cell'))} never ran</summary><ul>${items}</ul></details>`;
}

/** The code points faults were aimed at, by configuration (none: no such fault, no table). */
function pointsTable(tallies: PointTally[]): string {
  if (tallies.length === 0) return '';
  const n = (x: number) => `<td class="num">${htmlText(x)}</td>`;
  const rows = tallies
    .map(
      (t) =>
        `<tr class="${t.reached === 0 || t.hits === 0 ? 'miss' : 'met'}"><td>${htmlText(t.configuration)}</td><td>${htmlText(t.point)}</td><td>${htmlText(t.fault)}</td>${t.reached === 0 ? '<td>not exercised</td>' : n(t.reached)}${n(t.hits)}<td class="num">${htmlText(t.runsHit)} of ${htmlText(t.runs)}</td>${n(t.followed)}</tr>`,
    )
    .join('\n');
  return `<h2>Code points, over each configuration's seeds</h2>
<table class="tally">
<thead><tr><th>configuration</th><th>point</th><th>fault</th><th>reached</th><th>hits</th><th>runs hit</th><th>a violation followed</th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

/** The per-configuration tally, when some configuration ran more than one seed (or in a shard). */
function tallyTable(tallies: ConfigurationTally[], always = false): string {
  if (!always && !tallies.some((c) => c.seeds > 1)) return '';
  const rows = tallies
    .map(
      (c) =>
        `<tr class="${c.met === c.ran ? 'met' : 'miss'}"><td>${htmlText(c.configuration)}</td><td>${htmlText(c.expect)}</td><td class="num">${htmlText(c.met)} of ${htmlText(c.ran)}</td><td class="num">${htmlText(c.seeds - c.ran || '')}</td></tr>`,
    )
    .join('\n');
  return `<h2>By configuration, over its seeds</h2>
<table class="tally">
<thead><tr><th>configuration</th><th>expected</th><th>met</th><th>not run</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>Every run</h2>`;
}
