/**
 * What `lockchaos serve` shows of a store, read from the folders as they are on disk:
 *
 *   <store>/<test>/<timestamp>/                          a run (test.json, results.json, ...)
 *   <store>/campaigns/<name>/<timestamp>[-shard-i-of-n]/  a campaign (summary.json; sweep.json
 *                                                        or bench.json for those)
 *   <store>/campaigns/<name>/<timestamp>/runs/NNN-<cell>/<timestamp>/   its runs
 *   <run>/shrink/minimal/, <run>/shrink/runs/...         a shrink's runs
 *
 * Per run only the first 8 kB of results.json are read (its verdict, conditions and
 * configuration come first; the checkers' details, tens of kilobytes, are not), or
 * test.json for a run without one, and kept by the folder's modification time: a page
 * over 10,000 runs rereads only what changed. Symbolic links (`latest`) are not followed, so no run is listed twice.
 */
import { closeSync, type Dirent, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { CAMPAIGN_FILES } from '../campaign-data/campaign-folder.js';
import { type Mark, markOf } from '../campaign-data/mark.js';
import { readSummary } from '../campaign-data/read-summary.js';
import { type CampaignProgress, type CampaignStateName, observedState } from '../campaign-data/state.js';
import type { WrittenState } from '../campaign-data/summary-record.js';
import { type ConfigurationTally, configurationOf, type Totals } from '../campaign-data/tallies.js';
import { MAX_TEST_JSON_BYTES, type RESULTS_HEAD_KEYS, RUN_FILES, readResults } from '../run-data/run-folder.js';
import { readRegularFile } from '../util/regular-file.js';

export type Verdict = 'valid' | 'invalid' | 'unknown' | 'none';

export interface RunEntry {
  /** The folder, relative to the store, with '/' separators. */
  path: string;
  name: string;
  /** When the run started, from its folder's name (ISO), or '' when the name is not a time. */
  startedAt: string;
  /** 'none': no results.json (a run killed or still going). */
  verdict: Verdict;
  /** The run did not run as configured (results.json's conditions). */
  conditions: string[];
  backend: string;
  workload: string;
  nemesis: string;
  scenario?: string;
  fencing: boolean;
  seed: number | undefined;
  /** The campaign folder (relative to the store) when the run was one of a campaign's cells. */
  campaign?: string;
  /** A campaign's cell: its configuration (the cell id without its seed), night, expectation and whether it was met. */
  campaignName?: string;
  configuration?: string;
  night?: string;
  expect?: string;
  met?: boolean;
  /** Files of the run folder that a reader opens, when present. */
  report: boolean;
  shrink: boolean;
}

/** A configuration's night as the index keeps it: the tally summary.json's reader gives, less its seeds. */
export type NightTally = Pick<ConfigurationTally, 'configuration' | 'expect' | 'met' | 'ran'>;

export interface CampaignEntry {
  /** The campaign folder, relative to the store. */
  path: string;
  /** The campaign's name: one campaign file gives one name, night after night. */
  name: string;
  startedAt: string;
  /** The night it belongs to: startedAt's date (UTC), YYYY-MM-DD. */
  night: string;
  shard?: string;
  /** Written by `campaign merge` (from shards that are in the store too, often). */
  merged?: boolean;
  totals: Totals;
  interrupted: boolean;
  /** Running, finished or cut short, as a reader sees it now (a killed runner's "running" is cut short). */
  state: CampaignStateName;
  cutShortBy?: string;
  /** Failed: the error its runner ended in. */
  failedBy?: string;
  progress?: CampaignProgress;
  /** This shard's cells that have no verdict: still to run, or (cut short) never ran. */
  notRun: { index: number; id: string }[];
  met: boolean;
  configurations: NightTally[];
  /** The generated campaign's own page, when there is one. */
  page?: typeof CAMPAIGN_FILES.sweepHtml | typeof CAMPAIGN_FILES.benchHtml;
  summaryHtml: boolean;
}

export type { Mark } from '../campaign-data/mark.js';

export interface TrendRow {
  configuration: string;
  expect: string;
  /** One per night of the campaign, oldest first. */
  marks: { night: string; mark: Mark; met: number; ran: number }[];
  /** The last mark differs from the one before it (of nights it ran). */
  flipped: boolean;
  /** Some night's mark is flaky, or the marks change more than once. */
  flaky: boolean;
}

export interface CampaignTrend {
  name: string;
  nights: string[];
  rows: TrendRow[];
}

export interface StoreIndex {
  store: string;
  runs: RunEntry[];
  campaigns: CampaignEntry[];
  trends: CampaignTrend[];
  /** Files that could not be read, in words (a run being written, a damaged file). */
  problems: string[];
  /** Milliseconds the scan took. */
  scanMs: number;
}

interface Listing {
  mtime: number;
  files: Set<string>;
  dirs: string[];
}

interface Cached<T> {
  key: string;
  value: T;
}

/** A campaign's cell as the runs list shows it: its run folder, configuration, expectation and outcome. */
interface CampaignCell {
  /** The run folder, relative to the store. */
  dir: string;
  configuration: string;
  expect: string;
  met: boolean;
}

/** What one scan keeps for the next: entries by folder, valid while their files' mtimes are. */
export class IndexCache {
  readonly listings = new Map<string, Listing>();
  readonly runs = new Map<string, Cached<RunEntry>>();
  readonly campaigns = new Map<string, Cached<{ entry: CampaignEntry; cells: CampaignCell[]; stored: WrittenState }>>();
}

const HEAD_BYTES = 8192;

interface Scan {
  /** The wanted fields whose values end within the text, parsed. */
  found: Record<string, unknown>;
  /** The object's closing brace was reached: a wanted field not found is absent. */
  ended: boolean;
  /** Where each key's value begins (also a value cut off). */
  starts: Record<string, number>;
}

/**
 * The fields `wanted` of the JSON object whose '{' is at `open` in `text` (the start of a
 * file): scanning stops once all are found, at the object's end, or where the text is cut.
 */
function scanObject(text: string, open: number, wanted: readonly string[]): Scan {
  const out: Scan = { found: {}, ended: false, starts: {} };
  if (open < 0 || text[open] !== '{') return out;
  let i = open + 1;
  const stringEnd = (from: number) => {
    let j = from + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return j < text.length ? j + 1 : -1;
  };
  while (Object.keys(out.found).length < wanted.length) {
    while (i < text.length && /[\s,]/.test(text.charAt(i))) i++;
    if (text[i] === '}') {
      out.ended = true;
      return out;
    }
    if (text[i] !== '"') return out;
    const keyEnd = stringEnd(i);
    if (keyEnd < 0) return out;
    const key = String(JSON.parse(text.slice(i, keyEnd)));
    i = keyEnd;
    while (i < text.length && /[\s:]/.test(text.charAt(i))) i++;
    // The value: up to the comma or brace that closes it at this depth.
    const start = i;
    out.starts[key] = start;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        const end = stringEnd(i);
        if (end < 0) return out;
        i = end - 1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    if (i >= text.length) return out;
    if (wanted.includes(key)) out.found[key] = JSON.parse(text.slice(start, i));
    if (text[i] === '}') {
      out.ended = true;
      return out;
    }
  }
  return out;
}

/**
 * The top-level fields `wanted` of a JSON object, from the start of its text: each one
 * whose value ends within `text` is parsed. A field whose value is cut off is left out.
 */
export function headFields(text: string, wanted: readonly string[]): Record<string, unknown> {
  return scanObject(text, text.indexOf('{'), wanted).found;
}

/** What the index shows of a run's configuration. */
const CONFIG_KEYS = ['name', 'backend', 'workload', 'nemesis', 'scenario', 'fencing', 'seed'];

function readHead(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(bytes);
    const n = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * A file the index reads whole, within its cap (a regular file; stat first): a 400 MiB
 * test.json or summary.json cost the server 1.3 GB, and the folder then left the page
 * without a word. Past the cap it is a problem the page lists, naming the file and size.
 */
const readCapped = (path: string, what: string, maxBytes: number) =>
  readRegularFile(path, what, { maxBytes, fix: 'not a file lockchaos writes: the index skips this folder' }).toString(
    'utf8',
  );

const verdictOf = (valid: unknown): Verdict =>
  valid === true ? 'valid' : valid === false ? 'invalid' : valid === 'unknown' ? 'unknown' : 'none';

/** What the index takes from results.json: fields that writeResults puts in its head (RESULTS_HEAD_KEYS). */
const HEAD_WANTED = ['valid', 'conditions', 'config'] as const satisfies readonly (typeof RESULTS_HEAD_KEYS)[number][];

/**
 * results.json's verdict, conditions and configuration (writeResults writes them first,
 * RESULTS_HEAD_KEYS; the checkers' details, tens of kB, come after), from its first 8 kB.
 * Where the verdict or the conditions are not within them, the whole file is read
 * (readResults). The configuration's fields the index shows are read even when a long
 * fault schedule cuts the configuration off; when they are not all there, `config` is
 * undefined (the caller reads test.json).
 */
export function readResultsHead(path: string): {
  verdict: Verdict;
  conditions: string[];
  config?: Record<string, unknown>;
} {
  const head = readHead(path, HEAD_BYTES);
  const top = scanObject(head, head.indexOf('{'), HEAD_WANTED);
  let fields = top.found;
  if (!('valid' in fields) || !('conditions' in fields)) {
    const whole = readResults(path);
    fields = { valid: whole.valid, conditions: whole.conditions, config: whole.config };
  }
  let config = hasFields(fields.config) ? fields.config : undefined;
  if (config === undefined && top.starts.config !== undefined) {
    const inner = scanObject(head, top.starts.config, CONFIG_KEYS);
    if (inner.ended || CONFIG_KEYS.every((k) => k in inner.found)) config = inner.found;
  }
  const conditions = Array.isArray(fields.conditions)
    ? fields.conditions.map((c) => String(hasFields(c) ? (c.message ?? c.kind) : undefined))
    : [];
  const verdict = verdictOf(fields.valid);
  return config && typeof config === 'object' ? { verdict, conditions, config } : { verdict, conditions };
}

/** A parsed JSON value with fields (an object or an array), read one by one; any other has none. */
const hasFields = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A run's test.json, parsed, for the fields the index shows (each checked where it is read). */
function testJsonFields(path: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readCapped(path, 'test configuration', MAX_TEST_JSON_BYTES));
  if (!hasFields(parsed)) throw new Error(`${RUN_FILES.test} is not a JSON object`);
  return parsed;
}

/** A folder name made by `stamp()` (an ISO time with '-' for ':'), back to ISO; else ''. */
export function stampTime(name: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d(?:\.\d+)?Z)/.exec(name);
  return m ? `${m[1]}:${m[2]}:${m[3]}` : '';
}

