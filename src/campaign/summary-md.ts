/**
 * A campaign in Markdown, for the page a CI run opens on (GitHub Actions' job summary,
 * $GITHUB_STEP_SUMMARY): the tally, the configurations that did not meet their
 * expectation with their headline and where their report is in the artifact, what flipped
 * since the previous night when there is one, and the cells that never ran. A reader sees
 * what failed without downloading the artifact.
 */
import { dirname, relative } from 'node:path';
import { flips, nightOf } from '../campaign-data/flips.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { talliesOf } from '../campaign-data/tallies.js';
import { plural } from '../util/plural.js';
import { stateText, stoppedEarlyLine } from './report.js';

export interface SummaryMdOptions {
  /** The night before, to name the configurations whose outcome changed. */
  previous?: CampaignSummary;
  /** The folder the artifact holds at its root: report paths are shown relative to it (default: the campaign's). */
  artifactRoot?: string;
  /** Where the artifact can be downloaded (under GitHub Actions: the run's page). */
  artifactUrl?: string;
  /** The Markdown file's own folder: without an artifact URL, links are relative to it. */
  fileDir?: string;
}

/** Text in a table cell: one line, no pipe or markup to break the table. */
const cell = (s: string) =>
  s
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;

export function summaryMarkdown(s: CampaignSummary, o: SummaryMdOptions = {}): string {
  const tallies = talliesOf(s);
  const t = tallies.totals;
  const shard = s.shard ? ` shard ${s.shard.index}/${s.shard.count}` : '';
  const outcome =
    s.state !== 'finished'
      ? stateText(s)
      : s.met
        ? 'every cell met its expectation'
        : `${t.cells - t.met + (s.missing ?? 0)} of ${t.cells + (s.missing ?? 0)} cells did not meet their expectation`;
  const icon = s.state === 'running' ? '⏳' : s.state === 'cut-short' ? '⚠️' : s.met ? '✅' : '❌';
  const out = [
    `## ${icon} lockchaos campaign ${s.name}${shard}: ${outcome}`,
    '',
    `Started ${s.startedAt}${s.finishedAt ? `, ended ${s.finishedAt}` : ''}.`,
    '',
    '| cells | met | did not | errors | interrupted or not run | missing |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${t.cells} | ${t.met} | ${t.mismatched} | ${t.errors} | ${t.interrupted} | ${s.missing ?? 0} |`,
  ];
  const early = stoppedEarlyLine(s);
  if (early) out.push('', `${early}.`);

  const root = o.artifactRoot ?? s.dir;
  const where = (r: CellResult): string => {
    const page = r.report ?? r.dir;
    if (!page) return 'no report';
    const inArtifact = relative(root, page);
    if (o.artifactUrl) return `${code(inArtifact)} in [the artifact](${o.artifactUrl})`;
    const href = relative(o.fileDir ?? dirname(root), page)
      .split('/')
      .map(encodeURIComponent)
      .join('/');
    return `[${cell(inArtifact)}](${href})`;
  };
  const misses = s.cells.filter((r) => !r.met && r.actual !== 'not-run' && r.actual !== 'aborted');
  if (misses.length) {
    out.push(
      '',
      '### Did not meet their expectation',
      '',
      '| configuration | seed | expected | actual | what happened | report |',
      '| --- | ---: | --- | --- | --- | --- |',
    );
    for (const r of misses) {
      const configuration = r.cell.id.replace(/\/seed-\d+$/, '');
      // The headline says what happened; the mismatch, without the checkers' details (in the report), why it counts.
      const what = r.headline ? `${r.headline} (${r.message.replace(/ \(.*$/, '')})` : r.message;
      out.push(
        `| ${code(configuration)} | ${r.cell.seed} | ${r.cell.expect} | ${r.actual} | ${cell(what)} | ${where(r)} |`,
      );
    }
  }

  if (o.previous) {
    const changed = flips(s, o.previous);
    out.push('', `### Flips since ${nightOf(o.previous)}`, '');
    if (changed.length === 0) out.push(`No configuration changed its outcome since ${nightOf(o.previous)}.`);
    else {
      out.push(`| configuration | expected | ${nightOf(o.previous)} | ${nightOf(s)} |`, '| --- | --- | --- | --- |');
      for (const f of changed)
        out.push(`| ${code(f.configuration)} | ${f.expect} | ${f.text.before} | ${f.text.now} |`);
    }
  }

  const notRun = tallies.notRun;
  if (s.state !== 'finished' && notRun.length) {
    out.push(
      '',
      `<details><summary>${plural(notRun.length, 'cell')} ${s.state === 'running' ? 'not run yet' : 'never ran'}</summary>`,
      '',
      ...notRun.map((c) => `- #${c.index + 1} ${code(c.id)}`),
      '',
      '</details>',
    );
  }
  if (s.missingCells?.length) {
    out.push('', `Missing (their shards were not merged): ${s.missingCells.map((c) => code(c.id)).join(', ')}`);
  }

  out.push(
    '',
    '<details><summary>Every configuration, over its seeds</summary>',
    '',
    '| configuration | expected | met | not run |',
    '| --- | --- | ---: | ---: |',
    ...tallies.configurations.map(
      (c) => `| ${code(c.configuration)} | ${c.expect} | ${c.met} of ${c.ran} | ${c.seeds - c.ran || ''} |`,
    ),
    '',
    '</details>',
    '',
  );
  return out.join('\n');
}
