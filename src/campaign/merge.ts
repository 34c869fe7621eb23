/**
 * `lockchaos campaign merge DIR...`: the shard folders of one campaign (CI jobs, each
 * `--shard i/n`) combined into one summary.html, summary.json and junit.xml, with the
 * per-configuration tally over every seed ("met 9 of 10"), as if the campaign had run
 * unsharded. It reads each shard's summary.json (paths in it are relative to the shard's
 * folder, so shards downloaded as CI artifacts merge wherever they lie) and writes the
 * merged files into the output folder, with links to each run's report.
 *
 * Refused, in one line: a folder without summary.json, one any field of which is not as
 * the campaign wrote it (campaign-data/read-summary.ts: its name a plain name, its times
 * ISO times, its counts within what it holds), shards of different campaigns or shard counts, the same
 * cell or shard number twice, unsharded folders of different starts (two runs). Shards
 * not given leave their cells out, and the merge says how many are missing (the campaign
 * then did not meet its expectations). A shard is data: no link of it is copied, and in a
 * store nothing is written that resolves outside it (store-path.ts).
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { summaryFiles } from '../campaign-data/campaign-folder.js';
import type { CellName } from '../campaign-data/cell.js';
import { flipsSince } from '../campaign-data/flips.js';
import { readSummary } from '../campaign-data/read-summary.js';
import type { CampaignStateName } from '../campaign-data/state.js';
import { copyNoLink, insideStore, notALink } from '../campaign-data/store-path.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import { UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import { campaignJUnit, summaryHtml } from './report.js';

/**
 * Refuses, in one line, folders that are not the shards of one split of one campaign:
 * another campaign or shard count, unsharded folders of different starts (two runs, two
 * nights: a crashed one beside a finished one), a shard number given twice.
 */
function checkOneSplit(shards: readonly CampaignSummary[]): CampaignSummary {
  const [first] = shards;
  if (!first) throw new UserError(`give the shard folders to merge: ${cliCommand} campaign merge DIR...`);
  for (const s of shards) {
    if (s.name !== first.name || s.totalCells !== first.totalCells) {
      throw new UserError(
        `${s.dir} is campaign ${s.name} of ${s.totalCells} cells, ${first.dir} is ${first.name} of ${first.totalCells}: merge the shards of one campaign`,
      );
    }
    if ((s.shard?.count ?? 1) !== (first.shard?.count ?? 1)) {
      throw new UserError(
        `${s.dir} is one of ${s.shard?.count ?? 1} shards, ${first.dir} one of ${first.shard?.count ?? 1}: merge shards of one split`,
      );
    }
  }
  // Folders of one split only: unsharded ones of different starts are two runs (two
  // nights), a shard number given twice is two runs of that shard.
  const unsharded = shards.filter((s) => !s.shard);
  const other = unsharded.length > 0 ? shards.find((s) => s.startedAt !== unsharded[0]?.startedAt) : undefined;
  if (unsharded[0] && other) {
    throw new UserError(
      `${unsharded[0].dir} (started ${unsharded[0].startedAt}) and ${other.dir} (started ${other.startedAt}) are two runs of campaign ${first.name}, not shards of one (neither has a shard number): merge the folders of one --shard i/n split`,
    );
  }
  const byShard = new Map<number, string>();
  for (const s of shards) {
    if (!s.shard) continue;
    const again = byShard.get(s.shard.index);
    if (again !== undefined) {
      throw new UserError(
        `${again} and ${s.dir} are both shard ${s.shard.index}/${s.shard.count} of campaign ${first.name}: give each shard once (the run of the night you mean)`,
      );
    }
    byShard.set(s.shard.index, s.dir);
  }
  return first;
}

