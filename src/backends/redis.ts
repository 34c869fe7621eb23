/**
 * redis: one Redis instance. Acquire is `SET key owner NX PX ttl`; release is
 * compare-and-delete. The fencing token is a counter incremented in the same script as
 * the SET, so tokens grow with grants (but are lost if the node restarts empty).
 */

import type { Redis } from 'ioredis';
import { monotonicNow, sleep } from '../util/monotonic-clock.js';
import {
  type AcquireOptions,
  type Backend,
  backoffMs,
  type ClientOptions,
  type Grant,
  type LockClient,
  type ReleaseResult,
} from './backend.js';
import { newOwner } from './owner.js';
import { classifyRedisError, REDIS_CLOCK, REDIS_SERVER_TIME, redisClient, redisNodeSpec } from './redis-node.js';

/**
 * How long a lock's token counter outlives its last grant. On a Redis the team runs (a
 * target) nothing of the run's is to stay: the counter goes a day after the run's last
 * grant, long past any gap between grants of one run (whose tokens must keep growing).
 */
export const TOKEN_COUNTER_TTL_MS = 24 * 60 * 60 * 1000;

/** KEYS[1] lock, KEYS[2] token counter; ARGV[1] owner, ARGV[2] ttl ms, ARGV[3] the counter's ttl ms. Token or nil. */
export const ACQUIRE_WITH_TOKEN = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local token = redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return token
end
return false`;

/** KEYS[1] lock; ARGV[1] owner. 1 if this owner held it and it is now deleted, else 0. */
export const COMPARE_AND_DELETE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * The lock on one Redis (a single node, or whichever primary a Sentinel client is on).
 * With waitReplicas, a grant counts only once that many replicas acknowledged it (WAIT
 * within a quarter TTL); one they did not is given back and the acquire goes on.
 */
export class RedisLockClient implements LockClient {
  constructor(
    private readonly redis: Redis,
    private readonly opts: ClientOptions,
    private readonly waitReplicas = 0,
  ) {}

  async acquire(lock: string, { ttlMs, timeoutMs }: AcquireOptions): Promise<Grant | null> {
    const started = monotonicNow();
    const owner = newOwner(this.opts.clientId);
    for (let attempt = 0; ; attempt++) {
      const asked = monotonicNow();
      let token: number | null;
      try {
        token = (await this.redis.eval(
          ACQUIRE_WITH_TOKEN,
          2,
          lock,
          `${lock}:token`,
          owner,
          ttlMs,
          TOKEN_COUNTER_TTL_MS,
        )) as number | null;
        if (token !== null && this.waitReplicas > 0) {
          const acked = (await this.redis.wait(this.waitReplicas, Math.max(1, Math.round(ttlMs / 4)))) as number;
          if (acked < this.waitReplicas) {
            // Not on enough replicas: a failover could lose it.
            await this.redis.eval(COMPARE_AND_DELETE, 1, lock, owner);
            token = null;
          }
        }
      } catch (err) {
        throw classifyRedisError(err);
      }
      if (token !== null) {
        const elapsedMs = Number(monotonicNow() - asked) / 1e6;
        // A lease that ran out before the answer came has 0 ms left, not less (grantProblem).
        return { lock, owner, validityMs: Math.max(0, ttlMs - elapsedMs), token: Number(token) };
      }
      const waitMs = backoffMs(attempt, this.opts.rng, this.opts.backoffJitterMs);
      if (Number(monotonicNow() - started) / 1e6 + waitMs > timeoutMs) return null;
      await sleep(waitMs);
    }
  }

  async release(grant: Grant): Promise<ReleaseResult> {
    try {
      const deleted = (await this.redis.eval(COMPARE_AND_DELETE, 1, grant.lock, grant.owner)) === 1;
      return (
        deleted || {
          released: false,
          reason: 'compare-and-delete: the key no longer holds this owner (expired or taken)',
        }
      );
    } catch (err) {
      throw classifyRedisError(err);
    }
  }

  async close() {
    this.redis.disconnect();
  }
}

export const redisBackend: Backend = {
  name: 'redis',
  description: 'one Redis instance: SET NX PX, compare-and-delete release, token from a counter in the same script',
  fencing: { supported: true },
  capabilities: { clock: REDIS_CLOCK, serverTime: REDIS_SERVER_TIME },
  nodeSpecs: () => [redisNodeSpec('redis-1', 'node')],
  client: async (nodes, opts) => {
    const [node] = nodes;
    if (!node) throw new Error('redis backend needs one node');
    return new RedisLockClient(await redisClient(node.ip, opts.requestTimeoutMs, node.port), opts);
  },
};
