/**
 * The run parameters: one table, a row for every TestConfig field, with its `lockchaos run`
 * flag, its type, its default, its bounds and its --help text. Everything that lists run
 * parameters is derived from it: the run command's options and help (cli/run.ts), DEFAULTS,
 * the fields a stored test.json must have (config.ts), the bounds validation enforces, a
 * campaign's option names, their checks and JSON Schema (campaign/spec.ts, campaign-json-schema.ts),
 * and the re-run command of a report (report/rerun-commands.ts). A new run parameter is a field of
 * TestConfig and a row here; what it does is the runner's.
 */
import { WORKLOADS } from '../../workloads/index.js';
import { BACKOFF } from '../backends/backend.js';
import { BACKENDS } from '../backends/index.js';
import type { ScheduledFault } from '../nemesis/schedule.js';
import { FAULT_KINDS } from '../nemesis/spec.js';

/**
 * A test's configuration: everything needed to run it again (seed included), written to
 * test.json. Each field is a row of PARAMETERS below.
 */
export interface TestConfig {
  /** The test's name, the folder under the store: backend-workload-nemesis-fenced. */
  name: string;
  /** A built-in backend's name, or a module's path as given (docs/adding-a-backend.md). */
  backend: string;
  /**
   * A module backend's absolute path (`backend` resolved from where it was given: the
   * current folder, or a campaign file's folder), so that a replay from any folder finds it.
   */
  backendModule?: string;
  workload: string;
  /** The faults: 'none', or fault kinds separated by commas, e.g. 'pause-node:leader,partition' (nemesis/spec.ts). */
  nemesis: string;
  fencing: boolean;
  /** Seconds of workload under faults (then heal and final read). */
  timeLimitS: number;
  concurrency: number;
  ttlMs: number;
  holdMs: number;
  /** Target acquire cycles per second across all clients (0: as fast as they go). */
  rate: number;
  acquireTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long a client program's release may take before it counts as hung (told at init). */
  releaseTimeoutMs?: number;
  /** Mean seconds between faults. */
  nemesisIntervalS: number;
  /** kill-node restarts Redis nodes empty (their append-only file wiped). */
  loseData?: boolean;
  /** The scenario preset this configuration came from (its expected outcome is known). */
  scenario?: string;
  /** Lock-service nodes (Redlock masters); undefined: the backend's default. */
  nodes?: number;
  /** The backend's own options, `key=value,key=value` (the backend's `options` name them). */
  backendOptions?: string;
  /**
   * The faults to apply, at their times (a schedule file, a replay, a shrink's candidate);
   * absent: drawn from the seed. A run records the faults it applied here (test.json).
   */
  schedule?: ScheduledFault[];
  /** End the workload at the first violation a checker will count, then heal and check. */
  stopOnViolation?: boolean;
  /**
   * client-pause pauses for exactly this many TTLs (a sweep's axis); undefined: a seeded
   * draw from PAUSE_TTL_FACTOR (0.8–2×).
   */
  pauseTtl?: number;
  /** The U(0, jitter) ms added to every acquire retry's backoff; undefined: BACKOFF.jitterMs (25). */
  backoffJitterMs?: number;
  /**
   * A client program each client drives over the client protocol (docs/client-protocol.md)
   * instead of the backend's own client: a shell command line.
   */
  clientCommand?: string;
  /** The folder the client program runs in, absolute (where the command was given). */
  clientDir?: string;
  /**
   * An inventory of a lock service lockchaos does not start (docs/targets.md): its nodes'
   * addresses and control channels. Absolute once located; absent: lockchaos starts the
   * service in containers.
   */
  target?: string;
  seed: number;
  /** Where runs are written: <storeDir>/<name>/<timestamp>/. */
  storeDir: string;
}

/**
 * What a number may be. Past `max` (and under `min`) a run cannot work here: setTimeout
 * overflows past 24.8 days, every client is a process, every node a container, faults
 * every microsecond are no schedule. Campaign cells are held to the same.
 */
export interface Bounds {
  /** A whole number. */
  integer?: boolean;
  /** 0 is allowed (>= 0); otherwise the number must be > 0. */
  zero?: boolean;
  min?: number;
  max: number;
  /** Shown after the bound: s, ms, × TTL ... */
  unit: string;
  /** Why the bound, in a few words: "a day". */
  why: string;
}

