/**
 * A test's configuration: everything needed to run it again (seed included), written to
 * test.json. Validation turns bad values into one-line UserErrors that name the fix.
 */
import { basename } from 'node:path';
import { WORKLOADS, workloadByName } from '../../workloads/index.js';
import type { Backend, BackendOptions } from '../backends/backend.js';
import { BACKENDS, backendByName } from '../backends/index.js';
import { checkSpecForBackend } from '../nemesis/index.js';
import type { ScheduledFault } from '../nemesis/schedule.js';
import { FAULT_KINDS, parseNemesisSpec } from '../nemesis/spec.js';
import { MAX_DEPTH, nestedDeeperThan } from '../util/depth.js';
import { errorMessage, UserError } from '../util/errors.js';
import { checkedNodeSpecs } from './backend-module.js';

export interface TestConfig {
  /** The test's name, the folder under the store: backend-workload-nemesis-fenced. */
  name: string;
  backend: string;
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
  /** End the workload at the first counted overlap of holds (unfenced), then heal and check. */
  stopOnViolation?: boolean;
  /**
   * client-pause pauses for exactly this many TTLs (a sweep's axis); undefined: a seeded
   * draw from PAUSE_TTL_FACTOR (0.8–2×).
   */
  pauseTtl?: number;
  /** The U(0, jitter) ms added to every acquire retry's backoff; undefined: BACKOFF.jitterMs (25). */
  backoffJitterMs?: number;
  seed: number;
  /** Where runs are written: <storeDir>/<name>/<timestamp>/. */
  storeDir: string;
}

export const DEFAULTS: Omit<TestConfig, 'name' | 'seed'> = {
  backend: 'redis',
  workload: 'lock-set',
  nemesis: 'none',
  fencing: false,
  timeLimitS: 30,
  concurrency: 5,
  ttlMs: 1000,
  holdMs: 100,
  rate: 0,
  acquireTimeoutMs: 5000,
  requestTimeoutMs: 1000,
  nemesisIntervalS: 3,
  storeDir: 'store',
};

/**
 * backend-workload-nemesis-fenced; a module backend by its file name, safe as a folder name
 * (no : or , either: artifact uploaders refuse them).
 */
export const testName = (c: Pick<TestConfig, 'backend' | 'workload' | 'nemesis' | 'fencing'>) =>
  `${basename(c.backend).replace(/\.(m?js|cjs)$/, '')}-${c.workload}-${c.nemesis}-${c.fencing ? 'fenced' : 'unfenced'}`.replace(
    /[^\w.+-]/g,
    '_',
  );

/**
 * Upper (and some lower) bounds: past them a run cannot work here (setTimeout overflows
 * past 24.8 days; every client is a process, every node a container; faults every
 * microsecond are no schedule). Campaign cells are held to the same.
 */
export const LIMITS = {
  'time-limit': { max: 86_400, unit: 's', why: 'a day' },
  concurrency: { max: 100, unit: '', why: 'each client is a process' },
  nodes: { max: 15, unit: '', why: 'each node is a container' },
  'nemesis-interval': { min: 0.1, max: 86_400, unit: 's', why: 'a fault needs time to take effect' },
  ttl: { max: 3_600_000, unit: 'ms', why: 'an hour' },
  hold: { max: 3_600_000, unit: 'ms', why: 'an hour' },
  'acquire-timeout': { max: 3_600_000, unit: 'ms', why: 'an hour' },
  'request-timeout': { max: 3_600_000, unit: 'ms', why: 'an hour' },
  rate: { max: 100_000, unit: '/s', why: 'far more than clients can do' },
  'pause-ttl': { min: 0.01, max: 100, unit: '× TTL', why: 'a pause is a fraction of a lease to many leases' },
  'backoff-jitter': { max: 60_000, unit: 'ms', why: 'a minute' },
} as const satisfies Record<string, { min?: number; max: number; unit: string; why: string }>;

function positive(name: keyof typeof LIMITS, value: number, { integer = false, zero = false } = {}) {
  const ok = Number.isFinite(value) && (zero ? value >= 0 : value > 0) && (!integer || Number.isInteger(value));
  if (!ok) {
    throw new UserError(
      `--${name} must be a ${integer ? 'whole ' : ''}number ${zero ? '>= 0' : '> 0'}, got '${value}'`,
    );
  }
  const limit: { min?: number; max: number; unit: string; why: string } = LIMITS[name];
  if (value > limit.max || (limit.min !== undefined && value < limit.min)) {
    const range = limit.min !== undefined ? `from ${limit.min} to ${limit.max}` : `at most ${limit.max}`;
    throw new UserError(
      `--${name} must be ${range}${limit.unit ? ` ${limit.unit}` : ''} (${limit.why}), got '${value}'`,
    );
  }
}

