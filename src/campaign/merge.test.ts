import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { pointsByConfiguration } from '../campaign-data/tallies.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import { campaignCommand } from '../cli/campaign.js';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';
import { judge } from './expect.js';
import { loadCampaign } from './load.js';
import { shardCells } from './matrix.js';
import { mergeCampaign } from './merge.js';
import { summaryHtml, terminalTable } from './report.js';

const { spec, allCells: cells } = await loadCampaign(join(packageRoot, 'examples/nightly.yaml'));

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
    // Code points as a run lists them: reached, and the fault's hits at one (a pattern).
    coverage: [
      { point: 'in-hold', reached: 40 + cell.index, hits: 0, followed: 0 },
      {
        point: 'in-hold',
        fault: 'client-pause',
        reached: 40 + cell.index,
        hits: cell.index % 3,
        followed: cell.index % 2,
        counts: false,
      },
    ],
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
    state: 'finished',
    met: mine.every((r) => r.met),
    cells: mine,
  };
  if (shard) {
    s.shard = shard;
    s.allCells = cells.map((c) => ({ index: c.index, id: c.id, expect: c.expect }));
  }
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
    // The code points each cell reached and hit come through the shards whole.
    expect(merged.cells.map((c: CellResult) => c.coverage)).toEqual(whole.cells.map((c: CellResult) => c.coverage));
    const unsharded = pointsByConfiguration(summaryOf('/whole'));
    expect(unsharded.some((t) => t.hits > 0)).toBe(true);
    expect(pointsByConfiguration(summary)).toEqual(unsharded);
    expect(merged.cells.map((c: { index: number }) => c.index)).toEqual(cells.map((c) => c.index));
    expect(merged.missing).toBe(0);
    expect(summary.met).toBe(false); // the pattern leaves some cells unmet
    // Links point into the merged folder's own runs/ (copied from the shards).
    expect(merged.cells[1].report).toBe('runs/1/R/report.html');
    const html = readFileSync(files.summaryHtml, 'utf8');
    expect(html).toContain('By configuration, over its seeds');
    expect(html).toMatch(/redis\/lock-set\/none\/fenced<\/td><td>valid<\/td><td class="num">2 of 2</);
    expect(readFileSync(files.junit, 'utf8')).toContain(`tests="${cells.length}"`);
  });

  it('is as far as its least shard: one killed mid-way makes the merge cut short, with its cells that never ran', () => {
    const done = shardFolder({ index: 1, count: 2 });
    // Shard 2 as a runner killed after its first cell leaves it: "running", a runner long gone.
    const killedDir = mkdtempSync(join(tmpdir(), 'lockchaos-shard-killed-'));
    const shard = { index: 2, count: 2 };
    const planned = shardCells(cells, shard);
    const killed: CampaignSummary = {
      ...summaryOf(killedDir, shard),
      finishedAt: '',
      state: 'running',
      runner: { host: hostname(), pid: 2 ** 22 + 1 }, // above Linux's pid limit: no such process
      planned: planned.map((c) => ({ index: c.index, id: c.id, expect: c.expect })),
    };
    killed.cells = killed.cells.slice(0, 1);
    writeFileSync(join(killedDir, 'summary.json'), summaryJson(killed));
    const { summary, files } = mergeCampaign([done, killedDir], mkdtempSync(join(tmpdir(), 'lockchaos-merged-')));
    expect(summary.state).toBe('cut-short');
    expect(summary.cutShortBy).toBe('its runner stopped without finishing (killed?)');
    expect(summary.met).toBe(false);
    const merged = JSON.parse(readFileSync(files.summaryJson, 'utf8'));
    expect(merged.notRun.map((c: { id: string }) => c.id)).toEqual(planned.slice(1).map((c) => c.id));
    expect(readFileSync(files.summaryHtml, 'utf8')).toContain('data-state="cut-short"');
  });

  it('names the cells of shards not given, and refuses a shard twice or another campaign', () => {
    const one = shardFolder({ index: 1, count: 4 });
    const two = shardFolder({ index: 2, count: 4 });
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    const { summary, files } = mergeCampaign([one, two], out);
    expect(summary.missing).toBe(10);
    expect(summary.met).toBe(false);
    // The missing cells by name (shards 3 and 4 of 4: cells 3, 4, 7, 8 ...), in every output.
    const missing = shardCells(cells, { index: 3, count: 4 })
      .concat(shardCells(cells, { index: 4, count: 4 }))
      .sort((a, b) => a.index - b.index);
    expect(summary.missingCells?.map((c) => c.id)).toEqual(missing.map((c) => c.id));
    expect(terminalTable(summary)).toContain(`missing (their shards were not merged):\n  #3 ${missing[0]?.id}\n`);
    const html = readFileSync(files.summaryHtml, 'utf8');
    expect(html).toContain(`#3 ${missing[0]?.id}`);
    // The by-configuration table stays, each configuration with its missing seeds not run.
    expect(html).toContain('By configuration, over its seeds');
    expect(html).toMatch(
      /redis\/lock-set\/none\/fenced<\/td><td>valid<\/td><td class="num">2 of 2<\/td><td class="num"><\/td>/,
    );
    expect(html).toMatch(
      /redis\/lock-set\/none\/unfenced<\/td><td>valid<\/td><td class="num">0 of 0<\/td><td class="num">2</,
    );
    expect(readFileSync(files.junit, 'utf8')).toContain(`tests="${cells.length}"`);
    expect(() => mergeCampaign([one, one], out)).toThrow(/are both shard 1\/4 .* give each shard once/);
    const other = mkdtempSync(join(tmpdir(), 'lockchaos-other-'));
    writeFileSync(join(other, 'summary.json'), summaryJson({ ...summaryOf(other), name: 'other' }));
    expect(() => mergeCampaign([one, other], out)).toThrow(/merge the shards of one campaign/);
    expect(() => mergeCampaign([`${out}/nope`], out)).toThrow(/has no summary\.json/);
  });

  it('refuses, in one line naming the cell, a shard whose code points are not rows of counts', () => {
    const bad = shardFolder({ index: 1, count: 4 });
    const path = join(bad, 'summary.json');
    const stored = JSON.parse(readFileSync(path, 'utf8'));
    stored.cells[1].coverage = [{ point: 'in-hold', hits: '<img src=x>', followed: 0 }];
    writeFileSync(path, JSON.stringify(stored));
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    expect(() => mergeCampaign([bad], out)).toThrow(
      new RegExp(
        `^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cell #${stored.cells[1].index + 1}'s coverage is not a list of code-point rows`,
      ),
    );
  });

  it('refuses, in one line naming the cell and the field, a stored cell any field of which is not as written', () => {
    const good = shardFolder({ index: 1, count: 4 });
    const path = join(good, 'summary.json');
    const written = readFileSync(path, 'utf8');
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    const refusal = (change: (stored: { cells: Record<string, unknown>[] } & Record<string, unknown>) => void) => {
      const stored = JSON.parse(written);
      change(stored);
      writeFileSync(path, JSON.stringify(stored));
      try {
        mergeCampaign([good], out);
        return 'merged';
      } catch (err) {
        expect(err).toBeInstanceOf(UserError);
        return (err as Error).message.replace(`${path}: `, '');
      }
    };
    const cell = (field: string, value: unknown) =>
      refusal((s) => {
        if (s.cells[0]) s.cells[0][field] = value;
      });
    expect(refusal(() => {})).toBe('merged');
    const index = JSON.parse(written).cells[0].index + 1;
    expect(cell('durationS', 'x')).toBe(
      `cell #${index}'s durationS is not seconds ("x"): give the summary.json lockchaos campaign wrote`,
    );
    expect(cell('id', 7)).toMatch(new RegExp(`^cell #${index}'s id is not a string \\(7\\)`));
    expect(cell('message', { a: 1 })).toMatch(/'s message is not a string/);
    expect(cell('actual', 'fine')).toMatch(/'s actual is not one of valid, invalid, unknown/);
    expect(cell('phases', { start: 'x' })).toMatch(/'s phases is not seconds per phase/);
    expect(cell('checkers', [{ checker: 5 }])).toMatch(/'s checkers is not a list of \{checker/);
    expect(cell('config', undefined)).toMatch(
      /'s config is not a run's configuration, its timeLimitS in seconds \(missing\)/,
    );
    expect(cell('index', 'x')).toMatch(/^cell 1 of its list's index is not a cell number from 0/);
    expect(cell('index', 10_000)).toMatch(/^cell 10001 \(.*\) is beyond its \d+ cells/);
    // A long value is shown cut short: the line stays one line.
    expect(cell('expect', 'v'.repeat(5000)).length).toBeLessThan(200);
    expect(refusal((s) => (s.cells[0] = null as unknown as Record<string, unknown>))).toMatch(
      /^cell 1 of its list is not an object/,
    );
    // The summary's own fields: the same line, its value shown.
    expect(refusal((s) => (s.startedAt = 5))).toBe(
      `${path}'s startedAt is not an ISO time (2026-12-01T02:00:00.000Z) (5): give the summary.json lockchaos campaign wrote`,
    );
    expect(refusal((s) => (s.planned = [{ index: 'x' }]))).toMatch(
      /'s planned is not a list of cells .*\(\[\{"index":"x"\}\]\)/,
    );
    expect(refusal((s) => (s.shard = { index: 1, count: 0 }))).toMatch(
      /'s shard is not a shard \{index, count\}: an index from 1 to its count/,
    );
  });
});

describe('the merged folder is self-contained', () => {
  it('holds every run its page links: copied elsewhere alone, every link still opens', () => {
    const shards = [1, 2].map((index) => {
      const dir = shardFolder({ index, count: 2 });
      for (const c of shardCells(cells, { index, count: 2 })) {
        const run = join(dir, 'runs', `${c.index}`, 'R');
        mkdirSync(run, { recursive: true });
        writeFileSync(join(run, 'report.html'), `<p>report of cell ${c.index}</p>`);
      }
      return dir;
    });
    const out = join(mkdtempSync(join(tmpdir(), 'lockchaos-merged-')), 'merged');
    mergeCampaign(shards, out);
    for (const s of shards) rmSync(s, { recursive: true });
    const moved = join(mkdtempSync(join(tmpdir(), 'lockchaos-uploaded-')), 'artifact');
    cpSync(out, moved, { recursive: true });
    rmSync(out, { recursive: true });
    const html = readFileSync(join(moved, 'summary.html'), 'utf8');
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => decodeURIComponent(m[1] as string));
    // Report and folder of each cell, and at the page's head the report of each that did not meet its expectation.
    const misses = html.match(/<ul class="misses">.*?<\/ul>/s)?.[0].match(/<li>/g)?.length ?? 0;
    expect(links.length).toBe(cells.length * 2 + misses);
    for (const link of links) expect(existsSync(join(moved, link)), link).toBe(true);
    expect(readFileSync(join(moved, 'runs/5/R/report.html'), 'utf8')).toBe('<p>report of cell 5</p>');
  });
});

describe('lockchaos campaign merge flags', () => {
  it('takes --no-latest (as the campaign does); an unknown flag is one line naming the help', async () => {
    const shards = [1, 2].map((index) => shardFolder({ index, count: 2 }));
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await campaignCommand(['merge', ...shards, '--out', out, '--no-latest'])).toBe(1); // some cells unmet
    vi.restoreAllMocks();
    expect(existsSync(join(out, 'summary.html'))).toBe(true);
    await expect(campaignCommand(['merge', ...shards, '--latest'])).rejects.toThrow(
      /^unknown option '--latest' \(see lockchaos campaign merge --help\)$/,
    );
  });
});