interface Row<V> {
  /** `lockchaos run --FLAG`, and the option's name in a campaign file. */
  flag: string;
  /** The value's name in --help (S, MS, N ...); none for a switch. */
  arg?: string;
  /**
   * The --help text; lines after the first are indented under it. A string gets
   * " (default X)" appended when the row has a default; a function is given the default
   * as --help shows it and writes its own.
   */
  help: string | ((defaultText: string) => string);
  /** In DEFAULTS; a field without one is absent unless given (or derived: name, seed). */
  default?: V;
  /**
   * Every run has recorded it: a stored test.json without it is not a configuration. A field
   * added since may be missing from older runs' test.json: it then reads as its default.
   */
  alwaysRecorded?: true;
  /** Not a campaign option: an axis of the matrix (backend ... seed), or set by the campaign. */
  campaign?: false;
}

/** A number: `--ttl 1000`; checked against its bounds. */
export interface NumberRow extends Row<number> {
  type: 'number';
  bounds?: Bounds;
}
/** A flag without a value, true when given: `--lose-data`. */
export interface SwitchRow extends Row<boolean> {
  type: 'switch';
}
/** A boolean given as a word: `--fencing on|off`. */
export interface OnOffRow extends Row<boolean> {
  type: 'on-off';
}
export interface StringRow extends Row<string> {
  type: 'string';
  /** What a campaign file's value must be, in its error message (default: a string). */
  what?: string;
  /** The JSON Schema's pattern for it (editors' hint; the run checks the value itself). */
  pattern?: string;
}
/** A list of faults (the schedule): `--schedule FILE` reads them from a file. */
export interface FaultsRow extends Row<ScheduledFault[]> {
  type: 'faults';
}

type RowOf<V> = [V] extends [number]
  ? NumberRow
  : [V] extends [boolean]
    ? SwitchRow | OnOffRow
    : [V] extends [string]
      ? StringRow
      : FaultsRow;

/** A row for every field, of the field's type; a required field has a default (but name and seed). */
type Table = {
  [K in keyof TestConfig]-?: RowOf<NonNullable<TestConfig[K]>> &
    (undefined extends TestConfig[K] ? unknown : K extends 'name' | 'seed' ? unknown : { default: TestConfig[K] });
};

const hour = { max: 3_600_000, unit: 'ms', why: 'an hour' } as const;

/** The rows in the order `lockchaos run --help` lists them (and the re-run command, and a campaign's options). */
/** --help's column for a fault kind's words: past the longest kind's name. */
const KIND_COLUMN = Math.max(...Object.keys(FAULT_KINDS).map((kind) => kind.length)) + 2;

