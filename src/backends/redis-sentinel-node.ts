/**
 * Redis behind Sentinel: one primary and two replicas (redis-server, `replicaof` the first)
 * and three Sentinels (Debian's redis-sentinel) that watch the primary and promote a
 * replica when a majority of them cannot reach it. What the runner asks of them: is the
 * group ready (every Sentinel knows the replicas and the other Sentinels), and which node
 * the Sentinels name as primary now.
 */
import type { NodeHandle, NodeSpec } from '../cluster/cluster.js';
import { DATA_DIR, startWithData, waitUntilReady } from './node-start.js';
import { REDIS_PORT, redisClient, redisNodeSpec, waitForRedis } from './redis-node.js';

export const SENTINEL_PORT = 26379;
/** The name the Sentinels monitor the primary under. */
export const PRIMARY_NAME = 'lockprimary';
export const SENTINEL_QUORUM = 2;
/** A primary unreachable this long is subjectively down; with a quorum agreeing, failed over. */
export const DOWN_AFTER_MS = 1000;
/** Also the pause between two failovers of the same primary (twice this). */
export const FAILOVER_TIMEOUT_MS = 3000;

export const redisNodeName = (i: number) => `redis-${i}`;
export const sentinelNodeName = (i: number) => `sentinel-${i}`;
export const isSentinel = (name: string) => name.startsWith('sentinel-');

export interface SentinelGroupOptions {
  replicas: number;
  sentinels: number;
  /** min-replicas-to-write on every Redis node (0: off), with a max lag of 1 s. */
  minReplicas: number;
}

export function sentinelGroupSpecs(o: SentinelGroupOptions): NodeSpec[] {
  const primary = redisNodeName(1);
  const minReplicas =
    o.minReplicas > 0 ? ['--min-replicas-to-write', String(o.minReplicas), '--min-replicas-max-lag', '1'] : [];
  const redis = Array.from({ length: o.replicas + 1 }, (_, i) => {
    const name = redisNodeName(i + 1);
    const spec = redisNodeSpec(name, 'node', (peers) => [
      ...minReplicas,
      ...(name === primary ? [] : ['--replicaof', peers.host(primary), String(REDIS_PORT)]),
    ]);
    return {
      ...spec,
      ready: (node: NodeHandle) => (name === primary ? waitForRedis(node.ip) : waitForReplica(node.ip)),
    };
  });
  const sentinels = Array.from(
    { length: o.sentinels },
    (_, i): NodeSpec => ({
      name: sentinelNodeName(i + 1),
      role: 'node',
      port: SENTINEL_PORT,
      command: (peers) =>
        startWithData(['redis-sentinel', `${DATA_DIR}/sentinel.conf`], sentinelConfig(peers.host(primary))),
      ready: (node) => waitForSentinel(node.ip, o.replicas, o.sentinels - 1),
    }),
  );
  return [...redis, ...sentinels];
}

/**
 * A Sentinel's config, written at its first start only: Sentinel rewrites the file with
 * what it learns (the current primary, the epoch), which a restart must keep. It monitors
 * the primary by address, resolved here, since clients on the host cannot resolve names.
 */
function sentinelConfig(primaryHost: string): string[] {
  const conf = `${DATA_DIR}/sentinel.conf`;
  return [
    `if [ ! -f ${conf} ]; then`,
    '  ip=""',
    `  for try in $(seq 1 300); do ip=$(getent hosts ${primaryHost} | awk '{ print $1 }'); [ -n "$ip" ] && break; sleep 0.1; done`,
    `  printf '%s\\n' 'port ${SENTINEL_PORT}' 'bind 0.0.0.0' 'protected-mode no' \\`,
    `    "sentinel monitor ${PRIMARY_NAME} $ip ${REDIS_PORT} ${SENTINEL_QUORUM}" \\`,
    `    'sentinel down-after-milliseconds ${PRIMARY_NAME} ${DOWN_AFTER_MS}' \\`,
    `    'sentinel failover-timeout ${PRIMARY_NAME} ${FAILOVER_TIMEOUT_MS}' \\`,
    `    'sentinel parallel-syncs ${PRIMARY_NAME} 1' > ${conf}`,
    'fi',
  ];
}

/** A replica is ready when its link to the primary is up (it has the primary's data). */
function waitForReplica(ip: string, deadlineMs = 30_000): Promise<void> {
  return waitUntilReady(`redis replica at ${ip}`, deadlineMs, 50, async () => {
    const client = await redisClient(ip, 500);
    try {
      const info = await client.info('replication');
      return /master_link_status:up/.test(info) || `replication: ${info.match(/master_link_status:\w+/)?.[0]}`;
    } finally {
      client.disconnect();
    }
  });
}

/**
 * A Sentinel is ready when it knows every replica and every other Sentinel: before that a
 * failover could not be authorised, and a partition early in the run would show nothing.
 */
function waitForSentinel(ip: string, replicas: number, otherSentinels: number, deadlineMs = 60_000): Promise<void> {
  return waitUntilReady(`redis sentinel at ${ip}`, deadlineMs, 100, async () => {
    const client = await redisClient(ip, 500, SENTINEL_PORT);
    try {
      const fields = (await client.call('SENTINEL', 'MASTER', PRIMARY_NAME)) as string[];
      const field = (k: string) => Number(fields[fields.indexOf(k) + 1]);
      const known = { replicas: field('num-slaves'), sentinels: field('num-other-sentinels') };
      return (known.replicas >= replicas && known.sentinels >= otherSentinels) || `knows ${JSON.stringify(known)}`;
    } finally {
      client.disconnect();
    }
  });
}

/** The Redis node the reachable Sentinels name as primary (the most named), by node name. */
export async function sentinelPrimary(nodes: NodeHandle[], timeoutMs = 1000): Promise<string | undefined> {
  const answers = await Promise.all(
    nodes
      .filter((n) => isSentinel(n.name))
      .map(async (n) => {
        try {
          const client = await redisClient(n.ip, timeoutMs, SENTINEL_PORT);
          try {
            const [ip] = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', PRIMARY_NAME)) as [string, string];
            return nodes.find((x) => x.ip === ip && !isSentinel(x.name))?.name;
          } finally {
            client.disconnect();
          }
        } catch {
          return undefined;
        }
      }),
  );
  const votes = new Map<string, number>();
  for (const a of answers) if (a) votes.set(a, (votes.get(a) ?? 0) + 1);
  return [...votes].sort((a, b) => b[1] - a[1])[0]?.[0];
}
