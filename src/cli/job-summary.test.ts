/**
 * Where the Markdown summary goes: FILE with --summary-md (written whole), and under GitHub
 * Actions the job summary by itself (appended: each step's writes add up), its report
 * links then pointing at the run's artifacts; nowhere when neither is asked.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specOf } from '../../test/unit/campaign-plan.js';
import { userErrorOf } from '../../test/unit/user-error.js';
import { judge } from '../campaign/expect.js';
import { expandCells } from '../campaign/matrix.js';
import type { CampaignSummary } from '../campaign-data/summary-record.js';
import { previousOf, writeJobSummary } from './job-summary.js';

const [cell] = expandCells(
  specOf({ name: 'n', seeds: [1], matrix: [{ backend: 'redis', nemesis: 'none', expect: 'invalid' }] }),
);
const dir = mkdtempSync(join(tmpdir(), 'lockchaos-job-summary-'));
const summary: CampaignSummary = {
  name: 'n',
  source: 'n.yaml',
  dir: join(dir, 'store/campaigns/n/T'),
  totalCells: 1,
  startedAt: '2026-12-01T03:00:00.000Z',
  finishedAt: '2026-12-01T03:01:00.000Z',
  interrupted: false,
  state: 'finished',
  met: false,
  cells: [
    {
      cell: cell as NonNullable<typeof cell>,
      ...judge('invalid', { valid: true, results: [] }),
      durationS: 20,
      report: join(dir, 'store/campaigns/n/T/runs/001/R/report.html'),
    },
  ],
};
const github = (file: string) => ({
  GITHUB_ACTIONS: 'true',
  GITHUB_STEP_SUMMARY: file,
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'team/locks',
  GITHUB_RUN_ID: '42',
});

describe('writeJobSummary', () => {
  it('writes nothing unless asked, or under GitHub Actions', () => {
    expect(writeJobSummary(summary, {}, { env: {} })).toEqual([]);
  });

  it('under GitHub Actions appends to the job summary, with links to the run artifacts', () => {
    const step = join(dir, 'step.md');
    writeFileSync(step, '## an earlier step\n');
    expect(writeJobSummary(summary, {}, { env: github(step), artifactRoot: join(dir, 'store') })).toEqual([step]);
    const text = readFileSync(step, 'utf8');
    expect(text.startsWith('## an earlier step\n## ❌ lockchaos campaign n:')).toBe(true);
    expect(text).toContain(
      '`campaigns/n/T/runs/001/R/report.html` in [the artifact](https://github.com/team/locks/actions/runs/42#artifacts)',
    );
  });

  it('--summary-md FILE is written whole, with links relative to it', () => {
    const file = join(dir, 'out.md');
    writeFileSync(file, 'stale\n');
    expect(writeJobSummary(summary, { 'summary-md': file }, { env: {} })).toEqual([file]);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('stale');
    expect(text).toContain('](store/campaigns/n/T/runs/001/R/report.html)');
    expect(existsSync(join(dir, 'step.md'))).toBe(true);
  });

  it('--previous names a folder that is neither a campaign nor a store in one line', () => {
    expect(userErrorOf(() => previousOf(dir, summary))).toBe(
      `--previous: ${dir} is neither a campaign folder (no summary.json) nor a store (no campaigns/): give the previous night's campaign folder or the store`,
    );
  });
});