/** Throws a UserError naming the first problem; returns the config otherwise. */
export function validateConfig(c: TestConfig): TestConfig {
  const backend = backendByName(c.backend);
  if (!backend) {
    throw new UserError(
      `unknown backend '${c.backend}': choose one of ${Object.keys(BACKENDS).join(', ')}, or give a module's path (./my-lock.js)`,
    );
  }
  const missing = backend.unavailable?.();
  if (missing) throw new UserError(`--backend ${c.backend} ${missing}`);
  if (!workloadByName(c.workload)) {
    throw new UserError(`unknown workload '${c.workload}': choose one of ${Object.keys(WORKLOADS).join(', ')}`);
  }
  if (c.nodes !== undefined) positive('nodes', c.nodes, { integer: true });
  const lockNodes = checkedNodeSpecs(backend, backendOptionsOf(c, backend)).filter((s) => s.role === 'node').length;
  if (c.nemesis.trim() === '')
    throw new UserError('--nemesis is empty: give none, or fault kinds (lockchaos run --help)');
  const faultSpecs = checkSpecForBackend(c.nemesis, backend, lockNodes);
  if (c.schedule) {
    const kinds = new Set<string>(faultSpecs.map((f) => f.kind));
    const stray = c.schedule.find((f) => !kinds.has(f.kind));
    if (stray) {
      throw new UserError(
        `the schedule has a ${stray.kind} fault, which --nemesis '${c.nemesis}' does not run: add ${stray.kind} to --nemesis`,
      );
    }
  }
  if (c.fencing && !backend.fencing.supported) throw new UserError(`--fencing on: ${backend.fencing.why}`);
  // The name is a folder under the store: one path segment, nothing that climbs out of it.
  // (: and , of older names are accepted and left out of the folder's name.)
  if (!/^[\w+-][\w.+:,=-]*$/.test(c.name) || c.name.includes('..')) {
    throw new UserError(
      `--name must be a folder name of letters, digits, . _ + - (no /, no .., not starting with .), got '${c.name}'`,
    );
  }
  positive('time-limit', c.timeLimitS);
  positive('concurrency', c.concurrency, { integer: true });
  positive('ttl', c.ttlMs, { integer: true });
  positive('hold', c.holdMs, { zero: true });
  positive('rate', c.rate, { zero: true });
  positive('acquire-timeout', c.acquireTimeoutMs);
  positive('request-timeout', c.requestTimeoutMs);
  positive('nemesis-interval', c.nemesisIntervalS);
  if (c.pauseTtl !== undefined) {
    positive('pause-ttl', c.pauseTtl);
    if (!parseNemesisSpec(c.nemesis).some((s) => s.kind === 'client-pause')) {
      throw new UserError(
        `--pause-ttl sets how long client-pause pauses: add client-pause to --nemesis (got '${c.nemesis}')`,
      );
    }
  }
  if (c.backoffJitterMs !== undefined) positive('backoff-jitter', c.backoffJitterMs, { zero: true });
  if (c.nodes !== undefined) {
    if (lockNodes !== c.nodes) {
      throw new UserError(`--nodes ${c.nodes}: backend ${c.backend} runs ${lockNodes} nodes; leave --nodes out`);
    }
    // Fewer nodes than the service is itself with (Redlock on 1 or 2 masters), as it declares.
    const min = backend.capabilities?.minNodes;
    if (min && c.nodes < min.count) {
      throw new UserError(
        `--nodes must be at least ${min.count} for ${c.backend} (${min.why(c.nodes)}), got '${c.nodes}'`,
      );
    }
  }
  if (!Number.isInteger(c.seed) || c.seed < 0 || c.seed >= 2 ** 32) {
    throw new UserError(`--seed must be a whole number from 0 to ${2 ** 32 - 1}, got '${c.seed}'`);
  }
  return c;
}

/**
 * What nodeSpecs and clients are given: the node count, the lease length and the backend's
 * own options, parsed from `key=value,key=value` and checked against the names it declares.
 */
