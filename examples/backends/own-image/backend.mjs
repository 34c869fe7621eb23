// A lock backend that brings its own image, in a project of its own that has lockchaos as
// a (dev) dependency:
//
//   cp -r node_modules/lockchaos/examples/backends/own-image lock
//   npx lockchaos run --backend ./lock/backend.mjs --nemesis client-pause,partition:clients --fencing on
//
// The image is built from the Dockerfile beside this module when it is missing. The node
// spec names the image and relies on its own default command (no `command`), and
// readiness is the ready-made Redis check on the image's port. The lock: SET NX PX with a
// token from INCR in the same script (a linearizable counter on the one node).
import { backoffMs, classifyRedisError, redisClient, waitForRedis } from 'lockchaos';

const PORT = 7000;
const ACQUIRE = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end return false`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** @type {import('lockchaos').Backend} */
export const backend = {
  name: 'my-lock-service',
  description: 'Redis on port 7000 in its own image (my-lock-service:1), token from INCR',
  fencing: { supported: true },
  // None declared, so the clock faults do not apply (they need `capabilities.clock`: how a
  // node's clock moving reaches this service); node pauses, kills, partitions, loss,
  // latency and every client fault do.
  capabilities: {},

  nodeSpecs: () => [
    {
      name: 'kv-1',
      role: 'node',
      image: 'my-lock-service:1',
      port: PORT,
      ready: (node) => waitForRedis(node.ip, 20_000, PORT),
    },
  ],

  client: async ([node], opts) => {
    const redis = await redisClient(node.ip, opts.requestTimeoutMs, node.port ?? PORT);
    let grants = 0;
    return {
      async acquire(lock, { ttlMs, timeoutMs }) {
        const owner = `${opts.clientId}:${process.pid}:${++grants}`;
        const started = Date.now();
        for (let attempt = 0; ; attempt++) {
          const asked = Date.now();
          let token;
          try {
            token = await redis.eval(ACQUIRE, 2, lock, `${lock}:token`, owner, ttlMs);
          } catch (err) {
            throw classifyRedisError(err); // "never sent" is a definite failure, the rest info
          }
          if (token !== null) return { lock, owner, validityMs: ttlMs - (Date.now() - asked), token: Number(token) };
          // Seeded, with the run's --backoff-jitter: a replay waits the same.
          const wait = backoffMs(attempt, opts.rng, opts.backoffJitterMs);
          if (Date.now() - started + wait > timeoutMs) return null;
          await new Promise((r) => setTimeout(r, wait));
        }
      },
      async release(grant) {
        try {
          return (await redis.eval(RELEASE, 1, grant.lock, grant.owner)) === 1;
        } catch (err) {
          throw classifyRedisError(err);
        }
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