export const PARAMETERS = {
  backend: {
    flag: 'backend',
    type: 'string',
    arg: 'NAME|PATH',
    default: 'redis',
    alwaysRecorded: true,
    campaign: false,
    help: (d) =>
      `lock service: ${Object.keys(BACKENDS).join(', ')} (default ${d}),\nor a module that exports a Backend (./my-lock.mjs; docs/adding-a-backend.md)`,
  },
  backendModule: {
    flag: 'backend-module',
    type: 'string',
    arg: 'PATH',
    campaign: false,
    help: 'where the module --backend names is (an absolute path; test.json records it;\ndefault: --backend taken from the current folder)',
  },
  workload: {
    flag: 'workload',
    type: 'string',
    arg: 'NAME',
    default: 'lock-set',
    alwaysRecorded: true,
    campaign: false,
    help: (d) =>
      [
        `what clients do: ${Object.keys(WORKLOADS).join(', ')} (default ${d})`,
        '  lock-set: under the lock, read a set, hold, write it plus one element',
        '  mutex: acquire, hold, release',
      ].join('\n'),
  },
  nemesis: {
    flag: 'nemesis',
    type: 'string',
    arg: 'SPEC',
    default: 'none',
    alwaysRecorded: true,
    campaign: false,
    help: (d) =>
      [
        'faults: none, or kinds separated by commas, each with an optional',
        `:aim and :mode (default ${d}); each kind runs on its own seeded schedule:`,
        ...Object.entries(FAULT_KINDS).flatMap(([kind, k]) => [
          `  ${kind.padEnd(KIND_COLUMN)}${k.what}`,
          `  ${''.padEnd(KIND_COLUMN)}aims: ${k.aims.join(' | ')}`,
          ...(k.modes ? [`  ${''.padEnd(KIND_COLUMN)}modes: ${k.modes.join(' | ')} (${kind}:<aim>:<mode>)`] : []),
        ]),
      ].join('\n'),
  },
  loseData: {
    flag: 'lose-data',
    type: 'switch',
    help: 'kill-node restarts nodes empty (default: Redis keeps its AOF, etcd/ZooKeeper their data)',
  },
  scenario: {
    flag: 'scenario',
    type: 'string',
    arg: 'NAME',
    campaign: false,
    help: 'a preset failure story (lockchaos scenarios): its backend, workload,\nnemesis and timings; --fencing and any flag given still apply',
  },
  fencing: {
    flag: 'fencing',
    type: 'on-off',
    arg: 'on|off',
    default: false,
    alwaysRecorded: true,
    campaign: false,
    help: (d) => `the store rejects stale fencing tokens (default ${d}; redlock has none)`,
  },
  timeLimitS: {
    flag: 'time-limit',
    type: 'number',
    arg: 'S',
    default: 30,
    alwaysRecorded: true,
    bounds: { max: 86_400, unit: 's', why: 'a day' },
    help: 'seconds of workload under faults',
  },
  concurrency: {
    flag: 'concurrency',
    type: 'number',
    arg: 'N',
    default: 5,
    alwaysRecorded: true,
    bounds: { integer: true, max: 100, unit: '', why: 'each client is a process' },
    help: 'client worker processes',
  },
  ttlMs: {
    flag: 'ttl',
    type: 'number',
    arg: 'MS',
    default: 1000,
    alwaysRecorded: true,
    bounds: { integer: true, ...hour },
    help: 'lock lease TTL',
  },
  holdMs: {
    flag: 'hold',
    type: 'number',
    arg: 'MS',
    default: 100,
    alwaysRecorded: true,
    bounds: { zero: true, ...hour },
    help: 'time a holder keeps the lock between read and write',
  },
  rate: {
    flag: 'rate',
    type: 'number',
    arg: 'N',
    default: 0,
    alwaysRecorded: true,
    bounds: { zero: true, max: 100_000, unit: '/s', why: 'far more than clients can do' },
    help: 'acquire cycles per second across clients, 0 = unthrottled',
  },
  acquireTimeoutMs: {
    flag: 'acquire-timeout',
    type: 'number',
    arg: 'MS',
    default: 5000,
    alwaysRecorded: true,
    bounds: hour,
    help: 'give up an acquire after this long, a fail',
  },
  releaseTimeoutMs: {
    flag: 'release-timeout',
    type: 'number',
    arg: 'MS',
    default: 2000,
    bounds: hour,
    help: "how long a client program's release may take before the program counts as hung (told at init)",
  },
  requestTimeoutMs: {
    flag: 'request-timeout',
    type: 'number',
    arg: 'MS',
    default: 1000,
    alwaysRecorded: true,
    bounds: hour,
    help: 'a request unanswered this long is recorded as info',
  },
  nemesisIntervalS: {
    flag: 'nemesis-interval',
    type: 'number',
    arg: 'S',
    default: 3,
    alwaysRecorded: true,
    bounds: { min: 0.1, max: 86_400, unit: 's', why: 'a fault needs time to take effect' },
    help: 'mean seconds between faults',
  },
  pauseTtl: {
    flag: 'pause-ttl',
    type: 'number',
    arg: 'X',
    bounds: { min: 0.01, max: 100, unit: '× TTL', why: 'a pause is a fraction of a lease to many leases' },
    help: 'client-pause pauses exactly X times the TTL (default: a seeded draw, 0.8-2x)',
  },
  backoffJitterMs: {
    flag: 'backoff-jitter',
    type: 'number',
    arg: 'MS',
    bounds: { zero: true, max: 60_000, unit: 'ms', why: 'a minute' },
    help: `the Uniform(0, MS) added to each acquire retry's backoff (default ${BACKOFF.jitterMs}; 0: none)`,
  },
  nodes: {
    flag: 'nodes',
    type: 'number',
    arg: 'N',
    bounds: { integer: true, max: 15, unit: '', why: 'each node is a container' },
    help: 'lock-service nodes (redlock masters, default 5)',
  },
  backendOptions: {
    flag: 'backend-options',
    type: 'string',
    arg: 'K=V,...',
    what: 'key=value,key=value',
    pattern: '^[^=,]+=[^,]*(,[^=,]+=[^,]*)*$',
    help: () =>
      [
        "the backend's own options (e.g. redis-sentinel wait=1,min-replicas=1):",
        ...Object.values(BACKENDS).flatMap((b) =>
          Object.entries(b.options ?? {}).map(([k, o]) => `  ${b.name} ${k}: ${o.what} (default ${o.default})`),
        ),
      ].join('\n'),
  },
  clientCommand: {
    flag: 'client-command',
    type: 'string',
    arg: 'CMD',
    help: "drive each client through this program instead of the backend's own client: your lock\nlibrary behind an adapter that speaks the client protocol (docs/client-protocol.md;\ncheck it with lockchaos client-check)",
  },
  clientDir: {
    flag: 'client-dir',
    type: 'string',
    arg: 'DIR',
    help: "the folder --client-command runs in (default: the current folder; in a campaign, the file's)",
  },
  target: {
    flag: 'target',
    type: 'string',
    arg: 'FILE',
    help: 'test the lock service an inventory describes (hosts over SSH, existing containers,\na rented service) instead of starting one: docs/targets.md',
  },
  seed: {
    flag: 'seed',
    type: 'number',
    arg: 'N',
    alwaysRecorded: true,
    campaign: false,
    help: 'seed for every random choice (default: random, recorded in test.json)',
  },
  storeDir: {
    flag: 'store',
    type: 'string',
    arg: 'DIR',
    default: 'store',
    alwaysRecorded: true,
    campaign: false,
    help: 'where runs are written',
  },
  name: {
    flag: 'name',
    type: 'string',
    arg: 'NAME',
    alwaysRecorded: true,
    campaign: false,
    help: 'test name, the folder under the store (default backend-workload-nemesis-fencing)',
  },
  schedule: {
    flag: 'schedule',
    type: 'faults',
    arg: 'FILE',
    campaign: false,
    help: [
      'apply these faults at their times instead of drawing them: a schedule file',
      '(lockchaos shrink writes one), or a run folder or test.json; its run parameters',
      'are the defaults, flags given still apply, the seed is new unless --seed',
    ].join('\n'),
  },
  stopOnViolation: {
    flag: 'stop-on-violation',
    type: 'switch',
    help: 'end the workload at the first violation a checker will count (holds that\noverlap unfenced, a stale token accepted or a token not grown fenced, an\nacknowledged add missing from a read), then heal, read and check as usual:\nan invalid run costs seconds, not the time limit',
  },
} as const satisfies Table;

