/**
 * Redis behind Sentinel: one primary and two replicas (redis-server, `replicaof` the first)
 * and three Sentinels (Debian's redis-sentinel) that watch the primary and promote a
 * replica when a majority of them cannot reach it. What the runner asks of them: is the
 * group ready (every Sentinel knows the replicas and the other Sentinels), and which node
 * the Sentinels name as primary now.
 */
import type { Redis } from 'ioredis';
import type { NodeHandle, NodeSpec } from '../cluster/cluster.js';
import { DATA_DIR, startWithData, waitAtMost, waitUntilReady } from './node-start.js';
import { REDIS_PORT, redisClient, redisNodeSpec, waitForRedis } from './redis-node.js';

export const SENTINEL_PORT = 26379;
/** The name the Sentinels monitor the primary under. */
export const PRIMARY_NAME = 'lockprimary';
export const SENTINEL_QUORUM = 2;
/** A primary unreachable this long is subjectively down; with a quorum agreeing, failed over. */
export const DOWN_AFTER_MS = 1000;
/** Also the pause between two failovers of the same primary (twice this). */
export const FAILOVER_TIMEOUT_MS = 3000;

/** Where a replica's start writes `replicaof <primary's address>`, included by its server. */
const REPLICA_OF = `${DATA_DIR}/replicaof.conf`;
const NO_SYNC_DELAY = ['--repl-diskless-sync-delay', '0'];
/** Left by a replica's first start: a later start is a restart. */
const STARTED = `${DATA_DIR}/.started`;
/** A shell function printing a peer's address: every node starts at once, and a name resolves once its container is up. */
const RESOLVE = `resolve() { for try in $(seq 1 300); do ip=$(getent hosts "$1" | awk '{ print $1 }'); [ -n "$ip" ] && echo "$ip" && return; sleep 0.1; done; }`;

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
    // A replica names the primary by address, as the Sentinels do: named by host, the
    // Sentinels "correct" it with REPLICAOF <address>, which restarts its first sync. The
    // sync starts at once (no diskless delay): the data are tiny, nothing to batch.
    const args = [...minReplicas, ...NO_SYNC_DELAY];
    const spec =
      name === primary
        ? redisNodeSpec(name, 'node', args)
        : redisNodeSpec(name, 'node', [...args, '--include', REPLICA_OF], (peers) => [
            RESOLVE,
            `primary=$(resolve ${peers.host(primary)})`,
            `printf 'replicaof %s ${REDIS_PORT}\\n' "$primary" > ${REPLICA_OF}`,
            // At the group's first start, the primary's server listening (3 s at most): a
            // replica whose first connection is refused tries again at its next replication
            // cron, a second later, and the primary's container may be up before its server.
            // Not at a restart, which a fault makes: it comes back as a real one would.
            `if [ ! -f ${STARTED} ] && [ "$DATA_WIPED" = 0 ]; then`,
            `  ${waitAtMost(`(exec 3<>/dev/tcp/$primary/${REDIS_PORT}) 2>/dev/null`)}`,
            'fi',
            `touch ${STARTED}`,
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
        startWithData(
          ['redis-sentinel', `${DATA_DIR}/sentinel.conf`],
          sentinelConfig(i + 1, {
            primary: peers.host(primary),
            replicas: Array.from({ length: o.replicas }, (_, r) => peers.host(redisNodeName(r + 2))),
            sentinels: Array.from({ length: o.sentinels }, (_, s) => s + 1)
              .filter((s) => s !== i + 1)
              .map((s) => ({ host: peers.host(sentinelNodeName(s)), id: sentinelId(s) })),
          }),
        ),
      ready: (node, start) => waitForSentinel(node.ip, o.replicas, o.sentinels - 1, start?.restart === false),
    }),
  );
  return [...redis, ...sentinels];
}

/** Sentinel i's run id, fixed so that the other Sentinels' configs can name it in advance. */
const sentinelId = (i: number) => i.toString(16).padStart(40, '0');

interface SentinelPeers {
  primary: string;
  replicas: string[];
  sentinels: { host: string; id: string }[];
}

/**
 * A Sentinel's config, written at its first start only: Sentinel rewrites the file with
 * what it learns (the current primary, the epoch), which a restart must keep. It names the
 * group by address, resolved here, since clients on the host cannot resolve names. The
 * replicas and the other Sentinels are named too (known-replica, known-sentinel with their
 * fixed ids): left to discovery, a Sentinel learns a replica from the primary's INFO, sent
 * every 10 s, and another Sentinel from hello messages, every 2 s, which doubled the
 * group's start.
 */
