/**
 * A Redis server in a node container, and ioredis clients that record truthfully:
 * no offline queue, no resending after a reconnect, no per-request retries, a timeout on
 * every command. (With ioredis's defaults a command is queued while disconnected and
 * replayed later, which both hides anomalies and fakes them.)
 */
import { Redis } from 'ioredis';
import type { NodeSpec } from '../cluster/cluster.js';
import { errorMessage } from '../util/errors.js';
import { DefiniteFailure } from './backend.js';
import { DATA_DIR, startWithData, waitUntilReady } from './node-start.js';

export const REDIS_PORT = 6379;

/**
 * A Redis node. The lock nodes keep an append-only file fsynced on every write, so a node
 * killed and restarted comes back with its keys, unless the nemesis asked it to lose its
 * data (kill-node with --lose-data leaves /data/.lose-data, and the next start wipes).
 * `exec` keeps redis-server as PID 1, so signals to the container reach it.
 */
export function redisNodeSpec(name: string, role: 'node' | 'store'): NodeSpec {
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
    command: startWithData(server),
    ready: (node) => waitForRedis(node.ip),
  };
}

/**
 * A connected client. Without an offline queue a command sent before the connection is up
 * fails at once, so we wait for it here, once, before any request is recorded.
 */
export async function redisClient(ip: string, requestTimeoutMs: number, port = REDIS_PORT): Promise<Redis> {
  const client = new Redis({
    host: ip,
    port,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: requestTimeoutMs,
    connectTimeout: Math.max(requestTimeoutMs, 1000),
    enableReadyCheck: false,
    // Reconnecting is fine (it is not a retry of any request); keep it quick.
    retryStrategy: () => 50,
    lazyConnect: true,
  });
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
  return err instanceof Error ? err : new Error(message);
}

export function waitForRedis(ip: string, deadlineMs = 20_000): Promise<void> {
  return waitUntilReady(`redis at ${ip}`, deadlineMs, 20, async () => {
    const client = await redisClient(ip, 500);
    try {
      return (await client.ping()) === 'PONG' || undefined;
    } finally {
      client.disconnect();
    }
  });
}
