/**
 * The data store the lock protects: a separate Redis node, not faulted by default. It holds
 * one register (a JSON value) per key.
 *
 * Fenced mode: every access carries the client's fencing token, and the store, atomically
 * in one script, refuses a token older than the newest it has seen and otherwise records
 * it. Reads carry the token too, not only writes: the holder does read-modify-write, and a
 * stale holder whose write lands after the new holder's read (but before its write) would
 * otherwise be accepted and then silently overwritten — an acknowledged update lost with
 * fencing "on". Unfenced mode applies every access.
 */
import type { Redis } from 'ioredis';
import { classifyRedisError, redisClient, redisNodeSpec } from '../backends/redis-node.js';
import type { NodeSpec } from '../cluster/cluster.js';

export const DATASTORE_NODE = 'store';

export function dataStoreNodeSpec(): NodeSpec {
  return redisNodeSpec(DATASTORE_NODE, 'store');
}

/** KEYS[1] value, KEYS[2] newest token seen; ARGV[1] token. {1, value} or {0} if stale. */
const FENCED_READ = `
local newest = tonumber(redis.call('GET', KEYS[2]) or '-1')
if tonumber(ARGV[1]) < newest then return {0} end
redis.call('SET', KEYS[2], ARGV[1])
return {1, redis.call('GET', KEYS[1])}`;

/** KEYS[1] value, KEYS[2] newest token seen; ARGV[1] token, ARGV[2] value. 1, or 0 if stale. */
const FENCED_WRITE = `
local newest = tonumber(redis.call('GET', KEYS[2]) or '-1')
if tonumber(ARGV[1]) < newest then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

export type StoreRead = { ok: true; value: unknown } | { ok: false; rejected: true };

export class DataStore {
  private constructor(private readonly redis: Redis) {}

  static async connect(ip: string, requestTimeoutMs: number, port?: number): Promise<DataStore> {
    return new DataStore(await redisClient(ip, requestTimeoutMs, port));
  }

  private async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      throw classifyRedisError(err);
    }
  }

  /** The register's value (null when never written); with a token, rejected if stale. */
  async read(key: string, token?: number): Promise<StoreRead> {
    if (token === undefined) {
      const raw = await this.call(() => this.redis.get(key));
      return { ok: true, value: raw === null ? null : JSON.parse(raw) };
    }
    const reply = (await this.call(() => this.redis.eval(FENCED_READ, 2, key, `${key}:token`, token))) as [
      number,
      string | null,
    ];
    if (reply[0] === 0) return { ok: false, rejected: true };
    return { ok: true, value: reply[1] == null ? null : JSON.parse(reply[1]) };
  }

  /** True if applied; false if rejected for a stale token. */
  async write(key: string, value: unknown, token?: number): Promise<boolean> {
    const raw = JSON.stringify(value);
    if (token === undefined) {
      await this.call(() => this.redis.set(key, raw));
      return true;
    }
    return (await this.call(() => this.redis.eval(FENCED_WRITE, 2, key, `${key}:token`, token, raw))) === 1;
  }

  async close() {
    this.redis.disconnect();
  }
}
