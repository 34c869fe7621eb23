/** The backends lockchaos knows by name. */
import type { Backend } from './backend.js';
import { etcdBackend } from './etcd.js';
import { redisBackend } from './redis.js';
import { redlockBackend } from './redlock.js';
import { zookeeperBackend } from './zookeeper.js';

export const BACKENDS: Record<string, Backend> = {
  redis: redisBackend,
  redlock: redlockBackend,
  etcd: etcdBackend,
  zookeeper: zookeeperBackend,
};

export function backendByName(name: string): Backend | undefined {
  return Object.hasOwn(BACKENDS, name) ? BACKENDS[name] : undefined;
}

export type { Backend, Grant, LockClient, NodeAddress } from './backend.js';
