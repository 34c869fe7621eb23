/**
 * The campaign file: a YAML matrix of runs, each cell with the verdict it should end with.
 *
 *     name: nightly                 # folder under <store>/campaigns/ (default: the file's name)
 *     seeds: [1, 2]                 # every entry's seeds unless it gives its own
 *     defaults:                     # run options for every cell (the `lockchaos run` flags)
 *       time-limit: 20
 *       nemesis-interval: 2
 *     matrix:
 *       - backend: [redis]          # lists are crossed; a single value is a list of one
 *         workload: lock-set
 *         nemesis: [none, client-pause]
 *         fencing: [on, off]
 *         expect: valid             # every cell of the entry...
 *         overrides:                # ...except those an override matches (the last match wins)
 *           - when: { nemesis: client-pause, fencing: off }
 *             expect: invalid
 *       - backend: redis            # a cell that explores (lockchaos explore), no nemesis:
 *         options: { client-command: python3 client.py }
 *         explore: { budget: 12, run-time: 6 }  # met when no configuration broke the lock
 *                                   # (expect valid, the default), or when one did (invalid)
 *       - scenario: [control]       # a preset in place of backend/workload/nemesis;
 *         fencing: [on, off]        # expect defaults to the scenario's own
 *         options: { ttl: 2000 }    # run options for this entry only
 *         availability: 0.9         # acquires ok outside faults at least 90% (default: the scenario's)
 *
 * Validation is strict (unknown keys, wrong types, unknown names, an override that matches
 * nothing, a cell `lockchaos run` would refuse) and every error is one line that names the
 * key path: `campaign.yaml: matrix[1].fencing: expected a list of on|off, got "maybe"`.
 */
import { statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseDocument } from 'yaml';
import { WORKLOADS } from '../../workloads/index.js';
import { BACKENDS, isModulePath } from '../backends/index.js';
import { CAMPAIGN_NAME, type CellExploration, EXPECTATIONS, type Expectation } from '../campaign-data/cell.js';
import { type Budget, DEFAULT_BUDGET, parseBudget } from '../explore/budget.js';
import { DEFAULT_RUN_TIME_S } from '../explore/explore.js';
import { DEFAULT_SHRINK_RUNS } from '../explore/shrunk.js';
import { FAULT_KINDS, type ParsedFault, parseFaults } from '../nemesis/spec.js';
import { OPTION_PARAMETERS, type Parameter, type RunOptions, type RunOptionsFile } from '../run-data/parameters.js';
import { SCENARIOS } from '../scenarios/index.js';
import { nestedDeeperThan } from '../util/depth.js';
import { UserError } from '../util/errors.js';
import { MiB, readRegularFile } from '../util/regular-file.js';
import { bool, type Check, child, fail, listOf, num, oneOf, record, SchemaError, str } from './schema.js';

export { EXPECTATIONS, type Expectation } from '../campaign-data/cell.js';

/** Run options as the file spells them: the `lockchaos run` flag names (run-data/parameters.ts). */
export type { RunOptionsFile };

type OneOrMany<T> = T | T[];
type FencingWord = 'on' | 'off' | boolean;

/** The axes a matrix entry crosses and an override matches on, as the file spells them. */
interface CellAxesFile {
  backend?: OneOrMany<string>;
  workload?: OneOrMany<string>;
  nemesis?: OneOrMany<string>;
  scenario?: OneOrMany<string>;
  fencing?: OneOrMany<FencingWord>;
}

/** Which cells an override applies to: every key given must match (a list: any of). */
export interface CellMatchFile extends CellAxesFile {
  seed?: OneOrMany<number>;
}

export interface MatrixEntryFile extends CellAxesFile {
  /** Names what the entry's options make of its cells (a sweep's point, "pause-ttl=0.5"): part of their ids. */
  label?: string;
  seeds?: OneOrMany<number>;
  expect?: Expectation;
  /** The least share (0..1) of acquires ok outside fault windows (default: the scenario's). */
  availability?: number;
  options?: RunOptionsFile;
  overrides?: { when: CellMatchFile; expect: Expectation }[];
  /** Explore instead of one fault (lockchaos explore): its budget (runs, or "20m"), each try's time, shrink runs. */
  explore?: { budget?: number | string; 'run-time'?: number; 'shrink-runs'?: number; 'until-broken'?: boolean };
}

/** A campaign as written in YAML (or given to `campaign()` as an object). */
export interface CampaignFile {
  name?: string;
  description?: string;
  /** Shrink every cell that expected valid and was not (lockchaos shrink), and link the result. */
  shrink?: boolean;
  seeds?: OneOrMany<number>;
  defaults?: RunOptionsFile;
  matrix: MatrixEntryFile[];
}

