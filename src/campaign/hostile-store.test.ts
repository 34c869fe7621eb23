/**
 * `campaign merge --store` over shards and stores someone else made: names and times that
 * are paths, links that lead out of the store or the shard, counts past what the folder
 * holds, folders of two runs passed off as two shards of one.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pruneNights } from '../campaign-data/nights.js';
import { readSummary } from '../campaign-data/read-summary.js';
import type { CampaignSummary } from '../campaign-data/summary-record.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import { campaignCommand } from '../cli/campaign.js';
import { packageRoot } from '../util/paths.js';
import { judge } from './expect.js';
import { loadCampaign } from './load.js';
import { shardCells } from './matrix.js';
import { mergeCampaign } from './merge.js';

const { spec, allCells: cells } = await loadCampaign(join(packageRoot, 'examples/nightly.yaml'));

/** A shard's folder as `lockchaos campaign --shard` leaves it, `change` applied to its summary.json's object. */
function shard(
  shardOf: { index: number; count: number } | undefined,
  startedAt: string,
  change: (s: Record<string, unknown>) => void = () => {},
  root = mkdtempSync(join(tmpdir(), 'lockchaos-hostile-')),
): string {
  const dir = join(root, `shard-${shardOf?.index ?? 0}-${startedAt.replace(/:/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  const mine = shardCells(cells, shardOf).map((cell) => ({
    cell,
    ...judge(cell.expect, { valid: cell.expect === 'valid', results: [] }),
    durationS: 20,
    dir: join(dir, 'runs', `${cell.index}`, 'R'),
  }));
  const s: CampaignSummary = {
    name: spec.name,
    source: spec.source,
    dir,
    totalCells: cells.length,
    startedAt,
    finishedAt: startedAt.replace('T02', 'T03'),
    interrupted: false,
    state: 'finished',
    met: true,
    cells: mine,
    ...(shardOf
      ? { shard: shardOf, allCells: cells.map((c) => ({ index: c.index, id: c.id, expect: c.expect })) }
      : {}),
  };
  const json = JSON.parse(summaryJson(s));
  change(json);
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(json));
  return dir;
}

/** A store with `nights` of campaign `name` at `at`/campaigns/<name>/ (each a folder with its summary.json). */
function nightsAt(at: string, name: string, starts: string[]): string[] {
  return starts.map((startedAt) => {
    const dir = join(at, 'campaigns', name, `${startedAt.replace(/:/g, '-')}-merged`);
    mkdirSync(dir, { recursive: true });
    const night = { name, source: 'nightly.yaml', shard: null, totalCells: cells.length, startedAt };
    writeFileSync(
      join(dir, 'summary.json'),
      JSON.stringify({ ...night, finishedAt: startedAt, interrupted: false, cells: [] }),
    );
    return dir;
  });
}

const quiet = () => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  return vi.spyOn(console, 'error').mockImplementation(() => {});
};
afterEach(() => {
  vi.restoreAllMocks();
});

describe('campaign merge --store never writes or removes outside the store', () => {
  const victimStarts = ['2026-11-01T02:00:00.000Z', '2026-11-02T02:00:00.000Z'];

  it.each([
    ['name', (s: Record<string, unknown>) => (s.name = '../../victim/campaigns/prod'), /'s name is not a plain name/],
    [
      'startedAt',
      (s: Record<string, unknown>) => (s.startedAt = '../../../victim/campaigns/prod/x'),
      /'s startedAt is not an ISO time/,
    ],
  ])('refuses, in one line, a shard whose %s is a path: the nights outside stay', async (_, change, refusal) => {
    const root = mkdtempSync(join(tmpdir(), 'lockchaos-victim-'));
    const victims = nightsAt(join(root, 'victim'), 'prod', victimStarts);
    const store = join(root, 'S');
    const bad = shard(undefined, '2026-12-01T02:00:00.000Z', change);
    quiet();
    await expect(campaignCommand(['merge', bad, '--store', store, '--keep-nights', '1'])).rejects.toThrow(refusal);
    for (const v of victims) expect(existsSync(v), v).toBe(true);
    expect(existsSync(join(root, 'victim', 'campaigns', 'prod'))).toBe(true);
  });

  it('refuses a store whose campaign folder is a link out of it: nothing written there, nothing removed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lockchaos-victim-'));
    const victims = nightsAt(join(root, 'victim'), 'prod', victimStarts);
    const store = join(root, 'S');
    mkdirSync(join(store, 'campaigns'), { recursive: true });
    symlinkSync(join(root, 'victim', 'campaigns', 'prod'), join(store, 'campaigns', spec.name));
    const good = shard(undefined, '2026-12-01T02:00:00.000Z');
    quiet();
    await expect(campaignCommand(['merge', good, '--store', store, '--keep-nights', '1'])).rejects.toThrow(
      /^refused to write .* outside the store/,
    );
    for (const v of victims) expect(existsSync(v), v).toBe(true);
    expect(readdirSync(join(root, 'victim', 'campaigns', 'prod'))).toHaveLength(2);
    // Pruning checks every folder before it removes one.
    expect(() => pruneNights(store, spec.name, 1)).toThrow(/^refused to remove .* outside the store/);
    for (const v of victims) expect(existsSync(v), v).toBe(true);
  });

  it('copies nothing through a link in a night folder already there (the same start merged again)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lockchaos-victim-'));
    const victim = join(root, 'victim');
    mkdirSync(victim);
    const store = join(root, 'S');
    const good = shard({ index: 1, count: 2 }, '2026-12-01T02:00:00.000Z');
    const run = join(good, 'runs', '0', 'R');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'report.html'), '<p>the report</p>');
    const night = join(store, 'campaigns', spec.name, '2026-12-01T02-00-00.000Z-merged');
    mkdirSync(night, { recursive: true });
    symlinkSync(victim, join(night, 'runs'));
    quiet();
    await expect(campaignCommand(['merge', good, '--out', join(root, 'merged'), '--store', store])).rejects.toThrow(
      /^refused to write .*runs.* outside the store/,
    );
    expect(readdirSync(victim)).toEqual([]);
  });

  it('still adds a night to a plain store and prunes the oldest', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-store-'));
    const [old] = nightsAt(store, spec.name, ['2026-11-01T02:00:00.000Z']);
    quiet();
    await campaignCommand([
      'merge',
      shard(undefined, '2026-12-01T02:00:00.000Z'),
      '--store',
      store,
      '--keep-nights',
      '1',
    ]);
    expect(existsSync(old as string)).toBe(false);
    expect(existsSync(join(store, 'campaigns', spec.name, '2026-12-01T02-00-00.000Z-merged', 'summary.html'))).toBe(
      true,
    );
  });
});

describe('campaign merge bounds what a shard says by what it holds', () => {
  it('refuses a totalCells past what a campaign can hold, or past the cells it names', () => {
    const huge = shard(undefined, '2026-12-01T02:00:00.000Z', (s) => (s.totalCells = 1e12));
    expect(() => readSummary(huge)).toThrow(/'s totalCells is not a count of cells up to 10000 \(1000000000000\)/);
    const more = shard({ index: 1, count: 2 }, '2026-12-01T02:00:00.000Z', (s) => (s.totalCells = cells.length + 5));
    expect(() => readSummary(more)).toThrow(new RegExp(`its allCells lists ${cells.length} cells, its totalCells is`));
    const index = shard({ index: 3, count: 2 }, '2026-12-01T02:00:00.000Z');
    expect(() => readSummary(index)).toThrow(/'s shard is not a shard \{index, count\}: an index from 1 to its count/);
  });

  it('copies no link of a shard, and says how many it skipped', () => {
    const dir = shard({ index: 1, count: 2 }, '2026-12-01T02:00:00.000Z');
    const run = join(dir, 'runs', '0', 'R');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'report.html'), '<p>the report</p>');
    symlinkSync('/etc/passwd', join(run, 'history.jsonl'));
    symlinkSync('/etc', join(dir, 'runs', '2'));
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    const { skippedLinks } = mergeCampaign([dir], out);
    expect(existsSync(join(out, 'runs', '0', 'R', 'report.html'))).toBe(true);
    expect(existsSync(join(out, 'runs', '0', 'R', 'history.jsonl'))).toBe(false);
    expect(existsSync(join(out, 'runs', '2'))).toBe(false);
    expect(skippedLinks.sort()).toEqual([join(run, 'history.jsonl'), join(dir, 'runs', '2')].sort());
  });
});

describe('campaign merge --out writes nothing through a link there', () => {
  it('refuses a summary.json in the out folder that is a link: the file it leads to stays as it was', () => {
    const victim = join(mkdtempSync(join(tmpdir(), 'lockchaos-victim-')), 'authorized_keys');
    writeFileSync(victim, 'ssh-ed25519 AAAA mine\n');
    const out = mkdtempSync(join(tmpdir(), 'lockchaos-merged-'));
    symlinkSync(victim, join(out, 'summary.json'));
    expect(() => mergeCampaign([shard(undefined, '2026-12-01T02:00:00.000Z')], out)).toThrow(
      /^refused to write .*summary\.json: it is a link, and a merge writes nothing through one/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA mine\n');
  });
});

describe('nights: folders of two runs are not two shards of one', () => {
  it('refuses unsharded folders of different starts (a crashed run beside a finished one), one line', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lockchaos-nights-'));
    const crashed = shard(
      undefined,
      '2026-12-01T02:00:00.000Z',
      (s) => {
        s.cells = [];
        s.state = 'running';
        s.finishedAt = '';
      },
      root,
    );
    const finished = shard(undefined, '2026-12-01T05:00:00.000Z', () => {}, root);
    const store = join(root, 'S');
    quiet();
    await expect(campaignCommand(['merge', crashed, finished, '--store', store])).rejects.toThrow(
      /are two runs of campaign nightly, not shards of one \(neither has a shard number\)/,
    );
    expect(existsSync(store)).toBe(false);
  });

  it('says so when the store already holds a night of that UTC date', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-store-'));
    nightsAt(store, spec.name, ['2026-11-30T02:00:00.000Z', '2026-12-01T01:00:00.000Z']);
    const stderr = quiet();
    await campaignCommand(['merge', shard(undefined, '2026-12-01T02:00:00.000Z'), '--store', store]);
    const lines = stderr.mock.calls.map((c) => String(c[0]));
    expect(lines.some((l) => /already holds a night of 2026-12-01 .*a night is a UTC date/.test(l))).toBe(true);
  });
});
