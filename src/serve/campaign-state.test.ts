/**
 * serve tells a running campaign from one whose runner was killed: both folders say
 * "running" on disk (a SIGKILL leaves no other word); the index, the page and the
 * summary.html it serves say cut short for the dead one, with the cells that never ran.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../perf/store.js';
import { specOf } from '../../test/unit/campaign-plan.js';
import { judge } from '../campaign/expect.js';
import { type Cell, expandCells } from '../campaign/matrix.js';
import { summaryHtml } from '../campaign/report.js';
import { type CampaignRunner, estimate, thisRunner } from '../campaign-data/state.js';
import type { CampaignSummary } from '../campaign-data/summary-record.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import { type StoreServer, serveStore } from './server.js';
import { scanStore } from './store-index.js';
import { storePage } from './store-page.js';

const store = mkdtempSync(join(tmpdir(), 'lockchaos-serve-state-'));
const cells = expandCells(
  specOf({
    name: 'nightly',
    seeds: [1, 2, 3],
    matrix: [{ backend: 'redis', nemesis: 'none', fencing: 'on', expect: 'valid' }],
  }),
);

/**
 * A campaign folder as the runner leaves it after its first cell: "running", 1 of 3, or
 * (with `ended`) as it ended there.
 */
function runningFolder(stamp: string, runner: CampaignRunner, ended: Partial<CampaignSummary> = {}): string {
  const dir = join(store, 'campaigns', 'nightly', stamp);
  const cell = cells[0] as Cell;
  const runDir = join(dir, 'runs', '001-redis-lock-set-none-fenced-seed-1', stamp);
  mkdirSync(runDir, { recursive: true });
  writeSyntheticRun(runDir, { backend: 'redis', nemesis: 'none', fencing: true, seed: 1, valid: true });
  const s: CampaignSummary = {
    name: 'nightly',
    source: 'nightly.yaml',
    dir,
    totalCells: 3,
    startedAt: stamp.replace(/T(\d\d)-(\d\d)-/, 'T$1:$2:'),
    finishedAt: '',
    interrupted: false,
    state: 'running',
    updatedAt: new Date().toISOString(),
    progress: estimate(1, 3, 20),
    runner,
    planned: cells.map((c) => ({ index: c.index, id: c.id, expect: c.expect })),
    met: false,
    cells: [{ cell, ...judge('valid', { valid: true, results: [] }), durationS: 20, dir: runDir }],
    ...ended,
  };
  writeFileSync(join(dir, 'summary.json'), summaryJson(s));
  writeFileSync(join(dir, 'summary.html'), summaryHtml(s));
  return dir;
}

const deadPid = () =>
  Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

let served: StoreServer;
beforeAll(async () => {
  runningFolder('2026-12-01T02-00-00.000Z', { host: hostname(), pid: deadPid() });
  runningFolder('2026-12-02T02-00-00.000Z', thisRunner());
  // As CampaignRecord.fail leaves it: its runner gone too, but it said why.
  runningFolder(
    '2026-11-30T02-00-00.000Z',
    { host: hostname(), pid: deadPid() },
    {
      state: 'failed',
      failedBy: 'internal error: page script x.bundle.js is missing',
      finishedAt: '2026-11-30T02:01:00.000Z',
    },
  );
  served = await serveStore(store, 0);
});
afterAll(async () => {
  await served.close();
  rmSync(store, { recursive: true, force: true });
});

describe('a campaign folder that says running', () => {
  it('is cut short in the index when its runner is gone, with the cells that never ran; running while it lives', () => {
    const [live, killed] = scanStore(store).campaigns;
    expect(live).toMatchObject({ state: 'running', progress: { done: 1, total: 3 } });
    expect(killed).toMatchObject({
      state: 'cut-short',
      cutShortBy: 'its runner stopped without finishing (killed?)',
      notRun: [
        { index: 1, id: 'redis/lock-set/none/fenced/seed-2' },
        { index: 2, id: 'redis/lock-set/none/fenced/seed-3' },
      ],
    });
  });

  it('the page says running with its progress, and cut short with the list, neither as not met', () => {
    const html = storePage(scanStore(store), {}, '0.1.0');
    const row = (stamp: string) =>
      new RegExp(`<tr data-campaign="campaigns/nightly/${stamp}"[^>]*>(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    expect(row('2026-12-02T02-00-00.000Z')).toContain(
      '<td class="running">running: 1 of 3 cells, 20 s elapsed, about 40 s left</td>',
    );
    const killed = row('2026-12-01T02-00-00.000Z');
    expect(killed).toContain('cut short by its runner stopped without finishing (killed?)');
    expect(killed).toContain('<summary>2 cells never ran</summary>');
    expect(killed).toContain('<li>#3 redis/lock-set/none/fenced/seed-3</li>');
    expect(html).not.toContain('>not met</td>');
  });

  it('serves the killed campaign summary.html made again, saying cut short; the file stays as it was', async () => {
    const path = 'campaigns/nightly/2026-12-01T02-00-00.000Z/summary.html';
    const page = await (await fetch(new URL(`/files/${path}`, served.url))).text();
    expect(page).toContain('data-state="cut-short">cut short by its runner stopped without finishing (killed?)');
    expect(page).toContain('<li>#2 redis/lock-set/none/fenced/seed-2</li>');
    expect(readFileSync(join(store, path), 'utf8')).toContain('data-state="running"');
    const live = await (
      await fetch(new URL('/files/campaigns/nightly/2026-12-02T02-00-00.000Z/summary.html', served.url))
    ).text();
    expect(live).toContain('data-state="running">running: 1 of 3 cells');
  });

  it('a failed one is failed with its error and the cells that never ran, not a killed runner', async () => {
    const failed = scanStore(store).campaigns.find((c) => c.startedAt.startsWith('2026-11-30'));
    expect(failed).toMatchObject({
      state: 'failed',
      failedBy: 'internal error: page script x.bundle.js is missing',
      notRun: [{ index: 1 }, { index: 2 }],
    });
    const html = storePage(scanStore(store), {}, '0.1.0');
    const row = /<tr data-campaign="campaigns\/nightly\/2026-11-30T02-00-00.000Z"[^>]*>(.*?)<\/tr>/s.exec(html)?.[1];
    expect(row).toContain('<td class="failed">failed: internal error: page script x.bundle.js is missing');
    expect(row).toContain('<summary>2 cells never ran</summary>');
    expect(row).not.toContain('killed?');
    const page = await (
      await fetch(new URL('/files/campaigns/nightly/2026-11-30T02-00-00.000Z/summary.html', served.url))
    ).text();
    expect(page).toContain(
      'data-state="failed">failed: internal error: page script x.bundle.js is missing: 2 cells never ran',
    );
  });
});