/** Run options, as TestConfig fields. */
export type { RunOptions };

/** The axes, validated. */
interface CellAxes {
  backend?: string[];
  workload?: string[];
  nemesis?: string[];
  scenario?: string[];
  fencing?: boolean[];
}

export interface CellMatch extends CellAxes {
  seed?: number[];
}

export interface MatrixEntry extends CellAxes {
  /**
   * Each nemesis's faults, index for index, parsed as the file was checked: its cells'
   * runs are resolved from them, not from the text again. Not part of campaign.json.
   */
  nemesisFaults?: (readonly ParsedFault[])[];
  label?: string;
  seeds?: number[];
  expect?: Expectation;
  availability?: number;
  options: RunOptions;
  overrides: { when: CellMatch; expect: Expectation }[];
  /** Its cells explore (their nemesis is `explore`). */
  explore?: CellExploration;
}

/** A validated campaign. */
export interface CampaignSpec {
  name: string;
  description?: string;
  /** Where it came from, for messages: the file's path, or "campaign". */
  source: string;
  /**
   * The folder module backends' paths are taken from (absolute): the campaign file's;
   * absent: the current folder.
   */
  baseDir?: string;
  /** Shrink every cell that expected valid and was invalid. */
  shrink?: boolean;
  seeds?: number[];
  defaults: RunOptions;
  matrix: MatrixEntry[];
}

/** The campaign as campaign.json records it: as validated, without the faults parsed out of its nemeses. */
export function campaignRecord(spec: CampaignSpec): CampaignSpec {
  return { ...spec, matrix: spec.matrix.map(({ nemesisFaults: _parsed, ...entry }) => entry) };
}

/** A run option's check in a campaign file, from its row: its type, and its sign (the run checks the bounds). */
function optionCheck(p: Parameter): Check<number> | Check<boolean> | Check<string> {
  if (p.type === 'number') return num({ integer: p.bounds?.integer, min: 0, exclusiveMin: !p.bounds?.zero });
  if (p.type === 'switch') return bool();
  if (p.type === 'string') return str({ what: p.what });
  throw new Error(`run option ${p.flag}: a campaign takes no ${p.type} option`);
}

/** Each option a campaign file may give (its flag name): its TestConfig field and its check. */
export const OPTION_FIELDS: Record<string, readonly [string, Check<unknown>]> = Object.fromEntries(
  OPTION_PARAMETERS.map((p) => [p.flag, [p.field, optionCheck(p)]]),
);

const optionsCheck: Check<RunOptions> = (() => {
  const shape = Object.fromEntries(Object.entries(OPTION_FIELDS).map(([k, [, check]]) => [k, check]));
  const rec = record(shape, { what: 'a map of run options' });
  return (v, path) => {
    const raw = rec(v, path);
    const out: Record<string, unknown> = {};
    for (const [key, [field]] of Object.entries(OPTION_FIELDS)) {
      const x = raw[key];
      if (x !== undefined) out[field] = x;
    }
    return out as RunOptions;
  };
})();

/** The names each field accepts, from the registries (others add to them). */
const names = {
  backend: () => Object.keys(BACKENDS),
  workload: () => Object.keys(WORKLOADS),
  scenario: () => Object.keys(SCENARIOS),
};

/** A module backend's path, taken from the campaign file's folder (docs/adding-a-backend.md). */
const backendCheck: Check<string> = (v, p) =>
  oneOf(names.backend(), { kind: 'backend', accepts: isModulePath, others: "a module's path (./my-lock.mjs)" })(v, p);
const workloadCheck: Check<string> = (v, p) => oneOf(names.workload(), { kind: 'workload' })(v, p);
const scenarioCheck: Check<string> = (v, p) => oneOf(names.scenario(), { kind: 'scenario' })(v, p);
/** A nemesis as the file gives it, and its faults: the spec is parsed here, once. */
interface NemesisGiven {
  text: string;
  faults: readonly ParsedFault[];
}

/** A nemesis is what `lockchaos run --nemesis` takes: none, or fault kinds (with their aims). */
const nemesisCheck: Check<NemesisGiven> = (v, p) => {
  if (typeof v !== 'string' || v.trim() === '')
    return fail(p, `a nemesis spec (none, or some of ${nemesisNames().join(', ')})`, v);
  try {
    return { text: v.trim(), faults: parseFaults(v) };
  } catch (err) {
    if (err instanceof UserError) throw new SchemaError(p, err.message, true);
    throw err;
  }
};
const nemesisNames = () => ['none', ...Object.keys(FAULT_KINDS)];
const fencingCheck = oneOf(['on', 'off'], {
  aliases: new Map<unknown, 'on' | 'off'>([
    [true, 'on'],
    [false, 'off'],
  ]),
});
const fencingList: Check<boolean[]> = (v, p) =>
  listOf(fencingCheck, 'on|off', { single: true, nonEmpty: true })(v, p).map((w) => w === 'on');
