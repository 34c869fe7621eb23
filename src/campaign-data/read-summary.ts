/**
 * The one reader of summary.json (summary-record.ts): merge, serve, the job summary, the
 * nights of a store and their flips all read a campaign folder through readSummary, and
 * take what it returns as it is. A summary.json is input from anyone (a shard downloaded
 * from a fork's CI, a store restored from a cache): so here, once, it is held to what
 * lockchaos campaign writes. A regular file within MAX_SUMMARY_JSON_BYTES, JSON nested no
 * deeper than MAX_DEPTH, its name a plain name and its times ISO times (they become a
 * folder in a store: nights.ts), its counts within MAX_CELLS and within what it holds,
 * every cell's every field of its kind (stored-fields.ts). Anything else is one line
 * naming the file and the field. A file of an older build (before the stamp, before the
 * state, before the plan) reads as what it says.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MAX_DEPTH, nestedDeeperThan } from '../util/depth.js';
import { UserError } from '../util/errors.js';
import { MiB, readRegularFile } from '../util/regular-file.js';
import { CAMPAIGN_FILES } from './campaign-folder.js';
import { CAMPAIGN_NAME, type CellName, MAX_CELLS, type Shard } from './cell.js';
import { type CampaignProgress, type CampaignStateName, isRunner, observedState } from './state.js';
import {
  checkFields,
  type FieldTable,
  isBoolean,
  isCellName,
  isCount,
  isObject,
  isSeconds,
  isString,
  optional,
  shown,
  storedCell,
} from './stored-fields.js';
import type { CampaignSummary, SummaryRecord, WrittenState } from './summary-record.js';
import { summaryTallies } from './tallies.js';

/**
 * The most of a summary.json that is read: a campaign of MAX_CELLS cells writes a few
 * MiB. A larger one (or a device, a FIFO) was not written by a campaign, and reading it
 * whole cost a reader gigabytes.
 */
export const MAX_SUMMARY_JSON_BYTES = 32 * MiB;

const names = (x: unknown): x is CellName[] => Array.isArray(x) && x.every(isCellName);

/** An ISO time as a campaign writes it (new Date().toISOString()): it names a folder in a store. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;
const isTime = (x: unknown): x is string => typeof x === 'string' && ISO_TIME.test(x) && Number.isFinite(Date.parse(x));

const isShard = (x: unknown): x is Shard =>
  isObject(x) &&
  isCount(x.count) &&
  Number(x.count) > 0 &&
  Number(x.count) <= MAX_CELLS &&
  isCount(x.index) &&
  Number(x.index) >= 1 &&
  Number(x.index) <= Number(x.count);

const isProgress = (x: unknown): x is CampaignProgress =>
  isObject(x) && isCount(x.done) && isCount(x.total) && isSeconds(x.elapsedS) && optional(isSeconds)(x.leftS);

const STATES: readonly CampaignStateName[] = ['running', 'finished', 'cut-short', 'failed'];
const isState = (x: unknown): x is CampaignStateName => STATES.some((s) => s === x);

/**
 * The summary's own fields, beside its cells' (stored-fields.ts). The name and the start
 * become a folder in a store (nights.ts): data, held to a plain name and an ISO time.
 */
const SUMMARY_FIELDS: FieldTable = {
  name: [(x) => typeof x === 'string' && CAMPAIGN_NAME.test(x), "a plain name (letters, digits, . _ -, not '..')"],
  source: [isString, 'a path'],
  description: [optional(isString), 'a string'],
  startedAt: [isTime, 'an ISO time (2026-12-01T02:00:00.000Z)'],
  finishedAt: [(x) => x === '' || isTime(x), "an ISO time, or '' (not finished)"],
  interrupted: [isBoolean, 'true or false'],
  totalCells: [(x) => isCount(x) && Number(x) <= MAX_CELLS, `a count of cells up to ${MAX_CELLS}`],
  shard: [(x) => !x || isShard(x), 'a shard {index, count}: an index from 1 to its count'],
  planned: [optional(names), 'a list of cells ({index, id, expect?})'],
  allCells: [optional(names), 'a list of cells ({index, id, expect?})'],
  progress: [optional(isProgress), 'progress {done, total, elapsedS, leftS?}'],
  schema: [optional((x) => isCount(x) && Number(x) >= 1), 'a schema number from 1'],
  lockchaos: [optional(isString), 'a version'],
};

/** summary.json's text, a regular file within MAX_SUMMARY_JSON_BYTES, else a UserError naming it. */
const readSummaryText = (path: string): string =>
  readRegularFile(path, 'campaign summary', {
    maxBytes: MAX_SUMMARY_JSON_BYTES,
    fix: 'not a summary.json lockchaos campaign writes: give the folders lockchaos wrote',
  }).toString('utf8');