const mtime = (path: string): number | undefined => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
};

const toSlash = (path: string) => path.split(sep).join('/');

interface ScanState {
  store: string;
  cache: IndexCache;
  runs: RunEntry[];
  campaigns: CampaignEntry[];
  /** Run folder (relative) → its campaign folder (relative) and its cell there. */
  campaignOf: Map<string, CampaignCell & { campaign: string; campaignName: string; night: string }>;
  problems: string[];
  seen: { runs: Set<string>; campaigns: Set<string>; dirs: Set<string> };
}

/**
 * A run's entry. Its key is the folder's mtime: results.json and report.html are created
 * once (which changes it); test.json is rewritten in place only to add the fault schedule,
 * which the index does not read. So an unchanged run costs one stat.
 */
function readRun(state: ScanState, dir: string, list: Listing): void {
  const path = toSlash(relative(state.store, dir));
  state.seen.runs.add(path);
  const names = list.files;
  const hasResults = names.has(RUN_FILES.results);
  const key = String(list.mtime);
  const cached = state.cache.runs.get(path);
  if (cached?.key === key) {
    state.runs.push(cached.value);
    return;
  }
  try {
    // One file per run where it can: results.json's head holds the configuration too.
    const { config: fromResults, ...results } = hasResults
      ? readResultsHead(join(dir, RUN_FILES.results))
      : { verdict: 'none' as const, conditions: [], config: undefined };
    const config = fromResults ?? testJsonFields(join(dir, RUN_FILES.test));
    const str = (v: unknown, fallback = '') => (typeof v === 'string' ? v : fallback);
    const entry: RunEntry = {
      path,
      name: str(config.name, path.split('/').at(-2) ?? path),
      startedAt: stampTime(path.split('/').at(-1) ?? ''),
      ...results,
      backend: str(config.backend, '?'),
      workload: str(config.workload, '?'),
      nemesis: str(config.nemesis, 'none'),
      ...(typeof config.scenario === 'string' ? { scenario: config.scenario } : {}),
      fencing: config.fencing === true,
      seed: typeof config.seed === 'number' ? config.seed : undefined,
      report: names.has(RUN_FILES.report),
      shrink: list.dirs.includes('shrink'),
    };
    state.cache.runs.set(path, { key, value: entry });
    state.runs.push(entry);
  } catch (err) {
    state.problems.push(`${path}: ${(err as Error).message}`);
  }
}