const seedCheck = num({ integer: true, min: 0, max: 2 ** 32 - 1 });
const seedList = listOf(seedCheck, 'seeds (whole numbers from 0 to 4294967295)', { single: true, nonEmpty: true });
const expectCheck = oneOf(EXPECTATIONS);

const nameList =
  (item: Check<string>, what: () => string[]): Check<string[]> =>
  (v, p) =>
    listOf(item, what().join('|'), { single: true, nonEmpty: true })(v, p);

const nemesisList: Check<NemesisGiven[]> = (v, p) =>
  listOf(nemesisCheck, nemesisNames().join('|'), { single: true, nonEmpty: true })(v, p);

/** The checks of the axes an entry crosses and an override matches on (an override's nemeses by their text). */
const axisChecks = {
  backend: nameList(backendCheck, names.backend),
  workload: nameList(workloadCheck, names.workload),
  nemesis: nemesisList,
  scenario: nameList(scenarioCheck, names.scenario),
  fencing: fencingList,
};

const matchCheck = record(
  { ...axisChecks, nemesis: (v, p) => nemesisList(v, p).map((n) => n.text), seed: seedList },
  { what: 'a map of cell keys (backend, workload, nemesis, scenario, fencing, seed)' },
);

const overrideCheck = record(
  { when: matchCheck, expect: expectCheck },
  { what: 'a map with when and expect', required: ['when', 'expect'] },
);

/** An exploration's budget as a file gives it: a whole number of runs, or minutes as "20m". */
const budgetCheck: Check<Budget> = (v, p) => {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return { runs: v };
  if (typeof v === 'string') {
    try {
      return parseBudget(v);
    } catch {
      // said below, in the file's words
    }
  }
  return fail(p, 'a whole number of runs above 0 (12), or of minutes ("20m")', v);
};

const exploreCheck: Check<CellExploration> = (v, p) => {
  const raw = record(
    {
      budget: budgetCheck,
      'run-time': num({ min: 0, exclusiveMin: true }),
      'shrink-runs': num({ integer: true, min: 0 }),
      'until-broken': bool(),
    },
    {
      what: "a map of budget, run-time, shrink-runs and until-broken (lockchaos explore's options; {} for its defaults)",
    },
  )(v, p);
  return {
    budget: raw.budget ?? DEFAULT_BUDGET,
    runTimeS: raw['run-time'] ?? DEFAULT_RUN_TIME_S,
    shrinkRuns: raw['shrink-runs'] ?? DEFAULT_SHRINK_RUNS,
    ...(raw['until-broken'] ? { untilBroken: true } : {}),
  };
};

const entryCheck: Check<MatrixEntry> = (v, path) => {
  const raw = record(
    {
      ...axisChecks,
      label: str({ pattern: LABEL, what: 'a label of letters, digits, . _ + = , - (no /)' }),
      seeds: seedList,
      expect: expectCheck,
      availability: num({ min: 0, max: 1 }),
      options: optionsCheck,
      overrides: listOf(overrideCheck, 'overrides ({when, expect})'),
      explore: exploreCheck,
    },
    {
      what: 'a matrix entry (a map of backend, workload, nemesis or scenario or explore, fencing, label, seeds, expect ...)',
    },
  )(v, path);
  if (raw.scenario && raw.nemesis) {
    throw new SchemaError(path, 'give nemesis or scenario, not both (a scenario brings its own faults)');
  }
  if (raw.explore && (raw.nemesis || raw.scenario)) {
    throw new SchemaError(
      child(path, 'explore'),
      `an exploration chooses its own faults: give explore or ${raw.nemesis ? 'nemesis' : 'scenario'}, not both`,
    );
  }
  if (!raw.scenario && !raw.backend) {
    return fail(child(path, 'backend'), `a list of ${names.backend().join('|')} (or a scenario)`, undefined);
  }
  // An exploration is met by default when no configuration broke the lock.
  if (!raw.scenario && !raw.explore && raw.expect === undefined) {
    return fail(child(path, 'expect'), EXPECTATIONS.join('|'), undefined);
  }
  const overrides = (raw.overrides ?? []).map((o) => ({ when: o.when ?? {}, expect: o.expect ?? 'valid' }));
  const entry: MatrixEntry = { options: raw.options ?? {}, overrides };
  const given = { ...raw, nemesis: raw.nemesis?.map((n) => n.text) };
  for (const key of [
    'backend',
    'workload',
    'nemesis',
    'scenario',
    'fencing',
    'label',
    'seeds',
    'expect',
    'availability',
  ] as const) {
    if (given[key] !== undefined) (entry as unknown as Record<string, unknown>)[key] = given[key];
  }
  if (raw.nemesis) entry.nemesisFaults = raw.nemesis.map((n) => n.faults);
  if (raw.explore) {
    entry.explore = raw.explore;
    entry.expect ??= 'valid';
  }
  return entry;
};

