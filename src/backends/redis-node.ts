/**
 * A Redis server in a node container, and ioredis clients that record truthfully:
 * no offline queue, no resending after a reconnect, no per-request retries, a timeout on
 * every command. (With ioredis's defaults a command is queued while disconnected and
 * replayed later, which both hides anomalies and fakes them.)
 */
import type * as IORedis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';
import type { NodeSpec, PeerNames } from '../cluster/cluster.js';
import { errorMessage } from '../util/errors.js';
import { requirePackage } from '../util/require-package.js';
import { DefiniteFailure, type ShiftTtls } from './backend.js';
import { DATA_DIR, NotTheService, startWithData, waitUntilReady } from './node-start.js';

/** By require: a client worker's start (util/require-package.ts). */
const { Redis: RedisClient } = requirePackage<typeof IORedis>('ioredis');

export const REDIS_PORT = 6379;

/**
 * A Redis node. The lock nodes keep an append-only file fsynced on every write, so a node
 * killed and restarted comes back with its keys, unless the nemesis asked it to lose its
 * data (kill-node with --lose-data leaves /data/.lose-data, and the next start wipes).
 * `exec` keeps redis-server as PID 1, so signals to the container reach it.
 */
export function redisNodeSpec(
  name: string,
  role: 'node' | 'store',
  /** More server arguments; as a function, of the run's peer names (replicaof). */
  extra: string[] | ((peers: PeerNames) => string[]) = [],
  /** Shell lines run before the server at every start, of the run's peer names. */
  prepare: (peers: PeerNames) => string[] = () => [],
): NodeSpec {
  const server = [
    'redis-server',
    '--port',
    String(REDIS_PORT),
    '--bind',
    '0.0.0.0',
    '--protected-mode',
    'no',
    '--save',
    '',
    '--dir',
    DATA_DIR,
    '--appendonly',
    role === 'node' ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--loglevel',
    'notice',
  ];
  return {
    name,
    role,
    port: REDIS_PORT,
    command: (peers) =>
      startWithData([...server, ...(typeof extra === 'function' ? extra(peers) : extra)], prepare(peers)),
    ready: (node) => waitForRedis(node.ip, undefined, node.port),
  };
}

/**
 * A connected client. Without an offline queue a command sent before the connection is up
 * fails at once, so we wait for it here, once, before any request is recorded.
 */
export async function redisClient(ip: string, requestTimeoutMs: number, port = REDIS_PORT): Promise<Redis> {
  return connectRedis({ host: ip, port, ...truthfulOptions(requestTimeoutMs) });
}

/** ioredis options under which a history records what happened: no queue, no resend, no retry. */
export function truthfulOptions(requestTimeoutMs: number): RedisOptions {
  return {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: requestTimeoutMs,
    connectTimeout: Math.max(requestTimeoutMs, 1000),
    enableReadyCheck: false,
    // Reconnecting is fine (it is not a retry of any request); keep it quick.
    retryStrategy: () => 50,
    lazyConnect: true,
  };
}

/** A client with these options, connected (lazyConnect: the connection is made here). */
export async function connectRedis(options: RedisOptions): Promise<Redis> {
  const client = new RedisClient(options);
  // Connection errors surface on the requests that they fail; do not crash on 'error'.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw err;
  }
  return client;
}

/** Turns ioredis's "never sent" errors into DefiniteFailure; leaves the rest indefinite. */
export function classifyRedisError(err: unknown): Error {
  const message = errorMessage(err);
  // ioredis raises these before it writes the command to the socket.
  if (/enableOfflineQueue|Stream isn't writeable/.test(message)) return new DefiniteFailure(message);
  // Refused by the server before the script ran: a replica (READONLY), or a primary
  // without enough good replicas (NOREPLICAS, min-replicas-to-write).
  if (/\b(READONLY|NOREPLICAS)\b/.test(message)) return new DefiniteFailure(message);
  return err instanceof Error ? err : new Error(message);
}

export function waitForRedis(ip: string, deadlineMs = 20_000, port = REDIS_PORT): Promise<void> {
  return waitUntilReady(`redis at ${ip}:${port}`, deadlineMs, 20, async () => {
    const client = new RedisClient({ host: ip, port, ...truthfulOptions(500) });
    // A first byte no RESP reply starts with (an sshd's banner: "Unknown RESP type 83 "S""):
    // another protocol's port. ioredis says so on 'error', then fails the connection as
    // "Connection is closed".
    let notResp: string | undefined;
    client.on('error', (err) => {
      const message = errorMessage(err);
      if (/Unknown RESP type|Protocol error/.test(message))
        notResp = message.split('\n')[0]?.replace(/ Please report this\.$/, '');
    });
    try {
      await client.connect();
      return (await client.ping()) === 'PONG' || undefined;
    } catch (err) {
      if (notResp !== undefined) throw new NotTheService(notResp);
      throw err;
    } finally {
      client.disconnect();
    }
  });
}

/**
 * KEYS none; ARGV[1] shift in ms (positive: the clock jumps forward, TTLs shrink); ARGV[2]
 * the keys' pattern. Keys
 * whose TTL would fall to 0 or below expire now, as they would on a jumped clock.
 */
export const SHIFT_TTLS = `
local shift = tonumber(ARGV[1])
local expired, shifted = 0, 0
for _, key in ipairs(redis.call('KEYS', ARGV[2])) do
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then
    if ttl - shift <= 0 then
      redis.call('DEL', key)
      expired = expired + 1
    else
      redis.call('PEXPIRE', key, ttl - shift)
      shifted = shifted + 1
    end
  end
end
return {expired, shifted}`;

/**
 * A clock jump on a Redis node, applied as a shift of every key's remaining TTL: Debian's
 * redis-server cannot run under libfaketime, and Redis expires keys by wall-clock time, so
 * a jump of J ms forward is exactly "every TTL J ms shorter".
 */
export const shiftRedisTtls: ShiftTtls = async (node, ms) => {
  const client = await redisClient(node.ip, 2000, node.port);
  try {
    // A server the team runs holds more than the run's keys: only those named for the run's lock move.
    const pattern = node.confined ? '*lockchaos*' : '*';
    return (await client.eval(SHIFT_TTLS, 0, ms, pattern)) as [number, number];
  } finally {
    client.disconnect();
  }
};

/**
 * A Redis node's own wall clock (TIME) minus this machine's, in ms: the answer against the
 * middle of its round trip, the shortest of three (the connect is not timed).
 */
export const REDIS_SERVER_TIME = {
  how: 'Redis TIME',
  offsetMs: async (node: { ip: string; port: number }): Promise<number> => {
    const client = await redisClient(node.ip, 2000, node.port);
    try {
      let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
      for (let i = 0; i < 3; i++) {
        // Date.now(), not performance's clock: that one drifts from the wall clock over a long run.
        const t0 = Date.now();
        const [sec, usec] = await client.time();
        const t1 = Date.now();
        const server = Number(sec) * 1000 + Number(usec) / 1000;
        if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: server - (t0 + t1) / 2 };
      }
      return best.offset;
    } finally {
      client.disconnect();
    }
  },
};

/** The clock capability of backends whose lock keys live on Redis nodes. */
export const REDIS_CLOCK = {
  how: "shift every key's remaining TTL by the jump (Redis expires keys by wall-clock time)",
  shift: shiftRedisTtls,
};
