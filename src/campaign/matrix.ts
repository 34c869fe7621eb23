/**
 * From a campaign to its cells: each matrix entry crosses backend × workload × (nemesis
 * or scenario) × fencing × seeds, in that nesting order, entries one after the other. The
 * order is deterministic, so that shards partition the same list on every machine.
 */

import { statSync } from 'node:fs';
import { clientProgramName } from '../backends/client-protocol.js';
import { backendOf, isModulePath } from '../backends/index.js';
import { fencingWord, type TestConfig } from '../run-data/config.js';
import { FencingRefused, locatePaths, type ResolvedRun, resolveRun, testName } from '../run-data/resolve.js';
import { resolveScenario, scenarioRunsOn } from '../scenarios/index.js';
import { UserError } from '../util/errors.js';
import { child, SchemaError } from './schema.js';
import type { CampaignSpec, CellMatch, Expectation, MatrixEntry } from './spec.js';

/** The most cells a campaign may expand to: more could not run in any night. */
export const MAX_CELLS = 10_000;

export interface Cell {
  /** Position in the campaign's full cell list (0-based), the same in every shard. */
  index: number;
  /** The matrix entry it came from (0-based). */
  entry: number;
  /** "redlock/lock-set/client-pause/unfenced/seed-1" (scenario cells: "scenario=control/..."). */
  id: string;
  backend: string;
  workload: string;
  nemesis: string;
  scenario?: string;
  fencing: boolean;
  seed: number;
  expect: Expectation;
  /** The least share of acquires ok outside fault windows, when the cell expects one. */
  availability?: number;
  /** The run's configuration; the campaign sets name and storeDir when it runs the cell. */
  config: TestConfig;
}

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
  const cells: (Cell | ResolvedCell)[] = [];
  const ids = new Map<string, number>(); // cell id → the entry that made it
  const bounded = (path: string, count = cells.length + 1) => {
    if (count <= MAX_CELLS) return;
    throw new SchemaError(
      path,
      `the matrix expands to more than ${MAX_CELLS} cells (at 30 s a run, more than ${Math.round((MAX_CELLS * 30) / 3600)} hours): use fewer seeds or split the campaign`,
    );
  };
  // Counted before any cell is built: a million-cell matrix took 77 s and 1.35 GB to refuse.
  let count = 0;
  spec.matrix.forEach((entry: MatrixEntry, e) => {
    const n = (list: readonly unknown[] | undefined) => list?.length ?? 1;
    const lists = [
      entry.scenario,
      entry.backend,
      entry.workload,
      entry.nemesis,
      entry.fencing,
      entry.seeds ?? spec.seeds,
    ];
    count += lists.reduce((product: number, list) => product * n(list), 1);
    if (count > MAX_CELLS) bounded(`matrix[${e}]`, count);
  });
  spec.matrix.forEach((entry: MatrixEntry, e) => {
    const path = `matrix[${e}]`;
    const seeds = entry.seeds ?? spec.seeds;
    if (!seeds) {
      throw new SchemaError(
        child(path, 'seeds'),
        'expected a list of seeds, got nothing (give seeds here or at the top)',
      );
    }
    const used = new Set<number>();
    // A plain entry is one pseudo-scenario: no preset, nemesis from the entry.
    const presets = entry.scenario ?? [undefined];
    for (const scenarioName of presets) {
      // Built-in defaults < the campaign's defaults < the scenario's own < the entry's options.
      const { scenario, config: base } = resolveScenario(scenarioName, { under: spec.defaults, over: entry.options });
      if (scenario) {
        // A scenario fixes its workload and backend; some stories apply to other backends too.
        const allowed = scenarioRunsOn(scenario);
        for (const key of ['backend', 'workload'] as const) {
          const bad = entry[key]?.find((g) => !allowed[key].includes(g));
          if (bad !== undefined) {
            throw new SchemaError(
              child(path, key),
              `scenario "${scenarioName}" runs ${key} ${allowed[key].join(' or ')}, not ${bad}: leave ${key} out, or split the entry`,
            );
          }
        }
      }
      const backends = entry.backend ?? [base.backend];
      const workloads = entry.workload ?? [base.workload];
      // An entry with a scenario has no nemesis of its own (spec.ts refuses both).
      const nemeses = entry.nemesis ?? [base.nemesis];
      const nemesisFaults = entry.nemesisFaults ?? [];
      for (const backend of backends) {
        // A module backend: its path taken from the campaign file's folder; its cells named by its own name.
        const { backendModule } = locatePaths({ backend }, spec.baseDir);
        const b = backendOf({ backend, backendModule });
        const unloaded = modules.modules === 'unchecked' && b === undefined && isModulePath(backend);
        if (unloaded) {
          moduleFileExists(path, backend, backendModule ?? backend);
          modules.unchecked?.add(backend);
        }
        for (const workload of workloads) {
          for (const [n, nemesis] of nemeses.entries()) {
            for (const fencing of entry.fencing ?? [base.fencing]) {
              for (const seed of seeds) {
                const key = {
                  backend,
                  workload,
                  nemesis,
                  fencing,
                  seed,
                  ...(scenarioName ? { scenario: scenarioName } : {}),
                };
                let expect: Expectation | undefined = entry.expect;
                if (expect === undefined && scenario) {
                  const e = scenario.expected[fencingWord(fencing)];
                  if (e === 'valid' || e === 'invalid') expect = e;
                }
                entry.overrides.forEach((o, i) => {
                  if (matches(o.when, key)) {
                    expect = o.expect;
                    used.add(i);
                  }
                });
                if (expect === undefined) {
                  throw new SchemaError(
                    child(path, 'expect'),
                    `expected valid|invalid, got nothing (scenario "${scenarioName}" expects ${scenario?.expected[fencingWord(fencing)]} ${fencingWord(fencing)})`,
                  );
                }
                // A module backend and a client program are found from the campaign file's folder.
                const config: TestConfig = withCellOptions(
                  locatePaths(
                    {
                      name: '',
                      ...base,
                      backend,
                      workload,
                      nemesis,
                      fencing,
                      seed,
                      ...(backendModule ? { backendModule } : {}),
                    },
                    spec.baseDir,
                  ),
                  expect,
                  options,
                );
                config.name = testName(config);
                // A scenario's own client is named by the scenario; a client the campaign gives, here.
                const client =
                  config.clientCommand === scenario?.config.clientCommand ? undefined : config.clientCommand;
                const id = cellId({
                  ...key,
                  backend: backendModule !== undefined && b ? b.name : backend,
                  backendOptions: config.backendOptions,
                  ...(client !== undefined ? { client: clientProgramName(client) } : {}),
                  label: entry.label,
                });
                const cell: Cell = { index: cells.length, entry: e, id, ...key, expect, config };
                const availability = entry.availability ?? scenario?.availability;
                if (availability !== undefined) cell.availability = availability;
                let resolved: ResolvedRun | undefined;
                try {
                  if (!unloaded) resolved = resolveRun(config, b, nemesisFaults[n]);
                } catch (err) {
                  if (err instanceof FencingRefused) {
                    throw new SchemaError(
                      child(path, 'fencing'),
                      `${backend} cannot be fenced (${err.why.replace(/\s*\([^)]*\)[.\s]*$/, '')}): give fencing off for it`,
                    );
                  }
                  if (err instanceof UserError) throw new SchemaError(path, `cell ${cell.id}: ${err.message}`);
                  throw err;
                }
                bounded(path);
                // Two cells of one id would share a folder and a row: each configuration once.
                const first = ids.get(id);
                if (first !== undefined) {
                  const where = first === e ? 'this entry' : `matrix[${first}]`;
                  throw new SchemaError(
                    path,
                    `cell ${id} is also made by ${where}: drop one, or give an entry a label`,
                  );
                }
                ids.set(id, e);
                // A dry run shows cells; a run takes each with what resolving it found.
                cells.push(modules.modules === 'unchecked' || resolved === undefined ? cell : { ...cell, resolved });
              }
            }
          }
        }
      }
    }
    entry.overrides.forEach((_, i) => {
      if (!used.has(i)) throw new SchemaError(`${path}.overrides[${i}].when`, 'matches no cell of this entry');
    });
  });
  return cells;
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
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
