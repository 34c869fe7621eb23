/**
 * A user's own backend, loaded from a module (`--backend ./my-lock.js`): a module that
 * exports the Backend interface, as its default export or as `backend`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage, UserError } from '../util/errors.js';
import type { Backend } from './backend.js';

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
  return undefined;
}

/** Imports a backend module by path; a module that fails to load or to fit is one UserError. */
export async function importBackendModule(name: string): Promise<Backend> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(name)).href)) as Record<string, unknown>;
  } catch (err) {
    const why = errorMessage(err).split('\n')[0];
    throw new UserError(`cannot load backend module ${name}: ${why}`);
  }
  const candidate = module.backend ?? module.default;
  const problem = backendProblem(candidate);
  if (problem) {
    throw new UserError(
      `${name} does not implement the backend interface: ${problem} (see README, "Adding a lock backend")`,
    );
  }
  return candidate as Backend;
}