/** The shards as one campaign, written to `dir` (its paths relative to that folder). */
export function mergeSummaries(shards: readonly CampaignSummary[], dir: string): CampaignSummary & { missing: number } {
  const first = checkOneSplit(shards);
  const byIndex = new Map<number, CellResult>();
  const from = new Map<number, string>();
  for (const s of shards) {
    for (const r of s.cells) {
      const other = from.get(r.cell.index);
      if (other !== undefined) {
        throw new UserError(
          `cell ${r.cell.index + 1} (${r.cell.id}) is in both ${other} and ${s.dir}: give each shard once`,
        );
      }
      byIndex.set(r.cell.index, r);
      from.set(r.cell.index, s.dir);
    }
  }
  const cells = [...byIndex.values()].sort((a, b) => a.cell.index - b.cell.index);
  const missing = first.totalCells - cells.length;
  // The cells no shard given holds, by name (shards written before allCells: by number).
  const names = shards.find((s) => s.allCells)?.allCells;
  const missingCells: CellName[] = [];
  for (let i = 0; i < first.totalCells && missingCells.length < missing; i++) {
    if (!byIndex.has(i)) missingCells.push(names?.[i] ?? { index: i, id: `cell ${i + 1}` });
  }
  const interrupted = shards.some((s) => s.interrupted || s.state === 'cut-short');
  const times = (f: (s: CampaignSummary) => string) => shards.map(f).filter(Boolean).sort();
  // The merge is as far as its least: one shard still running, failed, or cut short, says it.
  const state: CampaignStateName = shards.some((s) => s.state === 'running')
    ? 'running'
    : shards.some((s) => s.state === 'failed')
      ? 'failed'
      : interrupted
        ? 'cut-short'
        : 'finished';
  const by = [...new Set(shards.map((s) => s.cutShortBy).filter((b): b is string => b !== undefined))];
  // Every shard's cells by name: those it planned, or (written before plans were) those it has.
  const planned = shards.flatMap(
    (s) => s.planned ?? s.cells.map((r) => ({ index: r.cell.index, id: r.cell.id, expect: r.cell.expect })),
  );
  const merged: CampaignSummary & { missing: number } = {
    name: first.name,
    source: first.source,
    dir,
    totalCells: first.totalCells,
    startedAt: times((s) => s.startedAt)[0] ?? '',
    finishedAt: times((s) => s.finishedAt).at(-1) ?? '',
    interrupted,
    state,
    met: state === 'finished' && missing === 0 && cells.every((r) => r.met),
    cells,
    missing,
    mergedShards: shards.length,
  };
  if (state === 'cut-short') merged.cutShortBy = by.join('; ') || 'an interruption';
  if (state === 'failed') merged.failedBy = [...new Set(shards.flatMap((s) => s.failedBy ?? []))].join('; ');
  merged.planned = planned.sort((a, b) => a.index - b.index);
  if (missing > 0) merged.missingCells = missingCells;
  if (first.description !== undefined) merged.description = first.description;
  return merged;
}

/**
 * Reads the shard folders, copies each cell's run folder into `out`/runs/ (so that the
 * merged folder, uploaded or moved alone, has every run its page links), and writes the
 * merged summary.html (with what flipped since `previous`, the night before, when given),
 * summary.json and junit.xml. With `store`, `out` is in it: every path written is checked
 * to resolve inside it first (store-path.ts). A link in a shard is not copied (it would
 * point elsewhere wherever the copy lands): `skippedLinks` names them.
 */
export function mergeCampaign(
  dirs: readonly string[],
  out: string,
  o: { store?: string; previous?: CampaignSummary } = {},
) {
  const { store } = o;
  const shards = dirs.map((dir) => readSummary(dir));
  checkOneSplit(shards);
  const writable = (path: string) => (store === undefined ? notALink(path) : insideStore(store, path, 'write'));
  mkdirSync(writable(out), { recursive: true });
  const skippedLinks: string[] = [];
  for (const shard of shards) bringRuns(shard, resolve(out), writable, skippedLinks);
  const summary = mergeSummaries(shards, resolve(out));
  const files = summaryFiles(out);
  writeFileSync(writable(files.summaryJson), summaryJson(summary));
  writeFileSync(writable(files.junit), campaignJUnit(summary));
  writeFileSync(
    writable(files.summaryHtml),
    summaryHtml(summary, o.previous ? { since: flipsSince(summary, o.previous) } : {}),
  );
  return { summary, files, skippedLinks };
}

/**
 * A shard's run folders copied into `out` at the same place under it (runs/NNN-cell/...),
 * and its results' paths pointed at the copies. A path outside the shard's folder is left.
 * Links are not copied: each one skipped is added to `skipped`.
 */
function bringRuns(shard: CampaignSummary, out: string, writable: (path: string) => string, skipped: string[]): void {
  if (resolve(shard.dir) === out) return;
  const inside = (p: string) => {
    const rel = relative(shard.dir, p);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : undefined;
  };
  const moved = (p: string | undefined) => {
    const rel = p === undefined ? undefined : inside(p);
    return rel === undefined ? p : join(out, rel);
  };
  const notLink = copyNoLink(skipped, writable);
  for (const r of shard.cells) {
    const rel = r.dir === undefined ? undefined : inside(r.dir);
    if (rel === undefined) continue;
    // The cell's whole folder (runs/NNN-cell/), with its shrink/ and every run in it.
    const top = rel.split(sep).slice(0, 2).join(sep);
    if (existsSync(join(shard.dir, top))) {
      cpSync(join(shard.dir, top), writable(join(out, top)), { recursive: true, filter: notLink });
    }
    r.dir = moved(r.dir);
    r.report = moved(r.report);
    r.shrink = moved(r.shrink);
    if (r.shrink === undefined) delete r.shrink;
    if (r.report === undefined) delete r.report;
  }
}
