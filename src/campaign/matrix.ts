/**
 * From a campaign to its cells: each matrix entry crosses backend × workload × (nemesis
 * or scenario) × fencing × seeds, in that nesting order, entries one after the other. The
 * order is deterministic, so that shards partition the same list on every machine.
 */

import { statSync } from 'node:fs';
import { clientProgramName } from '../backends/client-protocol.js';
import { type Backend, backendOf, isModulePath } from '../backends/index.js';
import { type Cell, MAX_CELLS, type Shard } from '../campaign-data/cell.js';
import { fencingWord, type TestConfig } from '../run-data/config.js';
import { FencingRefused, locatePaths, type ResolvedRun, resolveRun, testName } from '../run-data/resolve.js';
import { type RunParameters, resolveScenario, type Scenario, scenarioRunsOn } from '../scenarios/index.js';
import { UserError } from '../util/errors.js';
import { child, SchemaError } from './schema.js';
import type { CampaignSpec, CellMatch, Expectation, MatrixEntry } from './spec.js';

export { type Cell, MAX_CELLS, type Shard } from '../campaign-data/cell.js';

/** A cell with its run resolved, once, as it was checked: what the campaign runs. */
export interface ResolvedCell extends Cell {
  resolved: ResolvedRun;
}

/**
 * What the command line sets on the cells (--shard, --time-limit, --stop-on-violation,
 * --full-time): applied as each cell is made, before its run is resolved.
 */
export interface CellOptions {
  /** Only this shard's cells are run: cell k goes to shard (k mod count) + 1. */
  shard?: Shard;
  /** Overrides every cell's time limit, in seconds. */
  timeLimitS?: number;
  /** Every cell ends at its first counted violation: --stop-on-violation. */
  stopOnViolation?: boolean;
  /**
   * No cell stops early unless it asks (--full-time): by default a cell that expects
   * invalid ends at its first counted violation, its verdict being decided then.
   */
  fullTime?: boolean;
}

/** A cell's configuration with the command line's options on it. */
function withCellOptions(config: TestConfig, expect: Expectation, options: CellOptions): TestConfig {
  if (options.timeLimitS !== undefined) config.timeLimitS = options.timeLimitS;
  if (options.stopOnViolation) config.stopOnViolation = true;
  // A cell that expects invalid is decided by its first counted violation: the rest of
  // its time limit would only find more of them. Its own `stop-on-violation` wins.
  else if (expect === 'invalid' && !options.fullTime) config.stopOnViolation ??= true;
  return config;
}

/**
 * backend[options]+client/workload/faults/fencing/seed: the backend's options and the
 * client program are part of what a configuration is (the same scenario with and without
 * WAIT are two configurations; so are redis with redis-py's Lock and with redis-semaphore).
 */
export function cellId(
  c: Pick<Cell, 'backend' | 'workload' | 'nemesis' | 'scenario' | 'fencing' | 'seed'> & {
    backendOptions?: string;
    client?: string;
    label?: string;
  },
): string {
  const faults = c.scenario ? `scenario=${c.scenario}` : c.nemesis;
  const options = c.backendOptions ? `[${c.backendOptions}]` : '';
  const backend = `${c.backend}${options}${c.client ? `+${c.client}` : ''}`;
  const label = c.label ? `/${c.label}` : '';
  return `${backend}/${c.workload}/${faults}/${fencingWord(c.fencing)}${label}/seed-${c.seed}`;
}

function matches(when: CellMatch, c: Omit<Cell, 'index' | 'id' | 'expect' | 'config' | 'entry'>): boolean {
  if (when.backend && !when.backend.includes(c.backend)) return false;
  if (when.workload && !when.workload.includes(c.workload)) return false;
  if (when.nemesis && !when.nemesis.includes(c.nemesis)) return false;
  if (when.scenario && (c.scenario === undefined || !when.scenario.includes(c.scenario))) return false;
  if (when.fencing && !when.fencing.includes(c.fencing)) return false;
  if (when.seed && !when.seed.includes(c.seed)) return false;
  return true;
}

/**
 * How expandCells takes a module backend that is not loaded: 'refuse' (the cell cannot be
 * checked: a run loads its modules first), or 'unchecked' (a dry run, which imports
 * nothing, since a module runs code as it is imported): the module's file must exist, and
 * its cells are checked for all but what only the module can say (its options, fencing,
 * the faults it takes), each module's path put in `unchecked`.
 */
export interface ExpandOptions {
  modules: 'refuse' | 'unchecked';
  unchecked?: Set<string>;
}

/** The module file a cell names, checked without importing it: one that is not a file is refused. */
function moduleFileExists(path: string, backend: string, module: string): void {
  let isFile = false;
  try {
    isFile = statSync(module).isFile();
  } catch {
    // missing or unreadable: refused below
  }
  if (!isFile) throw new SchemaError(child(path, 'backend'), `${backend}: no such module file (${module})`);
}