function readCampaign(state: ScanState, dir: string, list: Listing): void {
  const path = toSlash(relative(state.store, dir));
  state.seen.campaigns.add(path);
  const names = list.files;
  // summary.json is rewritten after every cell: its own mtime.
  const { summaryJson, summaryHtml, sweepHtml, benchHtml } = CAMPAIGN_FILES;
  const key = `${mtime(join(dir, summaryJson))}:${names.has(sweepHtml)}:${names.has(benchHtml)}:${names.has(summaryHtml)}`;
  let cached = state.cache.campaigns.get(path);
  if (cached?.key !== key) {
    try {
      const s = readSummary(dir);
      const entry: CampaignEntry = {
        path,
        name: s.name,
        startedAt: s.startedAt,
        night: s.startedAt.slice(0, 10),
        ...(s.shard ? { shard: `${s.shard.index}/${s.shard.count}` } : {}),
        ...(s.missing !== undefined ? { merged: true } : {}),
        totals: s.totals,
        interrupted: s.interrupted,
        state: 'running',
        notRun: s.notRun.map(({ index, id }) => ({ index, id })),
        ...(s.progress ? { progress: s.progress } : {}),
        met: s.met,
        configurations: s.configurations.map(({ configuration, expect, met, ran }) => ({
          configuration,
          expect,
          met,
          ran,
        })),
        ...(names.has(sweepHtml) ? { page: sweepHtml } : {}),
        ...(names.has(benchHtml) ? { page: benchHtml } : {}),
        summaryHtml: names.has(summaryHtml),
      };
      const cells = s.cells.flatMap((r): CampaignCell[] =>
        r.dir === undefined
          ? []
          : [
              {
                dir: toSlash(relative(state.store, r.dir)),
                configuration: configurationOf(r.cell.id),
                expect: r.cell.expect,
                met: r.met,
              },
            ],
      );
      const stored = s.written;
      cached = { key, value: { entry, cells, stored } };
      state.cache.campaigns.set(path, cached);
    } catch (err) {
      state.problems.push(`${path}/summary.json: ${(err as Error).message}`);
      return;
    }
  }
  // Asked at every scan, not cached: the runner may have died since summary.json was written.
  const now = observedState(cached.value.stored);
  state.campaigns.push({ ...cached.value.entry, ...now });
  const { name, night } = cached.value.entry;
  for (const c of cached.value.cells) state.campaignOf.set(c.dir, { ...c, campaign: path, campaignName: name, night });
}