const LABEL = /^[\w.+=,-]+$/;

const campaignCheck = record(
  {
    name: str({ pattern: CAMPAIGN_NAME, what: 'a name of letters, digits, . _ - (a folder name)' }),
    description: str(),
    shrink: bool(),
    seeds: seedList,
    defaults: optionsCheck,
    matrix: listOf(entryCheck, 'matrix entries', { nonEmpty: true }),
  },
  {
    what: 'a campaign (a map with matrix, and optionally name, description, shrink, seeds, defaults)',
    required: ['matrix'],
  },
);

/**
 * A campaign given as data (parsed YAML, or an object from library code), its shape
 * checked: a SchemaError names the first problem. Its cells are validate.ts's to expand.
 */
export function campaignShape(raw: unknown, source: string, fallbackName?: string, baseDir?: string): CampaignSpec {
  const c = campaignCheck(raw, '');
  const spec: CampaignSpec = {
    name: c.name ?? fallbackName ?? 'campaign',
    source,
    ...(baseDir !== undefined ? { baseDir } : {}),
    defaults: c.defaults ?? {},
    matrix: c.matrix ?? [],
  };
  if (c.description !== undefined) spec.description = c.description;
  if (c.shrink !== undefined) spec.shrink = c.shrink;
  if (c.seeds !== undefined) spec.seeds = c.seeds;
  if (!CAMPAIGN_NAME.test(spec.name)) {
    throw new SchemaError(
      'name',
      `expected a name of letters, digits, . _ - (the file's name '${spec.name}' is not one: give name)`,
    );
  }
  return spec;
}

/** A campaign's name when it gives none: its file's, when that is a name. */
export function fallbackName(source: string): string | undefined {
  const stem = basename(source, extname(source));
  return CAMPAIGN_NAME.test(stem) ? stem : undefined;
}

/** Campaign YAML as data, not yet validated; bad YAML is one UserError line. */
export function campaignData(text: string, source: string): unknown {
  const tooDeep = `nested too deeply (a campaign needs a few levels: matrix, entries, options); write it out flat`;
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { uniqueKeys: true });
  } catch (err) {
    if (err instanceof RangeError) throw new UserError(`${source}: ${tooDeep}`);
    throw err;
  }
  // Every key given twice at once, not the first alone (a fix, a run, the next one...).
  const twice = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
  if (twice.length > 0) {
    const keys = twice.map(
      (e) => `'${/^[^:\n]*/.exec(text.slice(e.pos[0]))?.[0].trim()}' (line ${e.linePos?.[0].line})`,
    );
    throw new UserError(`${source}: keys given twice in one map: ${keys.join(', ')}: keep one of each`);
  }
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    const at = problem.linePos?.[0];
    const where = at ? `line ${at.line}, column ${at.col}: ` : '';
    const what = (problem.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    if (/call stack/i.test(what)) throw new UserError(`${source}: ${where}${tooDeep}`);
    throw new UserError(`${source}: ${where}not valid YAML: ${what}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // yaml refuses aliases that expand past maxAliasCount ("billion laughs").
    if (err instanceof ReferenceError && /alias/i.test(err.message)) {
      throw new UserError(
        `${source}: its aliases (*name) expand too far (a YAML alias bomb?): write the values out, or use fewer aliases`,
      );
    }
    if (err instanceof RangeError) throw new UserError(`${source}: ${tooDeep}`);
    throw err;
  }
  if (nestedDeeperThan(data)) throw new UserError(`${source}: ${tooDeep}`);
  return data;
}

/** The largest campaign file read: a campaign of 10,000 cells is a few kB of YAML. */
export const MAX_CAMPAIGN_FILE_BYTES = 4 * MiB;

/**
 * A campaign file's text; a missing or unreadable one is one UserError line, and so is
 * anything but a regular file (/dev/zero, a FIFO) or one past MAX_CAMPAIGN_FILE_BYTES.
 */
export function readCampaignFile(path: string): string {
  try {
    if (statSync(path).isDirectory()) throw new UserError(`${path}: is a folder, not a campaign file`);
    return readRegularFile(path, 'campaign file', {
      maxBytes: MAX_CAMPAIGN_FILE_BYTES,
      fix: 'a campaign file is a matrix of a few kB: give the YAML file',
    }).toString('utf8');
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : (err as Error).message.split('\n')[0];
    throw new UserError(`${path}: cannot read the campaign file (${why})`);
  }
}
