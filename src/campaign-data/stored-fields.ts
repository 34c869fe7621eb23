/**
 * A cell as a summary.json stores it (the cell's fields and its result's), checked field
 * by field by its reader (read-summary.ts) before any page shows it or a merge tallies it:
 * a shard's file, or a night's in the store, is input like any other. A field of the wrong kind is one line
 * naming the cell and the field, never a stack from the page that would have shown it.
 */
import type { CoverageRow } from '../../checkers/coverage.js';
import type { TestConfig } from '../run-data/config.js';
import { UserError } from '../util/errors.js';
import { ACTUALS, type Actual, type Cell, type CellExploration, EXPECTATIONS, type Expectation } from './cell.js';
import type { CellPhases, CellResult } from './summary-record.js';

export const isCount = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
export const isSeconds = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;
export const isString = (x: unknown) => typeof x === 'string';
export const isBoolean = (x: unknown) => typeof x === 'boolean';
export const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);
export const optional = (test: (x: unknown) => boolean) => (x: unknown) => x === undefined || test(x);

/** A code-point row (checkers/coverage.ts). */
function isCoverageRow(x: unknown): x is CoverageRow {
  if (!isObject(x)) return false;
  return (
    typeof x.point === 'string' &&
    (x.fault === undefined || typeof x.fault === 'string') &&
    (x.reached === undefined || isCount(x.reached)) &&
    isCount(x.hits) &&
    isCount(x.followed) &&
    (x.counts === undefined || x.counts === false) &&
    (x.held === undefined || (isObject(x.held) && isSeconds(x.held.shortestMs) && isSeconds(x.held.longestMs)))
  );
}

/** A cell by name, as a summary lists those planned and all of the campaign's. */
export function isCellName(x: unknown): boolean {
  return isObject(x) && isCount(x.index) && isString(x.id) && optional(isExpectation)(x.expect);
}

const isExpectation = (x: unknown): x is Expectation => EXPECTATIONS.some((e) => e === x);
const isActual = (x: unknown): x is Actual => ACTUALS.some((a) => a === x);

type CheckerLine = NonNullable<CellResult['checkers']>[number];

/** A checker's line: its name, its verdict, whether it counts, its summary. */
function isCheckerLine(x: unknown): x is CheckerLine {
  return (
    isObject(x) &&
    isString(x.checker) &&
    (x.valid === true || x.valid === false || x.valid === 'unknown') &&
    isBoolean(x.counts) &&
    isString(x.summary)
  );
}

/**
 * A cell's run configuration as the summary keeps it: an object, its time limit in
 * seconds. Only that is read from it (a replay reads the run's test.json, checked there);
 * the rest is written back as it came.
 */
function isStoredConfig(x: unknown): x is TestConfig {
  return isObject(x) && (x.timeLimitS === undefined || isSeconds(x.timeLimitS));
}

/** A number of its kind (a count, seconds) that is more than 0. */
const isAbove0 = (x: unknown, kind: (x: unknown) => boolean) => kind(x) && typeof x === 'number' && x > 0;

/** An exploring cell's request (cell.ts CellExploration): a budget of runs or minutes, each try's seconds, shrink runs. */
function isCellExploration(x: unknown): x is CellExploration {
  if (!isObject(x) || !isObject(x.budget)) return false;
  const { runs, minutes } = x.budget;
  const budget = Object.keys(x.budget).length === 1 && (isAbove0(runs, isCount) || isAbove0(minutes, isSeconds));
  const untilBroken = x.untilBroken === undefined || typeof x.untilBroken === 'boolean';
  return budget && isAbove0(x.runTimeS, isSeconds) && isCount(x.shrinkRuns) && untilBroken;
}

type ExplorationResult = NonNullable<CellResult['exploration']>;

/** An exploring cell's outcome: its file, its counts, each broken point's lines. */
function isExplorationResult(x: unknown): x is ExplorationResult {
  return (
    isObject(x) &&
    isString(x.file) &&
    isCount(x.tries) &&
    isCount(x.points) &&
    Array.isArray(x.broken) &&
    x.broken.every(
      (b) =>
        isObject(b) && isString(b.spec) && isString(b.finding) && isString(b.replay) && optional(isString)(b.shrunk),
    )
  );
}

const isPhases = (x: unknown): x is CellPhases => isObject(x) && Object.values(x).every(isSeconds);

/** Each stored field, what it must be, and the words for it. */
export type FieldTable = Record<string, [test: (x: unknown) => boolean, what: string]>;

