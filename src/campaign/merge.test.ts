import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../util/paths.js';
import { judge } from './expect.js';
import { loadCampaign } from './load.js';
import { expandCells, shardCells } from './matrix.js';
import { mergeCampaign } from './merge.js';
import { type CampaignSummary, type CellResult, summaryHtml, summaryJson } from './report.js';

const spec = await loadCampaign(join(packageRoot, 'examples/nightly.yaml'));
const cells = expandCells(spec);

/** Stored results for every cell: some met, some not (a fixed pattern). */
function resultFor(cell: (typeof cells)[number], dir: string): CellResult {
  const valid = cell.index % 7 === 3 ? cell.expect !== 'valid' : cell.expect === 'valid';
  const runDir = join(dir, 'runs', `${cell.index}`, 'R');
  return {
    cell,
    ...judge(cell.expect, { valid, results: [] }),
    durationS: 20 + cell.index,
    dir: runDir,
    report: join(runDir, 'report.html'),
  };
}

function summaryOf(dir: string, shard?: { index: number; count: number }): CampaignSummary {
  const mine = shardCells(cells, shard).map((c) => resultFor(c, dir));
  const s: CampaignSummary = {
    name: spec.name,
    source: spec.source,
    dir,
    totalCells: cells.length,
    startedAt: `2026-11-30T0${shard?.index ?? 0}:00:00.000Z`,
    finishedAt: `2026-11-30T0${shard?.index ?? 0}:30:00.000Z`,
    interrupted: false,
    met: mine.every((r) => r.met),
    cells: mine,
  };
  if (shard) s.shard = shard;
  return s;
}

/** Writes a shard's summary.json as `lockchaos campaign --shard` does. */
function shardFolder(shard: { index: number; count: number }): string {
  const dir = mkdtempSync(join(tmpdir(), `lockchaos-shard-${shard.index}-`));
  writeFileSync(join(dir, 'summary.json'), summaryJson(summaryOf(dir, shard)));
  return dir;
}

describe('campaign merge', () => {
  it('the 4 shards of examples/nightly.yaml merge into the tally of the unsharded campaign', () => {
    const shards = [1, 2, 3, 4].map((index) => shardFolder({ index, count: 4 }));
    // A shard alone has one seed of each configuration here; its page still shows its tally.
    expect(summaryHtml(summaryOf('/s', { index: 1, count: 4 }))).toContain('By configuration, over its seeds');
    const whole = JSON.parse(summaryJson(summaryOf(mkdtempSync(join(tmpdir(), 'lockchaos-whole-')))));
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    const { summary, files } = mergeCampaign([shards[2], shards[0], shards[3], shards[1]] as string[], out);
    const merged = JSON.parse(readFileSync(files.summaryJson, 'utf8'));
    expect(merged.configurations).toEqual(whole.configurations);
    expect(merged.configurations.some((c: { seeds: number }) => c.seeds === 2)).toBe(true);
    expect(merged.totals).toEqual(whole.totals);
    expect(merged.cells.map((c: { index: number }) => c.index)).toEqual(cells.map((c) => c.index));
    expect(merged.missing).toBe(0);
    expect(summary.met).toBe(false); // the pattern leaves some cells unmet
    // Links point from the merged folder into each shard's runs.
    expect(merged.cells[1].report).toMatch(/^\.\.\/lockchaos-shard-2-\w+\/runs\/1\/R\/report\.html$/);
    const html = readFileSync(files.summaryHtml, 'utf8');
    expect(html).toContain('By configuration, over its seeds');
    expect(html).toMatch(/redis\/lock-set\/none\/fenced<\/td><td>valid<\/td><td class="num">2 of 2</);
    expect(readFileSync(files.junit, 'utf8')).toContain(`tests="${cells.length}"`);
  });

  it('names the cells of shards not given, and refuses a shard twice or another campaign', () => {
    const one = shardFolder({ index: 1, count: 4 });
    const two = shardFolder({ index: 2, count: 4 });
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    const { summary } = mergeCampaign([one, two], out);
    expect(summary.missing).toBe(10);
    expect(summary.met).toBe(false);
    expect(() => mergeCampaign([one, one], out)).toThrow(/cell 1 \(.*\) is in both .* give each shard once/);
    const other = mkdtempSync(join(tmpdir(), 'lockchaos-other-'));
    writeFileSync(join(other, 'summary.json'), summaryJson({ ...summaryOf(other), name: 'other' }));
    expect(() => mergeCampaign([one, other], out)).toThrow(/merge the shards of one campaign/);
    expect(() => mergeCampaign([`${out}/nope`], out)).toThrow(/has no summary\.json/);
  });
});
