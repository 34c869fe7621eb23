/**
 * The backends lockchaos knows by name, and a user's own backend loaded from a module
 * (`--backend ./my-lock.js`): a module that exports the Backend interface, as its default
 * export or as `backend`.
 */
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

/** Backends loaded from modules, by the path they were named with. */
const loaded = new Map<string, Backend>();

export function backendByName(name: string): Backend | undefined {
  return Object.hasOwn(BACKENDS, name) ? BACKENDS[name] : loaded.get(name);
}

/**
 * Makes a module backend known under the name it was given (built-in names need nothing).
 * Relative paths are taken from the current folder.
 */
export async function loadBackend(name: string): Promise<Backend | undefined> {
  const known = backendByName(name);
  if (known || !isModulePath(name)) return known;
  const backend = await importBackendModule(name);
  loaded.set(name, backend);
  return backend;
}

export type { Backend, Grant, LockClient, NodeAddress } from './backend.js';
export { backendProblem, isModulePath } from './module.js';