// A stored cell's fields: what each must be, in the words a refusal uses.
const FIELDS: FieldTable = {
  index: [isCount, 'a cell number from 0'],
  entry: [isCount, 'a matrix entry number from 0'],
  id: [isString, 'a string'],
  backend: [isString, 'a string'],
  workload: [isString, 'a string'],
  nemesis: [isString, 'a string'],
  scenario: [optional(isString), 'a string'],
  fencing: [isBoolean, 'true or false'],
  seed: [(x) => typeof x === 'number' && Number.isInteger(x), 'an integer'],
  expect: [isExpectation, `one of ${EXPECTATIONS.join(', ')}`],
  availability: [optional((x) => typeof x === 'number' && x >= 0 && x <= 1), 'a share from 0 to 1'],
  explore: [
    optional(isCellExploration),
    'an exploration ({budget: {runs} or {minutes}, runTimeS, shrinkRuns, untilBroken?})',
  ],
  config: [isStoredConfig, "a run's configuration, its timeLimitS in seconds"],
  actual: [isActual, `one of ${ACTUALS.join(', ')}`],
  met: [isBoolean, 'true or false'],
  message: [isString, 'a string'],
  durationS: [isSeconds, 'seconds'],
  headline: [optional(isString), 'a string'],
  dir: [optional(isString), 'a path'],
  report: [optional(isString), 'a path'],
  shrink: [optional(isString), 'a path'],
  checkers: [
    optional((x) => Array.isArray(x) && x.every(isCheckerLine)),
    'a list of {checker, valid, counts, summary}',
  ],
  stoppedEarlyS: [optional(isSeconds), 'seconds'],
  stoppedEarlyWhy: [optional(isString), 'a string'],
  phases: [optional(isPhases), 'seconds per phase'],
  coverage: [
    optional((x) => Array.isArray(x) && x.every(isCoverageRow)),
    'a list of code-point rows ({point, fault?, reached?, hits, followed})',
  ],
  exploration: [optional(isExplorationResult), 'an exploration ({file, tries, points, broken})'],
};

/** A stored value as the error shows it: JSON, cut short (a field may be of any length). */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'missing';
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A UserError naming `where`'s first field that is not what `table` says, and its value. */
export function checkFields(x: Record<string, unknown>, table: FieldTable, where: string): void {
  for (const [field, [test, what]] of Object.entries(table)) {
    if (!test(x[field])) {
      throw new UserError(
        `${where}'s ${field} is not ${what} (${shown(x[field])}): give the summary.json lockchaos campaign wrote`,
      );
    }
  }
}

/**
 * The stored cell `x` (the `position`th of `path`'s cells) as a result, its paths made
 * absolute by `abs`; a UserError naming the first field that is not what
 * lockchaos campaign writes.
 */
export function storedCell(x: unknown, position: number, path: string, abs: (p: string) => string): CellResult {
  if (!isObject(x)) {
    throw new UserError(
      `${path}: cell ${position + 1} of its list is not an object: give the summary.json lockchaos campaign wrote`,
    );
  }
  const where = isCount(x.index)
    ? `${path}: cell #${Number(x.index) + 1}`
    : `${path}: cell ${position + 1} of its list`;
  checkFields(x, FIELDS, where);
  // Each field again by its own test, now as its type: checkFields has refused any other.
  const { index, entry, id, backend, workload, nemesis, scenario, fencing, seed, expect, availability, config } = x;
  const { actual, met, message, headline, durationS, dir, report, checkers, stoppedEarlyS, stoppedEarlyWhy } = x;
  const { phases, coverage, shrink, explore, exploration } = x;
  if (
    !isCountValue(index) ||
    !isCountValue(entry) ||
    !isStringValue(id) ||
    !isStringValue(backend) ||
    !isStringValue(workload) ||
    !isStringValue(nemesis) ||
    typeof fencing !== 'boolean' ||
    typeof seed !== 'number' ||
    !isExpectation(expect) ||
    !isStoredConfig(config) ||
    !isActual(actual) ||
    typeof met !== 'boolean' ||
    !isStringValue(message) ||
    typeof durationS !== 'number'
  ) {
    throw new UserError(`${where} is not a cell lockchaos campaign writes: give the summary.json it wrote`);
  }
  const cell: Cell = { index, entry, id, backend, workload, nemesis, fencing, seed, expect, config };
  if (isStringValue(scenario)) cell.scenario = scenario;
  if (typeof availability === 'number') cell.availability = availability;
  if (isCellExploration(explore)) cell.explore = explore;
  const r: CellResult = { cell, actual, met, message, durationS };
  if (isStringValue(headline)) r.headline = headline;
  if (isStringValue(dir)) r.dir = abs(dir);
  if (isStringValue(report)) r.report = abs(report);
  if (Array.isArray(checkers) && checkers.every(isCheckerLine)) r.checkers = checkers;
  if (typeof stoppedEarlyS === 'number') r.stoppedEarlyS = stoppedEarlyS;
  if (isStringValue(stoppedEarlyWhy)) r.stoppedEarlyWhy = stoppedEarlyWhy;
  if (isPhases(phases)) r.phases = phases;
  if (Array.isArray(coverage) && coverage.every(isCoverageRow)) r.coverage = coverage;
  if (isStringValue(shrink)) r.shrink = abs(shrink);
  if (isExplorationResult(exploration)) r.exploration = { ...exploration, file: abs(exploration.file) };
  return r;
}

const isCountValue = (x: unknown): x is number => isCount(x);
const isStringValue = (x: unknown): x is string => typeof x === 'string';
