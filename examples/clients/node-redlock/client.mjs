// npm's redlock 4.2.0 (ioredis clients, one a master) behind the lockchaos client protocol.
// Redlock has no fencing token: an ok carries none, only the validity Redlock computed.
import { Redis } from 'ioredis';
import Redlock from 'redlock';
import { fail, ok, serve, unknown } from '../protocol.mjs';

const RETRY_DELAY_MS = 100;
let redlock;
let errors = 0; // connection errors seen (redlock folds them into a lost vote)
const held = new Map();

await serve({
  init({ nodes }) {
    const masters = nodes.map(
      ({ host, port }) => new Redis({ host, port, commandTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => 50 }),
    );
    for (const m of masters) m.on('error', () => {});
    redlock = new Redlock(masters, { retryDelay: RETRY_DELAY_MS, retryJitter: 50 });
    redlock.on('clientError', () => errors++);
    return 'redlock 4.2.0 (ioredis)';
  },
  async acquire({ id, key, ttl_ms, timeout_ms }) {
    const before = errors;
    try {
      // Retries spaced retryDelay apart until about timeout_ms has passed.
      const retryCount = Math.max(1, Math.floor(timeout_ms / RETRY_DELAY_MS));
      const lock = await redlock.lockWithOptions(key, ttl_ms, { retryCount });
      held.set(String(id), lock);
      // redlock's own view: the lease minus the time its votes took and the clock drift.
      return ok({ lease: String(id), validity_ms: Math.max(0, lock.expiration - Date.now()) });
    } catch (err) {
      // No majority. With every master answering, it certainly holds nothing (redlock undid
      // its votes); after an error a SET may stand on a master: unknown.
      return errors > before ? unknown(err) : fail(err);
    }
  },
  async release({ lease }) {
    const lock = held.get(lease);
    held.delete(lease);
    const before = errors;
    try {
      await lock.unlock();
      return ok();
    } catch (err) {
      // Fewer than a majority still had our value: expired, taken by another. Unless a master
      // did not answer, in which case it may still hold our key.
      return errors > before ? unknown(err) : fail(err);
    }
  },
});