/** Folders inside a run or campaign folder that hold no runs. */
const NOT_RUNS = new Set<string>([RUN_FILES.nodes, CAMPAIGN_FILES.logs]);

/** A folder's files and subfolders (not links), from the cache while its mtime is unchanged. */
function listing(state: ScanState, dir: string): Listing | undefined {
  let stamp: number;
  try {
    stamp = statSync(dir).mtimeMs;
  } catch (err) {
    state.problems.push(`${toSlash(relative(state.store, dir)) || '.'}: ${(err as NodeJS.ErrnoException).code}`);
    return undefined;
  }
  const cached = state.cache.listings.get(dir);
  if (cached?.mtime === stamp) return cached;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    state.problems.push(`${toSlash(relative(state.store, dir)) || '.'}: ${(err as NodeJS.ErrnoException).code}`);
    return undefined;
  }
  const fresh: Listing = {
    mtime: stamp,
    files: new Set(entries.filter((e) => e.isFile()).map((e) => e.name)),
    // isDirectory() is false for a symbolic link: `latest` is not followed.
    dirs: entries.filter((e) => e.isDirectory() && !NOT_RUNS.has(e.name)).map((e) => e.name),
  };
  state.cache.listings.set(dir, fresh);
  return fresh;
}

function walk(state: ScanState, dir: string, depth: number): void {
  const list = listing(state, dir);
  if (!list) return;
  state.seen.dirs.add(dir);
  if (list.files.has(RUN_FILES.test)) readRun(state, dir, list);
  else if (list.files.has(CAMPAIGN_FILES.summaryJson)) readCampaign(state, dir, list);
  if (depth >= 8) return;
  for (const name of list.dirs) walk(state, join(dir, name), depth + 1);
}

/**
 * Cells' outcomes of one campaign name, night by night: the shards and reruns of a night
 * added up, or, where the night has a merge of its shards, the merge alone (its runs are
 * the shards' own, copied).
 */
