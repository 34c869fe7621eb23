/**
 * The campaign in Markdown for a CI run's page: a table that stays a table whatever a
 * message holds, links that lead to the report from where the file lies, and a campaign
 * cut short said as such, with the cells that never ran.
 */
import { describe, expect, it } from 'vitest';
import { specOf } from '../../test/unit/campaign-plan.js';
import type { CampaignSummary } from '../campaign-data/summary-record.js';
import { judge } from './expect.js';
import { expandCells } from './matrix.js';
import { summaryMarkdown } from './summary-md.js';

const cells = expandCells(
  specOf({
    name: 'n',
    seeds: [1, 2],
    matrix: [{ backend: 'redis', nemesis: 'none', fencing: 'on', expect: 'valid' }],
  }),
);
const [first, second] = cells as [(typeof cells)[0], (typeof cells)[0]];

const summary: CampaignSummary = {
  name: 'n',
  source: 'n.yaml',
  dir: '/ci/store/campaigns/n/T',
  totalCells: 2,
  startedAt: '2026-12-01T03:00:00.000Z',
  finishedAt: '2026-12-01T03:01:00.000Z',
  interrupted: true,
  state: 'cut-short',
  cutShortBy: 'SIGTERM',
  met: false,
  cells: [
    {
      cell: first,
      ...judge('valid', {
        valid: false,
        results: [{ checker: 'lost-updates', valid: false, counts: true, summary: '2 of 9 | <adds> lost\nfor good' }],
      }),
      headline: 'Two clients held the lock at once.',
      durationS: 20,
      report: '/ci/store/campaigns/n/T/runs/001-x/R/report.html',
    },
    { cell: second, ...judge('valid', { notRun: true }), durationS: 0 },
  ],
};

describe('summaryMarkdown', () => {
  it('says cut short, keeps each miss on one table row, and names the cells that never ran', () => {
    const md = summaryMarkdown(summary, { fileDir: '/ci' });
    expect(md).toContain('## ⚠️ lockchaos campaign n: cut short by SIGTERM: 1 cell never ran');
    const row = md.split('\n').find((l) => l.startsWith('| `redis/lock-set/none/fenced` | 1 |'));
    expect(row).toBe(
      '| `redis/lock-set/none/fenced` | 1 | valid | invalid | Two clients held the lock at once. (expected valid, got INVALID: lost-updates: 2 of 9 \\| &lt;adds&gt; lost for good) | [runs/001-x/R/report.html](store/campaigns/n/T/runs/001-x/R/report.html) |',
    );
    expect(md).toContain('<details><summary>1 cell never ran</summary>');
    expect(md).toContain('- #2 `redis/lock-set/none/fenced/seed-2`');
  });
});