function sentinelConfig(self: number, peers: SentinelPeers): string[] {
  const conf = `${DATA_DIR}/sentinel.conf`;
  const known = [
    ...peers.replicas.map((host) => `"sentinel known-replica ${PRIMARY_NAME} $(resolve ${host}) ${REDIS_PORT}"`),
    ...peers.sentinels.map(
      (s) => `"sentinel known-sentinel ${PRIMARY_NAME} $(resolve ${s.host}) ${SENTINEL_PORT} ${s.id}"`,
    ),
  ];
  // At the group's first start (not after a wipe), the replicas in sync first (3 s at most):
  // a Sentinel that finds a replica's link to the primary down asks it again a second later.
  const synced = peers.replicas.map(
    (host) =>
      `redis-cli -h "$(resolve ${host})" -p ${REDIS_PORT} info replication 2>/dev/null | grep -q master_link_status:up`,
  );
  return [
    `if [ ! -f ${conf} ]; then`,
    `  ${RESOLVE}`,
    `  [ "$DATA_WIPED" = 1 ] || { ${waitAtMost(`{ ${synced.join(' && ')}; }`)}; }`,
    `  printf '%s\\n' 'port ${SENTINEL_PORT}' 'bind 0.0.0.0' 'protected-mode no' 'sentinel myid ${sentinelId(self)}' \\`,
    `    "sentinel monitor ${PRIMARY_NAME} $(resolve ${peers.primary}) ${REDIS_PORT} ${SENTINEL_QUORUM}" \\`,
    `    'sentinel down-after-milliseconds ${PRIMARY_NAME} ${DOWN_AFTER_MS}' \\`,
    `    'sentinel failover-timeout ${PRIMARY_NAME} ${FAILOVER_TIMEOUT_MS}' \\`,
    `    'sentinel parallel-syncs ${PRIMARY_NAME} 1' \\`,
    ...known.map((line) => `    ${line} \\`),
    `    > ${conf}`,
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
 * A Sentinel is ready when it knows every replica and every other Sentinel and reaches
 * each of them and the primary (no `disconnected` or `s_down` flag, every replica's link to
 * the primary up): before that a failover could not be authorised, and a partition early
 * in the run would show nothing. Knowing alone is not enough, since the config names them.
 *
 * At the group's first start its periods are short meanwhile (STARTUP_PERIODS): a Sentinel
 * retries a link that failed once a ping period (1 s) and asks a replica its state once an
 * info period (10 s), so a Sentinel up before its peers waited a whole period for each link
 * it tried too early (bench:startup: ready 1.1 s after the last container, 1.74x the floor).
 * The periods it had are put back before it is called ready: the run sees Sentinel's own.
 */
function waitForSentinel(
  ip: string,
  replicas: number,
  otherSentinels: number,
  firstStart: boolean,
  deadlineMs = 60_000,
): Promise<void> {
  // Not at a restart a fault makes: a Sentinel that cannot reach the others then would keep
  // the short periods into the run.
  let restore: string[] | undefined = firstStart ? undefined : [];
  return waitUntilReady(`redis sentinel at ${ip}`, deadlineMs, 100, async () => {
    const client = await redisClient(ip, 500, SENTINEL_PORT);
    try {
      restore ??= await shortenPeriods(client);
      const primary = fieldsOf((await client.call('SENTINEL', 'MASTER', PRIMARY_NAME)) as string[]);
      const replicaList = ((await client.call('SENTINEL', 'REPLICAS', PRIMARY_NAME)) as string[][]).map(fieldsOf);
      const sentinelList = ((await client.call('SENTINEL', 'SENTINELS', PRIMARY_NAME)) as string[][]).map(fieldsOf);
      const unreached = [primary, ...replicaList, ...sentinelList]
        .filter((x) => /disconnected|s_down|o_down/.test(x.flags ?? ''))
        .map((x) => `${x.name}: ${x.flags}`);
      const unsynced = replicaList.filter((r) => r['master-link-status'] !== 'ok').map((r) => `${r.name}: link down`);
      const known = { replicas: replicaList.length, sentinels: sentinelList.length };
      if (known.replicas < replicas || known.sentinels < otherSentinels) return `knows ${JSON.stringify(known)}`;
      if (unreached.length + unsynced.length > 0) return `not reached: ${[...unreached, ...unsynced].join(', ')}`;
      if (restore.length > 0) await client.call('SENTINEL', 'DEBUG', ...restore);
      return true;
    } finally {
      client.disconnect();
    }
  });
}

/** Sentinel's periods while the group starts, in ms (SENTINEL DEBUG's names). */
const STARTUP_PERIODS: Record<string, string> = { 'ping-period': '100', 'info-period': '100' };

/**
 * Sets STARTUP_PERIODS with SENTINEL DEBUG (Redis 7.0: set at run time only, never written
 * to the config); answers the names and values they had, to set back (none where the
 * command is unknown: then the Sentinel starts at its own pace).
 */
async function shortenPeriods(client: Redis): Promise<string[]> {
  let current: Record<string, string>;
  try {
    current = fieldsOf((await client.call('SENTINEL', 'DEBUG')) as string[]);
  } catch {
    return [];
  }
  const restore: string[] = [];
  const short: string[] = [];
  for (const [name, value] of Object.entries(STARTUP_PERIODS)) {
    const was = current[name.toUpperCase()];
    if (was === undefined) continue;
    restore.push(name, was);
    short.push(name, value);
  }
  if (short.length > 0) await client.call('SENTINEL', 'DEBUG', ...short);
  return restore;
}

/** A Sentinel's answer about one instance, a flat list of names and values, as a record. */
function fieldsOf(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
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
