/**
 * One backend by name, importing only its own module: what a client worker process needs.
 * The registry (index.ts) imports every backend and its client library, about 0.7 s of CPU
 * per process, which a run of 32 clients pays 32 times.
 *
 * BUILT_IN_IMPORTS is the list of the built-in backends: the registry imports each of it.
 */
import type { Backend } from './backend.js';
import { importBackendModule, isModulePath } from './module.js';

export const BUILT_IN_IMPORTS: Record<string, () => Promise<Backend>> = {
  redis: async () => (await import('./redis.js')).redisBackend,
  redlock: async () => (await import('./redlock.js')).redlockBackend,
  etcd: async () => (await import('./etcd.js')).etcdBackend,
  zookeeper: async () => (await import('./zookeeper.js')).zookeeperBackend,
  'redis-sentinel': async () => (await import('./redis-sentinel.js')).redisSentinelBackend,
  postgres: async () => (await import('./postgres.js')).postgresBackend,
};

/** The backend of that name (built-in, or a module's path); undefined for an unknown name. */
export async function importBackend(name: string): Promise<Backend | undefined> {
  if (Object.hasOwn(BUILT_IN_IMPORTS, name)) return (BUILT_IN_IMPORTS[name] as () => Promise<Backend>)();
  return isModulePath(name) ? importBackendModule(name) : undefined;
}