/** Counted before any cell is built: a million-cell matrix took 77 s and 1.35 GB to refuse. */
function refuseOversizedMatrix(spec: CampaignSpec): void {
  let count = 0;
  spec.matrix.forEach((entry: MatrixEntry, e) => {
    const lists = [
      entry.scenario,
      entry.backend,
      entry.workload,
      entry.nemesis,
      entry.fencing,
      entry.seeds ?? spec.seeds,
    ];
    count += lists.reduce((product: number, list) => product * (list?.length ?? 1), 1);
    if (count > MAX_CELLS) refuseCount(`matrix[${e}]`);
  });
}

function refuseCount(path: string): never {
  throw new SchemaError(
    path,
    `the matrix expands to more than ${MAX_CELLS} cells (at 30 s a run, more than ${Math.round((MAX_CELLS * 30) / 3600)} hours): use fewer seeds or split the campaign`,
  );
}

/** The cells made so far, each id once: two cells of one id would share a folder and a row. */
class CellList {
  readonly cells: (Cell | ResolvedCell)[] = [];
  private readonly ids = new Map<string, number>(); // cell id → the entry that made it

  add(cell: Cell | ResolvedCell, path: string): void {
    if (this.cells.length >= MAX_CELLS) refuseCount(path);
    const first = this.ids.get(cell.id);
    if (first !== undefined) {
      const where = first === cell.entry ? 'this entry' : `matrix[${first}]`;
      throw new SchemaError(path, `cell ${cell.id} is also made by ${where}: drop one, or give an entry a label`);
    }
    this.ids.set(cell.id, cell.entry);
    this.cells.push(cell);
  }
}

/**
 * Every cell of the campaign, in order, the command line's options on it, its run resolved
 * once (a dry run's cells of a module not loaded: checked without it, and not resolved).
 * Throws a SchemaError naming the matrix entry when a cell cannot run (fencing on a backend
 * without tokens, an override matching nothing).
 */
export function expandCells(spec: CampaignSpec, options?: CellOptions): ResolvedCell[];
export function expandCells(spec: CampaignSpec, options: CellOptions, modules: ExpandOptions): Cell[];
export function expandCells(
  spec: CampaignSpec,
  options: CellOptions = {},
  modules: ExpandOptions = { modules: 'refuse' },
): (Cell | ResolvedCell)[] {
  refuseOversizedMatrix(spec);
  const made = new CellList();
  spec.matrix.forEach((entry, e) => {
    entryCells({ spec, entry, e, path: `matrix[${e}]`, options, modules }, made);
  });
  return made.cells;
}

/** One matrix entry, as its cells are made. */
interface EntryContext {
  spec: CampaignSpec;
  entry: MatrixEntry;
  e: number;
  path: string;
  options: CellOptions;
  modules: ExpandOptions;
}

/** A scenario of the entry (or none) on one of its backends: what its cells share. */
interface CellBase extends EntryContext {
  scenarioName?: string;
  scenario?: Scenario;
  base: RunParameters;
  backend: string;
  backendModule?: string;
  /** The backend, known (built in, or its module loaded). */
  b?: Backend;
  /** A dry run's module backend, not imported: its cells are checked without it. */
  unloaded: boolean;
}

/** The entry's cells: scenario × backend × workload × nemesis × fencing × seed, in that order. */
function entryCells(ctx: EntryContext, made: CellList): void {
  const { spec, entry, path } = ctx;
  const seeds = entry.seeds ?? spec.seeds;
  if (!seeds) {
    throw new SchemaError(
      child(path, 'seeds'),
      'expected a list of seeds, got nothing (give seeds here or at the top)',
    );
  }
  const first = made.cells.length;
  // A plain entry is one pseudo-scenario: no preset, nemesis from the entry.
  for (const scenarioName of entry.scenario ?? [undefined]) {
    // Built-in defaults < the campaign's defaults < the scenario's own < the entry's options.
    const { scenario, config: base } = resolveScenario(scenarioName, { under: spec.defaults, over: entry.options });
    if (scenario) refuseAxesTheScenarioFixes(ctx, scenario, scenarioName);
    for (const backend of entry.backend ?? [base.backend]) {
      // A module backend: its path taken from the campaign file's folder; its cells named by its own name.
      const { backendModule } = locatePaths({ backend }, spec.baseDir);
      const b = backendOf({ backend, backendModule });
      const unloaded = ctx.modules.modules === 'unchecked' && b === undefined && isModulePath(backend);
      if (unloaded) {
        moduleFileExists(path, backend, backendModule ?? backend);
        ctx.modules.unchecked?.add(backend);
      }
      const cellBase: CellBase = { ...ctx, scenarioName, scenario, base, backend, backendModule, b, unloaded };
      for (const workload of entry.workload ?? [base.workload]) {
        // An entry with a scenario has no nemesis of its own (spec.ts refuses both); one that
        // explores runs each try's faults itself, on a configuration of none.
        for (const [n, nemesis] of (entry.explore ? ['none'] : (entry.nemesis ?? [base.nemesis])).entries()) {
          for (const fencing of entry.fencing ?? [base.fencing]) {
            for (const seed of seeds) made.add(makeCell(cellBase, { workload, nemesis, fencing, seed }, n, made), path);
          }
        }
      }
    }
  }
  const mine = made.cells.slice(first);
  entry.overrides.forEach((o, i) => {
    if (!mine.some((cell) => matches(o.when, cell)))
      throw new SchemaError(`${path}.overrides[${i}].when`, 'matches no cell of this entry');
  });
}

