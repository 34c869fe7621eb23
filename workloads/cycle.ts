/**
 * The steps every lock workload shares: record an acquire, record a release, wait
 * between cycles at the configured rate.
 */
import { encodeGrant, grantProblem, REFUSED_GRANT } from '../checkers/op-values.js';
import { type Grant, releaseFailure } from '../src/backends/backend.js';
import { sleep } from '../src/util/monotonic-clock.js';
import type { ClientContext } from './workload.js';

/** The grant if the acquire completed `ok`; null after `fail` or `info`. */
export async function recordAcquire(ctx: ClientContext): Promise<Grant | null> {
  const { lock, opts, recorder } = ctx;
  let grant: Grant | null = null;
  const outcome = await recorder.perform('acquire', opts.lock, undefined, async () => {
    grant = await lock.acquire(opts.lock, { ttlMs: opts.ttlMs, timeoutMs: opts.acquireTimeoutMs });
    if (!grant) return { type: 'fail', error: 'timeout: lock busy' };
    // Thrown: recorded as info (the client may hold the lock), and the runner says so.
    const problem = grantProblem(grant);
    if (problem) throw new Error(`${REFUSED_GRANT}${problem}`);
    return { type: 'ok', value: encodeGrant(grant) };
  });
  if (outcome.type !== 'ok') return null;
  // On the record as granted: a pause here is a holder stopped before it uses its grant.
  await ctx.point?.('after-grant');
  return grant;
}

/** A release that failed is recorded with the library's reason, as it said it (a DefiniteFailure's, its message). */
export async function recordRelease(ctx: ClientContext, grant: Grant): Promise<void> {
  await ctx.point?.('before-release');
  await ctx.recorder.perform('release', grant.lock, undefined, async () => {
    const failure = releaseFailure(await ctx.lock.release(grant));
    return failure === undefined ? { type: 'ok' } : { type: 'fail', error: failure };
  });
}

/** After a cycle that could not take the lock: a dead node answers at once, every time. */
export const RETRY_AFTER_FAILURE_MS = { min: 10, max: 100 };

/**
 * Between cycles: staggered so that all clients together make about opts.rate cycles/s.
 * After a cycle whose acquire did not succeed, wait a little: a request that fails at
 * once (a node down, a connection refused) would otherwise make the loop spin without
 * ever yielding to the event loop, starving its own timers and the history's delivery.
 */
export async function think(ctx: ClientContext, acquired: boolean): Promise<void> {
  if (!acquired) await sleep(ctx.rng.uniform(RETRY_AFTER_FAILURE_MS.min, RETRY_AFTER_FAILURE_MS.max), ctx.stop);
  if (ctx.opts.rate > 0) {
    const meanMs = (1000 * ctx.opts.concurrency) / ctx.opts.rate;
    await sleep(ctx.rng.uniform(0, 2 * meanMs), ctx.stop);
  }
  // Always give timers and I/O a turn, even when every request answered from a buffer.
  await new Promise<void>((resolve) => setImmediate(resolve));
}
