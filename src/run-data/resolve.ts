/**
 * A run resolved: its paths located, its name set, its configuration checked once, and
 * what the checks learned kept and handed down (the backend, the workload, the backend's
 * options, the node specs, the faults), so that no phase of the run derives them again. A
 * bad value is one UserError line that names the fix.
 */
import { basename, resolve } from 'node:path';
import { WORKLOADS, workloadByName } from '../../workloads/index.js';
import type { Workload } from '../../workloads/workload.js';
import type { Backend, BackendOptions } from '../backends/backend.js';
import { clientProgramName } from '../backends/client-protocol.js';
import { backendOf, isModulePath, knownBackend, locateBackendModule } from '../backends/index.js';
import type { NodeSpec } from '../cluster/cluster.js';
import { dataStoreNodeSpec } from '../datastore/datastore.js';
import { type Fault, resolveFaults } from '../nemesis/index.js';
import type { ParsedFault } from '../nemesis/spec.js';
import { type Inventory, readInventory } from '../target/inventory.js';
import { nearestOr } from '../util/did-you-mean.js';
import { UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import { fencingWord } from './config.js';
import { type Bounds, PARAMETER_LIST, type TestConfig } from './parameters.js';
import { type ResolvedTarget, resolveTarget } from './target.js';

export interface ResolvedRun {
  /** The configuration as given, named, its client program's folder located. */
  readonly config: TestConfig;
  readonly backend: Backend;
  readonly workload: Workload;
  /** What the backend's nodeSpecs and clients are given. */
  readonly backendOptions: BackendOptions;
  /** The cluster: the lock service's nodes (checked), then the data store. */
  readonly nodeSpecs: readonly NodeSpec[];
  /** The --nemesis spec's faults, fit for the backend. */
  readonly faults: readonly Fault[];
  /** A lock service lockchaos does not start (--target): its nodes take the lock nodes' place. */
  readonly target?: ResolvedTarget;
}

/**
 * The run a configuration describes, its backend given (a module backend loaded first:
 * prepare.ts) or found among those known; the run named when it has no name (by the
 * backend's own name), a client program's folder located. `faults`: its --nemesis spec
 * already parsed where it was checked (a campaign file's), not parsed again. A UserError
 * naming the first problem otherwise.
 */
export function resolveRun(
  input: TestConfig,
  known: Backend = knownBackend(input),
  faults?: readonly ParsedFault[],
): ResolvedRun {
  const c = { ...input, ...locateClientDir(input), ...locateTarget(input) };
  c.name ||= testName(c, known);
  return resolveWith(c, known, faults);
}

/**
 * --fencing on for a backend whose grants carry no token: the one refusal of it, told apart
 * so that a campaign can name the key of its file that asked for it.
 */
export class FencingRefused extends UserError {
  constructor(readonly why: string) {
    super(`--fencing on: ${why}`);
  }
}

/** The configuration checked (resolveRun, for a caller that wants no more): a UserError naming the first problem. */
export const validateConfig = (c: TestConfig): TestConfig => resolveRun(c).config;

function resolveWith(c: TestConfig, backend: Backend, parsed: readonly ParsedFault[] | undefined): ResolvedRun {
  if (c.backendModule !== undefined && !isModulePath(c.backend)) {
    throw new UserError(
      `--backend-module is where a module backend is: give --backend a module's path, or leave --backend-module out`,
    );
  }
  const missing = backend.unavailable?.();
  if (missing) throw new UserError(`--backend ${c.backend} ${missing}`);
  const workload = workloadByName(c.workload);
  if (!workload) {
    throw new UserError(
      `unknown workload '${c.workload}'${nearestOr(c.workload, Object.keys(WORKLOADS), `choose one of ${Object.keys(WORKLOADS).join(', ')}`)}`,
    );
  }
  // Every number within its bounds (the node count before the nodes are counted); one
  // without a default may be left out.
  for (const p of PARAMETER_LIST) {
    const value = c[p.field];
    if (p.type !== 'number' || !p.bounds || (value === undefined && p.default === undefined)) continue;
    withinBounds(p.flag, value as number, p.bounds);
  }
  // A target's nodes are counted by its inventory: the backend is asked for as many.
  const inventory = c.target === undefined ? undefined : readTarget(c, backend);
  const nodesAsked = c.nodes ?? inventory?.nodes.length;
  const backendOptions = backendOptionsOf({ ...c, nodes: nodesAsked }, backend);
  const lockSpecs = backend.nodeSpecs(backendOptions);
  const lockNodes = lockSpecs.filter((s) => s.role === 'node').length;
  if (c.nemesis.trim() === '')
    throw new UserError(`--nemesis is empty: give none, or fault kinds (${cliCommand} run --help)`);
  const faults = resolveFaults(parsed ?? c.nemesis, backend, lockNodes, inventory !== undefined);
  const kinds = new Set<string>(faults.map((f) => f.spec.kind));
  const stray = c.schedule?.find((f) => !kinds.has(f.kind));
  if (stray) {
    throw new UserError(
      `the schedule has a ${stray.kind} fault, which --nemesis '${c.nemesis}' does not run: add ${stray.kind} to --nemesis`,
    );
  }
  if (c.fencing && !backend.fencing.supported) throw new FencingRefused(backend.fencing.why);
  // The name is a folder under the store: one path segment, nothing that climbs out of it.
  // (: and , of older names are accepted and left out of the folder's name.)
  if (!/^[\w+-][\w.+:,=-]*$/.test(c.name) || c.name.includes('..')) {
    throw new UserError(
      `--name must be a folder name of letters, digits, . _ + - (no /, no .., not starting with .), got '${c.name}'`,
    );
  }
  if (c.pauseTtl !== undefined && !kinds.has('client-pause')) {
    throw new UserError(
      `--pause-ttl sets how long client-pause pauses: add client-pause to --nemesis (got '${c.nemesis}')`,
    );
  }
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
  const target = inventory && resolveTarget(inventory, lockSpecs, faults, c);
  return {
    config: c,
    backend,
    workload,
    backendOptions,
    nodeSpecs: [...lockSpecs, dataStoreNodeSpec()],
    faults,
    ...(target ? { target } : {}),
  };
}

/** The inventory --target names, read with the backend's defaults (its service's process, its client port). */
function readTarget(c: TestConfig, backend: Backend): Inventory {
  const port = backend.nodeSpecs(backendOptionsOf({ ...c, nodes: undefined }, backend))[0]?.port ?? 0;
  return readInventory(c.target as string, { backend: backend.name, port });
}

/** A number against its row's bounds (parameters.ts), as one UserError line naming the flag. */
export function withinBounds(flag: string, value: number, { integer, zero, min, max, unit, why }: Bounds) {
  const ok = Number.isFinite(value) && (zero ? value >= 0 : value > 0) && (!integer || Number.isInteger(value));
  if (!ok) {
    throw new UserError(
      `--${flag} must be a ${integer ? 'whole ' : ''}number ${zero ? '>= 0' : '> 0'}, got '${value}'`,
    );
  }
  if (value > max || (min !== undefined && value < min)) {
    const range = min !== undefined ? `from ${min} to ${max}` : `at most ${max}`;
    throw new UserError(`--${flag} must be ${range}${unit ? ` ${unit}` : ''} (${why}), got '${value}'`);
  }
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
    // Given twice, either could be meant: neither is taken silently.
    if (Object.hasOwn(settings, key)) {
      throw new UserError(
        `--backend-options gives ${key} twice (${key}=${settings[key]}, ${key}=${value}): give it once`,
      );
    }
    const problem = known[key]?.check?.(value);
    if (problem) throw new UserError(`--backend-options: ${backend.name} ${key} ${problem}`);
    settings[key] = value;
  }
  for (const [key, option] of Object.entries(known)) settings[key] ??= option.default;
  return { nodes: c.nodes, ttlMs: c.ttlMs, settings };
}

