/**
 * A user's own backend, loaded from a module (`--backend ./my-lock.js`): a module that
 * exports the Backend interface, as its default export or as `backend`, held to what the
 * runner needs at the door. Its import must finish (a top-level await that never settles
 * would otherwise leave Node with nothing to do: exit 0, no output); its nodeSpecs must
 * give node specs (a throw or nothing would otherwise surface as a crash deep in the
 * cluster start); its nodes' ready() must settle. Each problem is one UserError line
 * naming the module and the fix.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { NodeHandle, NodeSpec } from '../cluster/cluster.js';
import { withDeadline } from '../util/deadline.js';
import { errorMessage, UserError } from '../util/errors.js';
import type { Backend, BackendOptions } from './backend.js';

export const MODULE_LOAD_TIMEOUT_MS = 15_000;
export const READY_TIMEOUT_MS = 60_000;

const HOW = '(see docs/adding-a-backend.md)';

/** A --backend value that names a module rather than a built-in backend: a path with a folder, or a .js/.mjs/.cjs file. */
export const MODULE_PATH = /[/\\]|\.(m?js|cjs)$/;
export const isModulePath = (name: string) => MODULE_PATH.test(name);

/** What a module must export; the first missing piece is named in the error. */
export function backendProblem(candidate: unknown): string | undefined {
  if (typeof candidate !== 'object' || candidate === null)
    return 'export a Backend object (default export or `backend`)';
  const b = candidate as Partial<Record<keyof Backend, unknown>>;
  if (typeof b.name !== 'string' || b.name === '') return 'missing name (a string)';
  if (typeof b.nodeSpecs !== 'function') return 'missing nodeSpecs(opts) returning the node specs';
  if (typeof b.client !== 'function') return 'missing client(nodes, opts) returning a LockClient';
  const fencing = b.fencing as { supported?: unknown } | undefined;
  if (typeof fencing?.supported !== 'boolean')
    return 'missing fencing: { supported: true } or { supported: false, why }';
  if (b.clientLogin !== undefined && !isLogin(b.clientLogin))
    return 'clientLogin must be { user, password?, database? }, each a string (of at most 256 characters)';
  return undefined;
}

/** A clientLogin as a client program's init carries it: strings only, short. */
function isLogin(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = Object.entries(value);
  const text = (v: unknown) => typeof v === 'string' && v.length <= 256;
  return (
    text((value as { user?: unknown }).user) &&
    fields.every(([k, v]) => ['user', 'password', 'database'].includes(k) && text(v))
  );
}

/**
 * A backend module imported by path and held to the contract (see the top of this file);
 * a module that fails to load in time or to fit is one UserError.
 */
export async function importBackendModule(name: string, timeoutMs = MODULE_LOAD_TIMEOUT_MS): Promise<Backend> {
  const module = await withDeadline(
    importModule(name),
    timeoutMs,
    () =>
      new UserError(
        `backend module ${name} did not finish loading in ${timeoutMs / 1000} s (a top-level await that never settles?): make its import complete ${HOW}`,
      ),
  );
  const candidate = module.backend ?? module.default;
  const problem = backendProblem(candidate);
  if (problem) throw new UserError(`${name} does not implement the backend interface: ${problem} ${HOW}`);
  return heldToContract(candidate as Backend);
}

async function importModule(name: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(resolve(name)).href)) as Record<string, unknown>;
  } catch (err) {
    throw new UserError(`cannot load backend module ${name}: ${errorMessage(err).split('\n')[0]}`);
  }
}

/**
 * The module's backend as the runner sees it: the same object, but its nodeSpecs checked.
 * A proxy rather than a copy, so that a backend written as a class keeps its methods and
 * its private fields (each method is called on the module's own object).
 */
function heldToContract(backend: Backend): Backend {
  const nodeSpecs = (opts: BackendOptions) => checkedNodeSpecs(backend, opts);
  // Each method bound once: the same function at every read, as on the object itself.
  const bound = new WeakMap<object, unknown>();
  return new Proxy(backend, {
    get(held, key) {
      if (key === 'nodeSpecs') return nodeSpecs;
      const value = Reflect.get(held, key);
      if (typeof value !== 'function') return value;
      if (!bound.has(value)) bound.set(value, value.bind(held));
      return bound.get(value);
    },
  });
}

/** backend.nodeSpecs(opts), or a UserError when it throws or gives no node specs. */
function checkedNodeSpecs(backend: Backend, opts: BackendOptions): NodeSpec[] {
  let specs: unknown;
  const call = `${backend.name}: nodeSpecs({ nodes: ${opts.nodes} })`;
  try {
    specs = backend.nodeSpecs(opts);
  } catch (err) {
    throw new UserError(`backend ${call} threw: ${errorMessage(err).split('\n')[0]} ${HOW}`);
  }
  if (!Array.isArray(specs) || specs.length === 0) {
    const got = Array.isArray(specs) ? 'an empty list' : specs === undefined ? 'nothing' : typeof specs;
    throw new UserError(`backend ${call} returned ${got}: return a list of node specs ${HOW}`);
  }
  const bad = specs.findIndex(
    (s: Partial<NodeSpec> | null) =>
      typeof s !== 'object' ||
      s === null ||
      typeof s.name !== 'string' ||
      s.name === '' ||
      typeof s.ready !== 'function',
  );
  if (bad >= 0) {
    throw new UserError(`backend ${call}: node spec ${bad} has no name or no ready(node) ${HOW}`);
  }
  const lock = specs.filter((s: NodeSpec) => s.role === 'node').length;
  if (lock === 0) throw new UserError(`backend ${call}: no node spec has role 'node' ${HOW}`);
  return (specs as NodeSpec[]).map((s) => checkedReady(backend.name, s));
}

/**
 * A module's node spec whose ready() ends in time and fails in one line: one that never
 * settled hung the cluster start for good, one that threw was a stack trace.
 */
function checkedReady(name: string, spec: NodeSpec): NodeSpec {
  const ms = spec.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const call = `backend ${name}: node '${spec.name}' ready()`;
  const ready = (node: NodeHandle, start?: { restart: boolean }) =>
    withDeadline(
      Promise.resolve()
        .then(() => spec.ready(node, start))
        .catch((err) => {
          throw new UserError(`${call} threw: ${errorMessage(err).split('\n')[0]} ${HOW}`);
        }),
      ms,
      () =>
        new UserError(
          `${call} did not settle in ${ms / 1000} s: make it resolve once the server answers, or throw ${HOW}`,
        ),
    );
  return { ...spec, ready };
}
