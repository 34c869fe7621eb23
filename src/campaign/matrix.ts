/**
 * From a campaign to its cells: each matrix entry crosses backend × workload × (nemesis
 * or scenario) × fencing × seeds, in that nesting order, entries one after the other. The
 * order is deterministic, so that shards partition the same list on every machine.
 */

import { statSync } from 'node:fs';
import { clientProgramName } from '../backends/client-protocol.js';
import { backendOf, isModulePath } from '../backends/index.js';
import { fencingWord, type TestConfig } from '../run-data/config.js';
import { locatePaths, resolveRun, testName } from '../run-data/resolve.js';
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
 * Every cell of the campaign, in order. Throws a SchemaError naming the matrix entry when
 * a cell cannot run (fencing on a backend without tokens, an override matching nothing).
 */
export function expandCells(spec: CampaignSpec, options: ExpandOptions = { modules: 'refuse' }): Cell[] {
  const cells: Cell[] = [];
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
      for (const backend of backends) {
        // A module backend: its path taken from the campaign file's folder; its cells named by its own name.
        const { backendModule } = locatePaths({ backend }, spec.baseDir);
        const b = backendOf({ backend, backendModule });
        const unloaded = options.modules === 'unchecked' && b === undefined && isModulePath(backend);
        if (unloaded) {
          moduleFileExists(path, backend, backendModule ?? backend);
          options.unchecked?.add(backend);
        }
        for (const workload of workloads) {
          for (const nemesis of nemeses) {
            for (const fencing of entry.fencing ?? [base.fencing]) {
              if (fencing && b && !b.fencing.supported) {
                throw new SchemaError(
                  child(path, 'fencing'),
                  `${backend} cannot be fenced (${b.fencing.why.replace(/\s*\([^)]*\)[.\s]*$/, '')}): give fencing off for it`,
                );
              }
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
                const config: TestConfig = locatePaths(
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
                try {
                  if (!unloaded) resolveRun({ ...config });
                } catch (err) {
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
                cells.push(cell);
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
export function shardCells<T extends { index: number }>(cells: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...cells];
  return cells.filter((_, k) => k % shard.count === shard.index - 1);
}
