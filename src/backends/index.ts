/**
 * The backends lockchaos knows by name, and a user's own backend loaded from a module
 * (`--backend ./my-lock.js`): a module that exports the Backend interface, as its default
 * export or as `backend`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { nearestOr } from '../util/did-you-mean.js';
import { UserError } from '../util/errors.js';
import type { Backend } from './backend.js';
import { BUILT_IN_IMPORTS } from './import.js';
import { importBackendModule, isModulePath } from './module.js';

/**
 * Every built-in backend, imported: the list is BUILT_IN_IMPORTS' (a worker imports only its
 * own from there), in its order, so a backend is added in one place.
 */
export const BACKENDS: Record<string, Backend> = Object.fromEntries(
  await Promise.all(Object.entries(BUILT_IN_IMPORTS).map(async ([name, load]) => [name, await load()] as const)),
);

/** Backends loaded from modules, by their absolute path. */
const loaded = new Map<string, Backend>();

/**
 * A built-in backend by name, or a loaded module's by its path (a relative one is taken
 * from the current folder); undefined for one not known or not loaded.
 */
export function backendByName(name: string): Backend | undefined {
  if (Object.hasOwn(BACKENDS, name)) return BACKENDS[name];
  return isModulePath(name) ? loaded.get(resolve(name)) : undefined;
}

/**
 * The backend a configuration names: its module by the resolved path it recorded
 * (`backendModule`), else by `backend`.
 */
export function backendOf(c: { backend: string; backendModule?: string }): Backend | undefined {
  return c.backendModule !== undefined && isModulePath(c.backend)
    ? loaded.get(resolve(c.backendModule))
    : backendByName(c.backend);
}

/**
 * The backend a configuration names, known (built in, or its module loaded): a UserError
 * naming the fix otherwise.
 */
export function knownBackend(c: BackendChoice): Backend {
  const backend = backendOf(c);
  if (backend) return backend;
  if (isModulePath(c.backend)) {
    throw new UserError(
      `backend module ${c.backendModule ?? c.backend} is not loaded: run(), campaign() and the CLI load it (a library caller: await loadBackend(path) first)`,
    );
  }
  const names = Object.keys(BACKENDS);
  throw new UserError(
    `unknown backend '${c.backend}'${nearestOr(c.backend, names, `choose one of ${names.join(', ')}, or give a module's path (./my-lock.js)`)}`,
  );
}

/**
 * Makes a module backend known by its absolute path (built-in names need nothing), held to
 * the contract (module.ts). Relative paths are taken from `baseDir` (default: the current
 * folder); an import that has not finished in `timeoutMs` is a UserError.
 */
export async function loadBackend(
  name: string,
  baseDir = process.cwd(),
  timeoutMs?: number,
): Promise<Backend | undefined> {
  if (Object.hasOwn(BACKENDS, name)) return BACKENDS[name];
  if (!isModulePath(name)) return undefined;
  const path = resolve(baseDir, name);
  const known = loaded.get(path);
  if (known) return known;
  const backend = await importBackendModule(path, timeoutMs);
  loaded.set(path, backend);
  return backend;
}

/** Where a configuration finds its backend: the name it gives, and a module's recorded absolute path. */
export interface BackendChoice {
  backend: string;
  backendModule?: string;
}

/**
 * The choice with its module located from `baseDir`, as test.json records it for a replay
 * anywhere: `backendModule` is `backend` resolved, unless it already names a file that
 * exists (a replay of a run made elsewhere). A built-in name is left as it is.
 */
export function locateBackendModule<C extends BackendChoice>(c: C, baseDir = process.cwd()): C {
  if (!isModulePath(c.backend)) return c;
  if (c.backendModule !== undefined && existsSync(c.backendModule)) return c;
  const here = resolve(baseDir, c.backend);
  // A recorded path that is gone: the path as given, from here, if it is there.
  if (c.backendModule !== undefined && !existsSync(here)) return c;
  return { ...c, backendModule: here };
}

/**
 * A configuration's backend, its module located (from `baseDir`) and loaded, with the
 * choice as located; a name neither built in nor a path is a UserError.
 */
export async function loadBackendOf<C extends BackendChoice>(
  c: C,
  baseDir = process.cwd(),
): Promise<{ located: C; backend: Backend }> {
  const located = locateBackendModule(c, baseDir);
  const backend = await loadBackend(located.backendModule ?? located.backend, baseDir);
  return { located, backend: backend ?? knownBackend(located) };
}

export type { Backend, Grant, LockClient, NodeAddress } from './backend.js';
export { backendProblem, isModulePath } from './module.js';
