// npm's redis-semaphore 5.8.0 Mutex (over ioredis) behind the lockchaos client protocol.
// Its default refresh stays on: every 0.8 x lockTimeout the Mutex extends its key. That is
// the library's answer to long holds, and a GC pause stops the refresh timer with the rest.
// It has no fencing token: an ok carries none.
import { Redis } from 'ioredis';
import { Mutex, TimeoutError } from 'redis-semaphore';
import { fail, ok, serve, unknown } from '../protocol.mjs';

let redis;
const held = new Map(); // lease -> { mutex, lost }

await serve({
  init({ nodes: [{ host, port }] }) {
    redis = new Redis({ host, port, commandTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    redis.on('error', () => {});
    return 'redis-semaphore 5.8.0 Mutex (ioredis)';
  },
  async acquire({ id, key, ttl_ms, timeout_ms }) {
    // Grants the harness abandoned (a cycle that ended unknown; docs/client-protocol.md):
    // the refresh timer would extend them for ever, and every other client would wait
    // behind them. Stopped, not released: the key expires, as a crashed client's would.
    for (const abandoned of held.values()) abandoned.mutex.stopRefresh();
    held.clear();
    const entry = { lost: false };
    // The default onLockLost throws from the refresh timer, which would crash the program:
    // note the loss instead, to answer the release truthfully.
    entry.mutex = new Mutex(redis, key, {
      lockTimeout: ttl_ms,
      acquireTimeout: timeout_ms,
      onLockLost: () => {
        entry.lost = true;
      },
    });
    try {
      await entry.mutex.acquire();
      held.set(String(id), entry);
      return ok({ lease: String(id) });
    } catch (err) {
      // Its timeout: every SET NX it sent was refused. Anything else (a dropped connection,
      // a command timeout) may have followed a SET that was applied.
      return err instanceof TimeoutError ? fail(err) : unknown(err);
    }
  },
  async release({ lease }) {
    const entry = held.get(lease);
    if (!entry) return fail('not held: the grant was abandoned');
    held.delete(lease);
    // A refresh found the key gone or another's: the library said the lock was lost.
    if (entry.lost) return fail('lock lost (a refresh found the key gone)');
    try {
      // release() deletes the key only if it still holds our identifier, and does not say
      // whether it did: ok here means the library reported nothing wrong.
      await entry.mutex.release();
      return ok();
    } catch (err) {
      return unknown(err);
    }
  },
});