export function campaignTrends(campaigns: readonly CampaignEntry[]): CampaignTrend[] {
  const mergedNights = new Set(campaigns.filter((c) => c.merged).map((c) => `${c.name}\0${c.night}`));
  const counted = campaigns.filter((c) => c.merged || !mergedNights.has(`${c.name}\0${c.night}`));
  const byName = new Map<string, CampaignEntry[]>();
  for (const c of counted) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  const trends: CampaignTrend[] = [];
  for (const [name, list] of byName) {
    const nights = [...new Set(list.map((c) => c.night))].sort();
    const tallies = new Map<string, { expect: string; byNight: Map<string, { met: number; ran: number }> }>();
    for (const c of list) {
      for (const t of c.configurations) {
        const row = tallies.get(t.configuration) ?? { expect: t.expect, byNight: new Map() };
        const n = row.byNight.get(c.night) ?? { met: 0, ran: 0 };
        row.byNight.set(c.night, { met: n.met + t.met, ran: n.ran + t.ran });
        row.expect = t.expect;
        tallies.set(t.configuration, row);
      }
    }
    const rows = [...tallies].map(([configuration, row]): TrendRow => {
      const marks = nights.map((night) => {
        const n = row.byNight.get(night) ?? { met: 0, ran: 0 };
        const mark = markOf(n.met, n.ran);
        return { night, mark, ...n };
      });
      const ran = marks.filter((m) => m.mark !== 'not-run');
      const changes = ran.filter((m, i) => i > 0 && m.mark !== ran[i - 1]?.mark).length;
      const flipped = ran.length >= 2 && ran.at(-1)?.mark !== ran.at(-2)?.mark;
      return {
        configuration,
        expect: row.expect,
        marks,
        flipped,
        flaky: ran.some((m) => m.mark === 'flaky') || changes > 1,
      };
    });
    // What changed last night first, then the flaky ones, then the rest in campaign order.
    const rank = (r: TrendRow) => (r.flipped ? 0 : r.flaky ? 1 : 2);
    rows.sort((a, b) => rank(a) - rank(b));
    trends.push({ name, nights, rows });
  }
  return trends.sort((a, b) => a.name.localeCompare(b.name));
}

/** Reads the store (see the top of this file); `cache` carries what is unchanged to the next call. */
export function scanStore(store: string, cache = new IndexCache()): StoreIndex {
  const t0 = performance.now();
  const state: ScanState = {
    store,
    cache,
    runs: [],
    campaigns: [],
    campaignOf: new Map(),
    problems: [],
    seen: { runs: new Set(), campaigns: new Set(), dirs: new Set() },
  };
  walk(state, store, 0);
  // Forget what is gone, so that a long-running server's cache does not grow without end.
  for (const k of cache.runs.keys()) if (!state.seen.runs.has(k)) cache.runs.delete(k);
  for (const k of cache.campaigns.keys()) if (!state.seen.campaigns.has(k)) cache.campaigns.delete(k);
  for (const k of cache.listings.keys()) if (!state.seen.dirs.has(k)) cache.listings.delete(k);
  const runs = state.runs.map((r) => {
    const cell = state.campaignOf.get(r.path);
    if (cell === undefined) return r;
    const { campaign, campaignName, configuration, night, expect, met } = cell;
    return { ...r, campaign, campaignName, configuration, night, expect, met };
  });
  // Newest first.
  runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || a.path.localeCompare(b.path));
  const campaigns = state.campaigns.sort(
    (a, b) => b.startedAt.localeCompare(a.startedAt) || a.path.localeCompare(b.path),
  );
  return {
    store,
    runs,
    campaigns,
    trends: campaignTrends(campaigns),
    problems: state.problems,
    scanMs: performance.now() - t0,
  };
}

export interface RunFilter {
  verdict?: string;
  backend?: string;
  nemesis?: string;
  fencing?: string;
  seed?: string;
  /** Words the run's name, path or scenario contains. */
  text?: string;
  /** A campaign's configuration (a trend row), and the night (YYYY-MM-DD) of its campaign: a mark's runs. */
  configuration?: string;
  night?: string;
  /** A campaign's name, with configuration and night. */
  campaign?: string;
}

export const FILTER_KEYS = [
  'verdict',
  'backend',
  'nemesis',
  'fencing',
  'seed',
  'text',
  'configuration',
  'night',
  'campaign',
] as const;

/** The runs that pass every filter given (an empty value passes all). */
export function filterRuns(runs: readonly RunEntry[], f: RunFilter): RunEntry[] {
  const text = f.text?.trim().toLowerCase();
  return runs.filter(
    (r) =>
      (!f.verdict || r.verdict === f.verdict) &&
      (!f.backend || r.backend === f.backend) &&
      (!f.nemesis || r.nemesis === f.nemesis) &&
      (!f.fencing || (f.fencing === 'on') === r.fencing) &&
      (!f.seed || String(r.seed) === f.seed.trim()) &&
      (!f.configuration || r.configuration === f.configuration) &&
      (!f.night || r.night === f.night) &&
      (!f.campaign || r.campaignName === f.campaign) &&
      (!text || `${r.name} ${r.path} ${r.scenario ?? ''}`.toLowerCase().includes(text)),
  );
}