const wrote = 'give the summary.json lockchaos campaign wrote';

/**
 * The campaign folder `dir`'s summary.json, read and checked (see the top of this file),
 * its paths made absolute, its state as a reader sees it at `nowMs` (a "running" whose
 * runner is gone is cut short), its tallies made from its checked cells.
 */
export function readSummary(dir: string, nowMs = Date.now()): SummaryRecord {
  const path = join(dir, CAMPAIGN_FILES.summaryJson);
  if (!existsSync(path)) {
    throw new UserError(
      `${dir} is not a campaign folder: it has no summary.json (give the folders lockchaos campaign wrote)`,
    );
  }
  let s: unknown;
  try {
    s = JSON.parse(readSummaryText(path));
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`${path} is not readable JSON (${(err as Error).message.split('\n')[0]})`);
  }
  if (!isObject(s) || typeof s.name !== 'string' || !Array.isArray(s.cells) || typeof s.totalCells !== 'number') {
    throw new UserError(`${path} is not a campaign summary (no name, totalCells or cells)`);
  }
  if (nestedDeeperThan(s)) throw new UserError(`${path} nests more than ${MAX_DEPTH} levels deep: ${wrote}`);
  // Every field the pages show, checked: a night in the store is read here too.
  checkFields(s, SUMMARY_FIELDS, path);
  const { name, source, description, startedAt, finishedAt, interrupted, totalCells, shard } = s;
  const { planned, allCells, progress, schema, lockchaos, cells: stored } = s;
  if (
    !isString(name) ||
    !isString(source) ||
    !isTime(startedAt) ||
    !isString(finishedAt) ||
    typeof interrupted !== 'boolean' ||
    typeof totalCells !== 'number'
  ) {
    throw new UserError(`${path} is not a campaign summary: ${wrote}`);
  }
  // Every count bounded by what the file holds: a merge loops over them.
  const held = (list: unknown[] | undefined, what: string, exact: boolean) => {
    if (list === undefined || (exact ? list.length === totalCells : list.length <= totalCells)) return;
    throw new UserError(`${path}: its ${what} lists ${list.length} cells, its totalCells is ${totalCells}: ${wrote}`);
  };
  const allNames = names(allCells) ? allCells : undefined;
  const plannedNames = names(planned) ? planned : undefined;
  held(allNames, 'allCells', true);
  held(plannedNames, 'planned', false);
  held(stored, 'cells', false);
  const abs = (p: string) => resolve(dir, p);
  const cells = stored.map((x, position) => storedCell(x, position, path, abs));
  const beyond = cells.find((r) => r.cell.index >= totalCells);
  if (beyond) {
    throw new UserError(
      `${path}: cell ${beyond.cell.index + 1} (${shown(beyond.cell.id)}) is beyond its ${totalCells} cells: ${wrote}`,
    );
  }
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  const written: WrittenState = { finishedAt, interrupted };
  if (isState(s.state)) written.state = s.state;
  const cutShortBy = str(s.cutShortBy);
  const failedBy = str(s.failedBy);
  const updatedAt = str(s.updatedAt);
  if (cutShortBy !== undefined) written.cutShortBy = cutShortBy;
  if (failedBy !== undefined) written.failedBy = failedBy;
  if (updatedAt !== undefined) written.updatedAt = updatedAt;
  if (isRunner(s.runner)) written.runner = s.runner;
  const summary: CampaignSummary = {
    name,
    source,
    dir: resolve(dir),
    totalCells,
    startedAt,
    finishedAt,
    interrupted,
    // A "running" whose runner is gone (killed, or its CI job ended) is cut short.
    ...observedState(written, nowMs),
    met: false,
    cells,
  };
  if (updatedAt !== undefined) summary.updatedAt = updatedAt;
  if (isProgress(progress)) summary.progress = progress;
  if (written.runner) summary.runner = written.runner;
  if (plannedNames) summary.planned = plannedNames;
  if (summary.state === 'finished') summary.met = !interrupted && cells.every((r) => r.met);
  if (isString(description)) summary.description = description;
  if (isShard(shard)) summary.shard = shard;
  if (allNames) summary.allCells = allNames;
  // A merge's: how many of the campaign's cells no shard held, and those cells by name.
  if (isCount(s.missing) && Number(s.missing) <= totalCells) summary.missing = Number(s.missing);
  if (isCount(s.mergedShards) && Number(s.mergedShards) <= MAX_CELLS) summary.mergedShards = Number(s.mergedShards);
  if (names(s.missingCells) && s.missingCells.length <= totalCells) summary.missingCells = s.missingCells;
  return {
    ...summary,
    ...(isString(lockchaos) ? { lockchaos } : {}),
    schema: isCount(schema) ? Number(schema) : 1,
    written,
    ...summaryTallies(summary),
  };
}
