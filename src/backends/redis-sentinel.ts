/**
 * redis-sentinel: Redis as most teams run it, a primary with replicas and Sentinels that
 * fail over. Clients find the primary through the Sentinels (ioredis's sentinel support,
 * following `+switch-master`), and take the lock as `redis` does: SET NX PX with a token
 * from INCR in the same script, compare-and-delete release. Replication is asynchronous,
 * so a primary cut off from its replicas and Sentinels while clients still reach it grants
 * locks that the promoted replica never hears of, and the token counter forks with the
 * primaries (Jepsen, "Redis" 2013). Options for the usual mitigations: WAIT after acquire
 * and min-replicas-to-write.
 */
import { Redis } from 'ioredis';
import { monotonicNow, sleep } from '../util/clock.js';
import {
  type AcquireOptions,
  type Backend,
  backoffMs,
  type ClientOptions,
  type Grant,
  type LockClient,
  type NodeAddress,
  wholeNumber,
} from './backend.js';
import { ACQUIRE_WITH_TOKEN, COMPARE_AND_DELETE, newOwner } from './redis.js';
import { classifyRedisError, REDIS_CLOCK } from './redis-node.js';
import { isSentinel, PRIMARY_NAME, SENTINEL_PORT, sentinelGroupSpecs, sentinelPrimary } from './redis-sentinel-node.js';

/** Which clients follow a failover as it happens; the others find out when their primary is demoted. */
const FOLLOW = ['half', 'all', 'none'] as const;

/**
 * Whether this client subscribes to the Sentinels' `+switch-master` (ioredis's
 * failoverDetector). In a real fleet clients learn of a failover at different times (some
 * have no detector, some lose the message while reconnecting to a Sentinel): 'half' makes
 * the even-numbered clients follow at once and the others stay with their primary until it
 * answers READONLY, which is what lets both primaries grant (Jepsen's 2013 Redis finding).
 */
function followsFailover(follow: string | undefined, clientId: string): boolean {
  if (follow === 'all') return true;
  if (follow === 'none') return false;
  return Number(clientId.match(/\d+$/)?.[0] ?? 0) % 2 === 0;
}

/**
 * A client of the Sentinel group, recording truthfully as redisClient does: no offline
 * queue, no resending. On a READONLY answer (its primary was demoted), and on
 * `+switch-master` when it follows failovers, it reconnects, asking the Sentinels for the
 * primary again.
 */
async function sentinelClient(nodes: NodeAddress[], requestTimeoutMs: number, follow: boolean): Promise<Redis> {
  const sentinels = nodes.filter((n) => isSentinel(n.name));
  // Behind proxies, the addresses the Sentinels name are mapped to this client's proxies.
  const natMap = Object.fromEntries(
    nodes.flatMap((n) => (n.direct ? [[`${n.direct.ip}:${n.direct.port}`, { host: n.ip, port: n.port ?? 0 }]] : [])),
  );
  const client = new Redis({
    sentinels: sentinels.map((n) => ({ host: n.ip, port: n.port ?? SENTINEL_PORT })),
    name: PRIMARY_NAME,
    ...(Object.keys(natMap).length > 0 ? { natMap } : {}),
    failoverDetector: follow,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: requestTimeoutMs,
    connectTimeout: Math.max(requestTimeoutMs, 1000),
    sentinelCommandTimeout: Math.max(requestTimeoutMs, 1000),
    enableReadyCheck: false,
    retryStrategy: () => 50,
    sentinelRetryStrategy: () => 50,
    reconnectOnError: (err) => (/READONLY/.test(err.message) ? 1 : false),
    lazyConnect: true,
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw err;
  }
  return client;
}

class SentinelLockClient implements LockClient {
  constructor(
    private readonly redis: Redis,
    private readonly opts: ClientOptions,
    /** Replicas a grant must reach (WAIT) before it counts; 0: do not wait. */
    private readonly waitReplicas: number,
  ) {}

  async acquire(lock: string, { ttlMs, timeoutMs }: AcquireOptions): Promise<Grant | null> {
    const started = monotonicNow();
    for (let attempt = 0; ; attempt++) {
      const owner = newOwner(this.opts.clientId);
      const asked = monotonicNow();
      let token: number | null;
      try {
        token = (await this.redis.eval(ACQUIRE_WITH_TOKEN, 2, lock, `${lock}:token`, owner, ttlMs)) as number | null;
        if (token !== null && this.waitReplicas > 0) {
          const acked = (await this.redis.wait(this.waitReplicas, Math.max(1, Math.round(ttlMs / 4)))) as number;
          if (acked < this.waitReplicas) {
            // Not on enough replicas: a failover could lose it. Give it back and try again.
            await this.redis.eval(COMPARE_AND_DELETE, 1, lock, owner);
            token = null;
          }
        }
      } catch (err) {
        throw classifyRedisError(err);
      }
      if (token !== null) {
        const elapsedMs = Number(monotonicNow() - asked) / 1e6;
        return { lock, owner, validityMs: ttlMs - elapsedMs, token: Number(token) };
      }
      const waitMs = backoffMs(attempt, this.opts.rng);
      if (Number(monotonicNow() - started) / 1e6 + waitMs > timeoutMs) return null;
      await sleep(waitMs);
    }
  }

  async release(grant: Grant): Promise<boolean> {
    try {
      return (await this.redis.eval(COMPARE_AND_DELETE, 1, grant.lock, grant.owner)) === 1;
    } catch (err) {
      throw classifyRedisError(err);
    }
  }

  async close() {
    this.redis.disconnect();
  }
}

export const redisSentinelBackend: Backend = {
  name: 'redis-sentinel',
  description:
    'Redis primary + 2 replicas + 3 Sentinels: clients find the primary through the Sentinels; SET NX PX, token from INCR on the primary',
  fencing: { supported: true },
  capabilities: { clock: { ...REDIS_CLOCK, nodes: (name) => !isSentinel(name) } },
  options: {
    wait: {
      what: 'replicas an acquire must reach (WAIT) before it is granted, 0 = do not wait',
      default: '0',
      check: wholeNumber,
    },
    'follow-failover': {
      what: 'which clients subscribe to +switch-master and move at once: half (the even ones), all, none; the others move when their primary answers READONLY',
      default: 'half',
      check: (v) =>
        FOLLOW.includes(v as (typeof FOLLOW)[number]) ? undefined : `takes ${FOLLOW.join(', ')}, got '${v}'`,
    },
    'min-replicas': {
      what: 'min-replicas-to-write on every Redis node (max lag 1 s), 0 = off',
      default: '0',
      check: wholeNumber,
    },
  },
  nodeSpecs: ({ settings = {} }) =>
    sentinelGroupSpecs({ replicas: 2, sentinels: 3, minReplicas: Number(settings['min-replicas'] ?? 0) }),
  client: async (nodes, opts) =>
    new SentinelLockClient(
      await sentinelClient(
        nodes,
        opts.requestTimeoutMs,
        followsFailover(opts.backend?.settings?.['follow-failover'], opts.clientId),
      ),
      opts,
      Number(opts.backend?.settings?.wait ?? 0),
    ),
  leader: (nodes) => sentinelPrimary(nodes),
};