/**
 * backend-workload-nemesis-fenced, a module backend by its own `name` (by its file's name
 * while it is not loaded), a client program after a + (redis+redis-py-lock-...), safe as a
 * folder name (no : or , either: artifact uploaders refuse them).
 */
export const testName = (
  c: Pick<TestConfig, 'backend' | 'backendModule' | 'workload' | 'nemesis' | 'fencing' | 'clientCommand'>,
  known: Backend | undefined = backendOf(c),
) => {
  const backend = known?.name ?? basename(c.backend).replace(/\.(m?js|cjs)$/, '');
  const client = c.clientCommand !== undefined ? `+${clientProgramName(c.clientCommand)}` : '';
  return `${backend}${client}-${c.workload}-${c.nemesis}-${fencingWord(c.fencing)}`.replace(/[^\w.+-]/g, '_');
};

/**
 * The configuration with its paths located, from `baseDir` (default: the current folder;
 * a campaign's: its file's folder), as test.json records them for a replay anywhere: a
 * module backend's absolute path (backends/index.ts), and `clientDir`, where a client
 * program runs.
 */
export function locatePaths<
  C extends Pick<TestConfig, 'backend' | 'backendModule' | 'clientCommand' | 'clientDir' | 'target'>,
>(c: C, baseDir = process.cwd()): C & Pick<TestConfig, 'backendModule' | 'clientDir' | 'target'> {
  return { ...locateBackendModule(c, baseDir), ...locateClientDir(c, baseDir), ...locateTarget(c, baseDir) };
}

/** The target's inventory, absolute (nothing without one). */
function locateTarget(c: Pick<TestConfig, 'target'>, baseDir = process.cwd()) {
  return c.target === undefined ? {} : { target: resolve(baseDir, c.target) };
}

/** Where a client program runs, absolute (nothing without a client program). */
function locateClientDir(c: Pick<TestConfig, 'clientCommand' | 'clientDir'>, baseDir = process.cwd()) {
  return c.clientCommand === undefined ? {} : { clientDir: resolve(baseDir, c.clientDir ?? '.') };
}
