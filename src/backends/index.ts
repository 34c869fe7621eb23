/**
 * The backends lockchaos knows by name, and a user's own backend loaded from a module
 * (`--backend ./my-lock.js`): a module that exports the Backend interface, as its default
 * export or as `backend`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError } from '../cli/errors.js';
import { errorMessage } from '../util/errors.js';
import type { Backend } from './backend.js';
import { etcdBackend } from './etcd.js';
import { postgresBackend } from './postgres.js';
import { redisBackend } from './redis.js';
import { redisSentinelBackend } from './redis-sentinel.js';
import { redlockBackend } from './redlock.js';
import { zookeeperBackend } from './zookeeper.js';

export const BACKENDS: Record<string, Backend> = {
  redis: redisBackend,
  redlock: redlockBackend,
  etcd: etcdBackend,
  zookeeper: zookeeperBackend,
  'redis-sentinel': redisSentinelBackend,
  postgres: postgresBackend,
};

/** Backends loaded from modules, by the path they were named with. */
const loaded = new Map<string, Backend>();

/** A --backend value that names a module rather than a built-in backend. */
export const isModulePath = (name: string) => /[/\\]/.test(name) || /\.(m?js|cjs)$/.test(name);

export function backendByName(name: string): Backend | undefined {
  return Object.hasOwn(BACKENDS, name) ? BACKENDS[name] : loaded.get(name);
}

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

/**
 * Makes a module backend known under the name it was given (built-in names need nothing).
 * Relative paths are taken from the current folder.
 */
export async function loadBackend(name: string): Promise<Backend | undefined> {
  const known = backendByName(name);
  if (known || !isModulePath(name)) return known;
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
  loaded.set(name, candidate as Backend);
  return candidate as Backend;
}

export type { Backend, Grant, LockClient, NodeAddress } from './backend.js';
