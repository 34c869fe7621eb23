// A lock backend of your own, in one file: `lockchaos run --backend ./examples/backends/counter-token-redis.mjs`.
//
// This one is deliberately broken, to show what the checkers catch: the lock itself is the
// usual Redis SET NX PX, but each client hands out fencing tokens from its own counter,
// which is not a linearizable source. Two clients can hold tokens that do not grow with the
// order of grants, so with --fencing on the store lets stale writes in (the fencing checker
// says so), and tokens regress between grants.
import { DefiniteFailure, backoffMs, redisClient, redisNodeSpec } from 'lockchaos';

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** @type {import('lockchaos').Backend} */
export const backend = {
  name: 'counter-token-redis',
  description: 'Redis SET NX PX with tokens from a per-client counter (not linearizable: a bad idea)',
  fencing: { supported: true },

  // The containers: one Redis node, started from the node image (PID 1 is redis-server).
  nodeSpecs: () => [redisNodeSpec('redis-1', 'node')],

  // A client, inside a worker process. Throw DefiniteFailure only when a request
  // certainly had no effect; anything else thrown is recorded as `info` (unknown).
  client: async ([node], opts) => {
    const redis = await redisClient(node.ip, opts.requestTimeoutMs, node.port);
    let counter = 0;
    let grants = 0;
    return {
      async acquire(lock, { ttlMs, timeoutMs }) {
        const owner = `${opts.clientId}:${process.pid}:${++grants}`;
        const started = Date.now();
        for (let attempt = 0; ; attempt++) {
          const asked = Date.now();
          if ((await redis.set(lock, owner, 'PX', ttlMs, 'NX')) === 'OK') {
            counter += 1; // the broken part: a token only this client has seen
            return { lock, owner, validityMs: ttlMs - (Date.now() - asked), token: counter };
          }
          const wait = backoffMs(attempt, opts.rng);
          if (Date.now() - started + wait > timeoutMs) return null;
          await new Promise((r) => setTimeout(r, wait));
        }
      },
      async release(grant) {
        if (redis.status !== 'ready') throw new DefiniteFailure('not connected: release not sent');
        return (await redis.eval(RELEASE, 1, grant.lock, grant.owner)) === 1;
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