/** A scenario fixes its workload and backend; some stories apply to other backends too. */
function refuseAxesTheScenarioFixes({ entry, path }: EntryContext, scenario: Scenario, name?: string): void {
  const allowed = scenarioRunsOn(scenario);
  for (const key of ['backend', 'workload'] as const) {
    const bad = entry[key]?.find((g) => !allowed[key].includes(g));
    if (bad !== undefined) {
      throw new SchemaError(
        child(path, key),
        `scenario "${name}" runs ${key} ${allowed[key].join(' or ')}, not ${bad}: leave ${key} out, or split the entry`,
      );
    }
  }
}

/** What the cell expects: the entry's, else its scenario's; the last override that matches wins. */
function expectationOf(c: CellBase, key: Omit<Cell, 'index' | 'id' | 'expect' | 'config' | 'entry'>): Expectation {
  const { entry, scenario, scenarioName } = c;
  let expect: Expectation | undefined = entry.expect;
  if (expect === undefined && scenario) {
    const e = scenario.expected[fencingWord(key.fencing)];
    if (e === 'valid' || e === 'invalid') expect = e;
  }
  for (const o of entry.overrides) if (matches(o.when, key)) expect = o.expect;
  if (expect === undefined) {
    throw new SchemaError(
      child(c.path, 'expect'),
      `expected valid|invalid, got nothing (scenario "${scenarioName}" expects ${scenario?.expected[fencingWord(key.fencing)]} ${fencingWord(key.fencing)})`,
    );
  }
  return expect;
}

/** One cell: its configuration with the command line's options on it, its id, its run resolved. */
function makeCell(
  c: CellBase,
  axes: Pick<Cell, 'workload' | 'nemesis' | 'fencing' | 'seed'>,
  n: number,
  made: CellList,
): Cell | ResolvedCell {
  const { backend, backendModule, scenarioName, scenario } = c;
  const { explore } = c.entry;
  // A cell that explores is named, matched and tallied by `explore`; its run has no fault.
  const key = {
    backend,
    ...axes,
    ...(explore ? { nemesis: 'explore' } : {}),
    ...(scenarioName ? { scenario: scenarioName } : {}),
  };
  const expect = expectationOf(c, key);
  // A module backend and a client program are found from the campaign file's folder.
  const located = locatePaths(
    { name: '', ...c.base, backend, ...axes, ...(backendModule ? { backendModule } : {}) },
    c.spec.baseDir,
  );
  const config: TestConfig = withCellOptions(located, expect, c.options);
  config.name = testName(config);
  // A scenario's own client is named by the scenario; a client the campaign gives, here.
  const client = config.clientCommand === scenario?.config.clientCommand ? undefined : config.clientCommand;
  const id = cellId({
    ...key,
    backend: backendModule !== undefined && c.b ? c.b.name : backend,
    backendOptions: config.backendOptions,
    ...(client !== undefined ? { client: clientProgramName(client) } : {}),
    label: c.entry.label,
  });
  const cell: Cell = { index: made.cells.length, entry: c.e, id, ...key, expect, config };
  if (explore) cell.explore = explore;
  const availability = c.entry.availability ?? scenario?.availability;
  if (availability !== undefined) cell.availability = availability;
  if (c.unloaded) return cell;
  const resolved = resolveCell(c, cell, n);
  // A dry run shows cells (each checked all the same); a run takes each with what resolving it found.
  return c.modules.modules === 'unchecked' ? cell : { ...cell, resolved };
}

/** The cell's run, resolved; what cannot run is a SchemaError at the entry. */
function resolveCell(c: CellBase, cell: Cell, n: number): ResolvedRun {
  try {
    return resolveRun(cell.config, c.b, c.entry.nemesisFaults?.[n]);
  } catch (err) {
    if (err instanceof FencingRefused) {
      throw new SchemaError(
        child(c.path, 'fencing'),
        `${c.backend} cannot be fenced (${err.why.replace(/\s*\([^)]*\)[.\s]*$/, '')}): give fencing off for it`,
      );
    }
    if (err instanceof UserError) throw new SchemaError(c.path, `cell ${cell.id}: ${err.message}`);
    throw err;
  }
}

/** "2/4" → { index: 2, count: 4 }; a UserError otherwise. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UserError(`--shard takes i/n with 1 <= i <= n (e.g. 2/4), got '${text}'`);
  }
  return { index, count };
}

/**
 * The cells of one shard: cell k goes to shard (k mod n) + 1. Round robin, so that a
 * matrix whose slow cells sit together still spreads them; the shards partition the list.
 */
export function shardCells<T>(cells: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...cells];
  return cells.filter((_, k) => k % shard.count === shard.index - 1);
}
