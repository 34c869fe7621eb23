/**
 * A store written by lockchaos 0.1.0 before summary.json had one reader
 * (test/fixtures/campaign-store-0.1.0: two shards of a real campaign, as that build left
 * them) reads as it did: merge merges its shards, serve's index lists its campaigns and
 * runs, and the job summary says what it did, all through campaign-data's one reader.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeCampaign } from '../../src/campaign/merge.js';
import { readSummary } from '../../src/campaign-data/read-summary.js';
import { previousOf, writeJobSummary } from '../../src/cli/job-summary.js';
import { scanStore } from '../../src/serve/store-index.js';
import { packageRoot } from '../../src/util/paths.js';

const FIXTURE = join(packageRoot, 'test/fixtures/campaign-store-0.1.0');
const store = mkdtempSync(join(tmpdir(), 'lockchaos-old-store-'));
cpSync(join(FIXTURE, 'campaigns'), join(store, 'campaigns'), { recursive: true });
const parent = join(store, 'campaigns', 'tiny');
const [one, two] = readdirSync(parent)
  .sort()
  .map((name) => join(parent, name));
if (one === undefined || two === undefined) throw new Error(`the fixture's two shards are missing in ${parent}`);
afterAll(() => rmSync(store, { recursive: true, force: true }));

describe('a store written by lockchaos 0.1.0', () => {
  it('reads each shard: what wrote it, its state, its cells and tallies', () => {
    const s = readSummary(two);
    expect(s).toMatchObject({ lockchaos: '0.1.0', schema: 1, name: 'tiny', state: 'finished', met: true });
    expect(s.shard).toEqual({ index: 2, count: 2 });
    expect(s.cells.map((r) => [r.cell.id, r.actual, r.met])).toEqual([
      ['redis/lock-set/client-pause/unfenced/seed-1', 'invalid', true],
    ]);
    expect(s.cells[0]?.dir).toBe(
      join(two, 'runs/002-redis-lock-set-client-pause-unfenced-seed-1/2026-12-07T07-19-32.383Z'),
    );
    expect(s.totals).toEqual({ cells: 1, met: 1, mismatched: 0, errors: 0, interrupted: 0 });
    expect(s.configurations).toEqual([
      {
        configuration: 'redis/lock-set/client-pause/unfenced',
        expect: 'invalid',
        met: 1,
        ran: 1,
        seeds: 1,
        mark: 'met',
      },
    ]);
    // Its code point, tallied from the cell's coverage rows (the file of 0.1.0 has no tally of them).
    expect(s.points).toMatchObject([{ point: 'in-hold', fault: 'client-pause', runs: 1, runsHit: 1 }]);
    expect(s.notRun).toEqual([]);
  });

  it('merges its two shards into one campaign that met every expectation', () => {
    const out = join(store, 'campaigns', 'tiny', 'merged');
    const { summary, files } = mergeCampaign([one, two], out, { store });
    expect(summary).toMatchObject({ name: 'tiny', state: 'finished', met: true, missing: 0, mergedShards: 2 });
    expect(summary.cells.map((r) => r.cell.index)).toEqual([0, 1]);
    for (const r of summary.cells) expect(existsSync(join(r.dir ?? '', 'results.json'))).toBe(true);
    // The merge's own summary.json, written now, reads back through the same reader.
    const back = readSummary(out);
    expect(back).toMatchObject({ schema: 1, mergedShards: 2, missing: 0, met: true });
    expect(back.totals.met).toBe(2);
    expect(readFileSync(files.summaryHtml, 'utf8')).toContain('every cell met its expectation');
  });

  it("is listed by serve's index: its campaigns by night, its runs as their cells", () => {
    const index = scanStore(join(FIXTURE));
    expect(index.problems).toEqual([]);
    expect(index.campaigns.map((c) => [c.shard, c.state, c.met, c.totals.met])).toEqual([
      ['2/2', 'finished', true, 1],
      ['1/2', 'finished', true, 1],
    ]);
    expect(index.runs.map((r) => [r.configuration, r.verdict, r.met])).toEqual([
      ['redis/lock-set/client-pause/unfenced', 'invalid', true],
      ['redis/lock-set/none/unfenced', 'valid', true],
    ]);
    expect(index.trends[0]?.rows.map((r) => [r.configuration, r.marks.map((m) => m.mark)])).toEqual([
      ['redis/lock-set/client-pause/unfenced', ['met']],
      ['redis/lock-set/none/unfenced', ['met']],
    ]);
  });

  it('is said in the job summary, with a shard of it as the night before', () => {
    const summary = readSummary(one);
    const file = join(store, 'summary.md');
    const previous = previousOf(two, summary);
    expect(previous?.name).toBe('tiny');
    writeJobSummary(summary, { 'summary-md': file }, { env: {}, ...(previous ? { previous } : {}) });
    const md = readFileSync(file, 'utf8');
    expect(md).toContain('lockchaos campaign tiny shard 1/2: every cell met its expectation');
    expect(md).toContain('| `redis/lock-set/none/unfenced` | valid | 1 of 1 |');
  });
});
