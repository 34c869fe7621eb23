/**
 * redlock: N independent Redis masters (default 5) and the published algorithm. Ask every
 * master for `SET key owner NX PX ttl` with a short per-node timeout; the lock is held when
 * a majority (floor(N/2)+1) said yes and the time spent is less than the TTL, for
 * validity = ttl - elapsed - drift, drift = 1% of ttl + 2 ms. Otherwise unlock everywhere
 * and retry after a backoff. There is no fencing token: that is the point of testing it.
 */
import type { Redis } from 'ioredis';
import { monotonicNow, sleep } from '../util/monotonic-clock.js';
import { openAll } from '../util/open-all.js';
import {
  type AcquireOptions,
  type Backend,
  backoffMs,
  type ClientOptions,
  type Grant,
  type LockClient,
  type ReleaseResult,
} from './backend.js';
import { newOwner } from './owner.js';
import { COMPARE_AND_DELETE } from './redis.js';
import { REDIS_CLOCK, REDIS_SERVER_TIME, redisClient, redisNodeSpec } from './redis-node.js';

/** Votes that are a bare majority of n masters. */
const majority = (n: number) => Math.floor(n / 2) + 1;

export const DEFAULT_MASTERS = 5;

/** The clock drift allowance of the Redlock description. */
export const driftMs = (ttlMs: number) => Math.floor(ttlMs * 0.01) + 2;

type Vote = 'yes' | 'no' | 'unknown';

/** Resolves to the promise's value, or to `fallback` after ms (the request may still land). */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(fallback), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      () => {
        clearTimeout(t);
        resolve(fallback);
      },
    );
  });
}

class RedlockClient implements LockClient {
  private readonly quorum: number;
  constructor(
    private readonly masters: Redis[],
    private readonly opts: ClientOptions,
  ) {
    this.quorum = majority(masters.length);
  }

  /** Short per-node timeout, so a dead master costs little of the lease. */
  private nodeTimeoutMs(ttlMs: number) {
    return Math.min(this.opts.requestTimeoutMs, Math.max(50, ttlMs / 10));
  }

  private async lockAll(lock: string, owner: string, ttlMs: number): Promise<Vote[]> {
    const timeout = this.nodeTimeoutMs(ttlMs);
    return Promise.all(
      this.masters.map((m) =>
        within<Vote>(
          m.set(lock, owner, 'PX', ttlMs, 'NX').then((r) => (r === 'OK' ? 'yes' : 'no')),
          timeout,
          'unknown',
        ),
      ),
    );
  }

  private async unlockAll(lock: string, owner: string, timeoutMs: number): Promise<Vote[]> {
    return Promise.all(
      this.masters.map((m) =>
        within<Vote>(
          m.eval(COMPARE_AND_DELETE, 1, lock, owner).then((r) => (r === 1 ? 'yes' : 'no')),
          timeoutMs,
          'unknown',
        ),
      ),
    );
  }

  async acquire(lock: string, { ttlMs, timeoutMs }: AcquireOptions): Promise<Grant | null> {
    // Elapsed time is measured on the client's own clock, as a Redlock client does: a
    // step of that clock (the client-clock fault) fools the check.
    const now = this.opts.clock ?? monotonicNow;
    const started = monotonicNow();
    for (let attempt = 0; ; attempt++) {
      const owner = newOwner(this.opts.clientId);
      const asked = now();
      const votes = (await this.lockAll(lock, owner, ttlMs)).filter((v) => v === 'yes').length;
      // Between winning the votes and the elapsed-time check: a pause here must make the
      // check fail (a pause after losing them would show nothing).
      if (votes >= this.quorum) await this.opts.pausePoint?.(AFTER_VOTES);
      const elapsedMs = Number(now() - asked) / 1e6;
      const validityMs = ttlMs - elapsedMs - driftMs(ttlMs);
      if (votes >= this.quorum && validityMs > 0) return { lock, owner, validityMs, votes };
      // Not held: give back what we got (best effort; what is left expires with its TTL).
      await this.unlockAll(lock, owner, this.nodeTimeoutMs(ttlMs));
      const waitMs = backoffMs(attempt, this.opts.rng, this.opts.backoffJitterMs);
      if (Number(monotonicNow() - started) / 1e6 + waitMs > timeoutMs) return null;
      await sleep(waitMs);
    }
  }

  async release(grant: Grant): Promise<ReleaseResult> {
    const votes = await this.unlockAll(grant.lock, grant.owner, this.opts.requestTimeoutMs);
    const released = votes.filter((v) => v === 'yes').length;
    const unknown = votes.filter((v) => v === 'unknown').length;
    if (released >= this.quorum) return true;
    if (released + unknown >= this.quorum) {
      throw new Error(`release: ${released} masters released, ${unknown} did not answer`);
    }
    return {
      released: false,
      reason: `${released} of ${votes.length} masters released (a majority is ${this.quorum})`,
    };
  }

  async close() {
    for (const m of this.masters) m.disconnect();
  }
}

/** The point inside acquire after a majority of votes, before the elapsed-time check. */
export const AFTER_VOTES = 'redlock:after-votes';

export const redlockBackend: Backend = {
  name: 'redlock',
  description: `Redlock over N independent Redis masters (default ${DEFAULT_MASTERS}): majority, validity = ttl - elapsed - drift`,
  fencing: {
    supported: false,
    why: 'Redlock has no fencing token: its grants carry no number that grows with every grant (use --backend redis or --fencing off)',
  },
  capabilities: {
    clock: REDIS_CLOCK,
    serverTime: REDIS_SERVER_TIME,
    inAcquirePausePoint: AFTER_VOTES,
    quorum: majority,
    minNodes: { count: 3, why: (n) => `a majority of ${n} tolerates no failed master` },
  },
  nodeSpecs: ({ nodes = DEFAULT_MASTERS }) =>
    Array.from({ length: nodes }, (_, i) => redisNodeSpec(`redis-${i + 1}`, 'node')),
  client: async (nodes, opts) => {
    const masters = await openAll(
      nodes.map((n) => () => redisClient(n.ip, opts.requestTimeoutMs, n.port)),
      (m) => m.disconnect(),
    );
    return new RedlockClient(masters, opts);
  },
};
