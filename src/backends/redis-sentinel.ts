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
import type { Redis } from 'ioredis';
import { type Backend, type NodeAddress, wholeNumber } from './backend.js';
import { RedisLockClient } from './redis.js';
import { connectRedis, REDIS_CLOCK, truthfulOptions } from './redis-node.js';
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
  return connectRedis({
    ...truthfulOptions(requestTimeoutMs),
    sentinels: sentinels.map((n) => ({ host: n.ip, port: n.port ?? SENTINEL_PORT })),
    name: PRIMARY_NAME,
    ...(Object.keys(natMap).length > 0 ? { natMap } : {}),
    failoverDetector: follow,
    sentinelCommandTimeout: Math.max(requestTimeoutMs, 1000),
    sentinelRetryStrategy: () => 50,
    // Reconnect (1), never resend (2): a demoted primary sends us to the new one.
    reconnectOnError: (err) => (/READONLY/.test(err.message) ? 1 : false),
  });
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
    new RedisLockClient(
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