type Rows = typeof PARAMETERS;

/** A row with its field. */
export type Parameter = (NumberRow | SwitchRow | OnOffRow | StringRow | FaultsRow) & { field: keyof TestConfig };

/** The rows, in order. */
export const PARAMETER_LIST: readonly Parameter[] = Object.entries(PARAMETERS).map(
  ([field, row]) => ({ field, ...row }) as Parameter,
);

/** The fields a campaign sets as options (`defaults:`, an entry's `options:`). */
export type OptionField = { [K in keyof Rows]: Rows[K] extends { campaign: false } ? never : K }[keyof Rows];

/** The campaign options' rows, in order. */
export const OPTION_PARAMETERS: readonly Parameter[] = PARAMETER_LIST.filter((p) => p.campaign !== false);

/** Run options as a campaign file spells them: the `lockchaos run` flag names. */
export type RunOptionsFile = { [K in OptionField as Rows[K]['flag']]?: NonNullable<TestConfig[K]> };

/** Run options, as TestConfig fields. */
export type RunOptions = Partial<Pick<TestConfig, OptionField>>;

/** Every parameter's default; name and seed have none (a run derives its name, draws its seed). */
export const DEFAULTS = Object.fromEntries(
  PARAMETER_LIST.filter((p) => p.default !== undefined).map((p) => [p.field, p.default]),
) as Omit<TestConfig, 'name' | 'seed'>;

/** A row's default as --help shows it: "30", "off"; '' without one. */
export function defaultText(p: Parameter): string {
  if (p.default === undefined) return '';
  if (p.type === 'on-off') return p.default ? 'on' : 'off';
  return String(p.default);
}

/** A row's --help text, default included. */
export function helpText(p: Parameter): string {
  if (typeof p.help === 'function') return p.help(defaultText(p));
  return p.default === undefined ? p.help : `${p.help} (default ${defaultText(p)})`;
}

/**
 * The given fields as `lockchaos run` flags, in the table's order: a switch by its flag
 * alone when set, an on-off field as on or off, others by their value. Fields in `skip`
 * and unset ones are left out.
 */
export function flagWords(config: Partial<TestConfig>, skip: ReadonlySet<string> = new Set()): string[] {
  const words: string[] = [];
  for (const p of PARAMETER_LIST) {
    const v = config[p.field];
    if (skip.has(p.field) || v === undefined || v === null) continue;
    if (p.type === 'switch') {
      if (v) words.push(`--${p.flag}`);
    } else words.push(`--${p.flag}`, p.type === 'on-off' ? (v ? 'on' : 'off') : String(v));
  }
  return words;
}
