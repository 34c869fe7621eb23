/**
 * The backends lockchaos knows by name, and a user's own backend loaded from a module
 * (`--backend ./my-lock.js`): a module that exports the Backend interface, as its default
 * export or as `backend`.
 */
import { resolve } from 'node:path';
import type { Backend } from './backend.js';
import { etcdBackend } from './etcd.js';
import { importBackendModule, isModulePath } from './module.js';
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

export type { Backend, Grant, LockClient, NodeAddress } from './backend.js';
export { backendProblem, isModulePath } from './module.js';