export function backendOptionsOf(
  c: Pick<TestConfig, 'nodes' | 'ttlMs' | 'backendOptions'>,
  backend: Backend,
): BackendOptions {
  const settings: Record<string, string> = {};
  const known = backend.options ?? {};
  const allowed = Object.keys(known).length > 0 ? Object.keys(known).join(', ') : 'none';
  for (const part of (c.backendOptions ?? '').split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    if (eq < 1 || !Object.hasOwn(known, key)) {
      throw new UserError(
        `--backend-options '${part.trim()}': ${backend.name} takes key=value with a key from: ${allowed}`,
      );
    }
    const value = part.slice(eq + 1).trim();
    const problem = known[key]?.check?.(value);
    if (problem) throw new UserError(`--backend-options: ${backend.name} ${key} ${problem}`);
    settings[key] = value;
  }
  for (const [key, option] of Object.entries(known)) settings[key] ??= option.default;
  return { nodes: c.nodes, ttlMs: c.ttlMs, settings };
}

/** test.json fields and their types: what a stored configuration must have. */
const STORED_FIELDS: Record<string, 'string' | 'number' | 'boolean'> = {
  name: 'string',
  backend: 'string',
  workload: 'string',
  nemesis: 'string',
  fencing: 'boolean',
  timeLimitS: 'number',
  concurrency: 'number',
  ttlMs: 'number',
  holdMs: 'number',
  rate: 'number',
  acquireTimeoutMs: 'number',
  requestTimeoutMs: 'number',
  nemesisIntervalS: 'number',
  seed: 'number',
  storeDir: 'string',
};

/**
 * A stored test.json, read back (by --replay and by reports): JSON, an object, and every
 * field a run records, of its type. Bad content is one UserError line naming the file.
 */
export function parseStoredConfig(text: string, file: string): TestConfig {
  return storedConfig(parseJson(text, file), file) as TestConfig;
}

/** A file's text as JSON; bad JSON is one UserError line naming the file. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`'${file}' is not JSON (${errorMessage(err).split('\n')[0]})`);
  }
}

/**
 * A stored configuration's fields checked: every field a run records, of its type, but
 * those in `except` (a schedule file's configuration has no name, seed or store).
 */
export function storedConfig(data: unknown, file: string, except: readonly string[] = []): Partial<TestConfig> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new UserError(`'${file}' is not a test configuration (expected a JSON object, as run folders' test.json)`);
  }
  if (nestedDeeperThan(data)) {
    throw new UserError(
      `'${file}' is not a test configuration: it nests more than ${MAX_DEPTH} levels deep (test.json is flat)`,
    );
  }
  const stored = data as Record<string, unknown>;
  for (const [key, type] of Object.entries(STORED_FIELDS)) {
    if (except.includes(key)) continue;
    const got = stored[key];
    if (typeof got !== type) {
      const what = got === undefined ? 'missing' : `${JSON.stringify(got)} is not a ${type}`;
      throw new UserError(`'${file}' is not a test configuration: ${key}: ${what}`);
    }
  }
  if (stored.schedule !== undefined) stored.schedule = parseScheduledFaults(stored.schedule, `'${file}' schedule`);
  if (stored.stopOnViolation !== undefined && typeof stored.stopOnViolation !== 'boolean') {
    throw new UserError(`'${file}' is not a test configuration: stopOnViolation: not a boolean`);
  }
  return stored as Partial<TestConfig>;
}

/**
 * A schedule's faults read back (test.json, a schedule file): a list of {kind, atMs,
 * durationMs, seed}. Bad content is one UserError line naming where and which fault.
 */
export function parseScheduledFaults(data: unknown, where: string): ScheduledFault[] {
  if (!Array.isArray(data)) throw new UserError(`${where}: expected a list of faults`);
  return data.map((f: unknown, i) => {
    const bad = (why: string) =>
      new UserError(`${where}: fault ${i + 1} ${why} (each is {kind, atMs, durationMs, seed})`);
    if (f === null || typeof f !== 'object' || Array.isArray(f)) throw bad('is not an object');
    const { kind, atMs, durationMs, seed, did } = f as Record<string, unknown>;
    if (typeof kind !== 'string' || !Object.hasOwn(FAULT_KINDS, kind)) {
      throw bad(`has kind ${JSON.stringify(kind)}: use one of ${Object.keys(FAULT_KINDS).join(', ')}`);
    }
    const ms = (v: unknown, name: string, min: number) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > LIMITS['time-limit'].max * 1000) {
        throw bad(`has ${name} ${JSON.stringify(v)}: give milliseconds, ${min} to a day`);
      }
      return v;
    };
    if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
      throw bad(`has seed ${JSON.stringify(seed)}: give a whole number from 0 to ${2 ** 32 - 1}`);
    }
    const fault: ScheduledFault = {
      kind,
      atMs: ms(atMs, 'atMs', 0),
      durationMs: ms(durationMs, 'durationMs', 1),
      seed,
    };
    if (did !== undefined) fault.did = did;
    return fault;
  });
}
