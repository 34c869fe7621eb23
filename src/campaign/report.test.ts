import { describe, expect, it } from 'vitest';
import { specOf } from '../../test/unit/campaign-plan.js';
import { flipsSince } from '../campaign-data/flips.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { cellsNotRun } from '../campaign-data/tallies.js';
import { judge } from './expect.js';
import { type Cell, expandCells } from './matrix.js';
import { summaryHtml } from './report.js';

const result = (index: number, actual: CellResult['actual']) =>
  ({ cell: { index, id: `c${index}`, expect: 'valid' } as Cell, actual }) as CellResult;

describe('cellsNotRun', () => {
  it('names the planned cells that have no result, a not-run one among them', () => {
    const planned = [0, 3, 6, 9].map((index) => ({ index, id: `c${index}`, expect: 'valid' as const }));
    const cells = [result(3, 'valid'), result(9, 'not-run')];
    expect(cellsNotRun({ planned, cells }).map((c) => c.id)).toEqual(['c0', 'c6', 'c9']);
  });

  it('without a plan (an older summary), names the cells written as not-run', () => {
    const cells = [result(1, 'invalid'), result(2, 'not-run')];
    expect(cellsNotRun({ cells })).toEqual([{ index: 2, id: 'c2', expect: 'valid' }]);
  });
});

describe('summary.html', () => {
  const cells = expandCells(
    specOf({
      name: 'n',
      seeds: [1],
      matrix: [{ backend: 'redis', nemesis: 'none', fencing: ['on', 'off'], expect: 'valid' }],
    }),
  );
  const [first, second] = cells as [(typeof cells)[0], (typeof cells)[0]];
  // The checker line a run's results give: hundreds of characters of counts and processes.
  const checkerLine = 'process 3 held the lock while process 1 held it, '.repeat(8);
  const tonight: CampaignSummary = {
    name: 'n',
    source: 'n.yaml',
    dir: '/store/campaigns/n/2026-12-02T03-00-00.000Z-merged',
    totalCells: 2,
    startedAt: '2026-12-02T03:00:00.000Z',
    finishedAt: '2026-12-02T03:10:00.000Z',
    interrupted: false,
    state: 'finished',
    met: false,
    missing: 0,
    mergedShards: 2,
    cells: [
      { cell: first, ...judge('valid', { valid: true, results: [] }), durationS: 10 },
      {
        cell: second,
        ...judge('valid', {
          valid: false,
          results: [{ checker: 'mutual-exclusion', valid: false, summary: checkerLine }],
        }),
        headline: 'Process 3 paused for 1.49 s (client-pause) outlived its lease; process 1 acquired.',
        durationS: 10,
        report: '/store/campaigns/n/2026-12-02T03-00-00.000Z-merged/runs/002-x/R/report.html',
      },
    ],
  };
  const lastNight: CampaignSummary = {
    ...tonight,
    startedAt: '2026-12-01T03:00:00.000Z',
    met: true,
    cells: tonight.cells.map((r) => ({ ...r, ...judge('valid', { valid: true, results: [] }) })),
  };

  it('leads with the headline of each run that did not meet its expectation, the checker line folded', () => {
    const html = summaryHtml(tonight);
    const lead = html.indexOf('<section id="misses">');
    expect(lead).toBeGreaterThan(html.indexOf('id="state"'));
    expect(lead).toBeLessThan(html.indexOf('<table class="sortable" id="cells">'));
    expect(html).toContain(
      '<li><a href="runs/002-x/R/report.html">#2 redis/lock-set/none/unfenced/seed-1</a>: <span class="headline">Process 3 paused for 1.49 s (client-pause) outlived its lease; process 1 acquired.</span> (expected valid, got INVALID)</li>',
    );
    // In the table too the headline leads; the checker line is there, folded, not the cell's text.
    expect(html).toContain(
      '<td class="msg"><span class="headline">Process 3 paused for 1.49 s (client-pause) outlived its lease; process 1 acquired.</span><details class="checkers"><summary>expected valid, got INVALID</summary>mutual-exclusion: process 3',
    );
    expect(html.split(checkerLine.trim()).length - 1).toBe(1);
    expect(html).toMatch(/<details class="checkers"><summary>[^<]*<\/summary>mutual-exclusion: /);
  });

  it('says it was merged from shards, and what flipped since the night before', () => {
    const html = summaryHtml(tonight, { since: flipsSince(tonight, lastNight) });
    expect(html).toMatch(
      /<p class="meta">from n\.yaml · 2 cells · started [^<]* · merged from 2 shards \(campaign merge\)<\/p>/,
    );
    expect(html).toContain('<h2>Flips since 2026-12-01</h2>');
    expect(html).toContain(
      '<tr><td><code>redis/lock-set/none/unfenced</code></td><td>valid</td><td class="m-met">● met (1 of 1)</td><td class="m-not-met">✕ not met (0 of 1)</td></tr>',
    );
    expect(html).toContain('<th>2026-12-01</th><th>2026-12-02</th>');
    const calm = summaryHtml(lastNight, { since: flipsSince(lastNight, lastNight) });
    expect(calm).toContain('No configuration changed its outcome since 2026-12-01.');
    expect(calm).not.toContain('<section id="misses">');
    // A campaign run as one says neither.
    const alone = summaryHtml({ ...lastNight, missing: undefined, mergedShards: undefined });
    expect(alone).not.toContain('merged from');
    expect(alone).not.toContain('id="flips"');
  });
});
