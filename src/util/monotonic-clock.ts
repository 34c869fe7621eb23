/**
 * Time in a history: nanoseconds since the test's origin on CLOCK_MONOTONIC, which is
 * system-wide on Linux, so the runner and every worker process stamp on one clock.
 * (process.hrtime.bigint() reads CLOCK_MONOTONIC.)
 */
export type Origin = bigint;

export function monotonicNow(): bigint {
  return process.hrtime.bigint();
}

export function sinceOrigin(origin: Origin): number {
  return Number(process.hrtime.bigint() - origin);
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    // No timer for 0: Node clamps setTimeout(0) to 1 ms, a large cost per operation.
    if (signal?.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export const NS_PER_MS = 1_000_000;

/**
 * Sleeps until at least ms have passed on the monotonic clock since `from` (hrtime ns). A
 * timer alone can end up to a millisecond early against hrtime, since libuv counts timers
 * from the loop's cached, millisecond-truncated time; a fault's recorded length is a claim
 * (the sweep compares it with the lease), so it must hold; so must a given fault's start
 * time (a replay starts each fault no earlier than the schedule says). A signal cuts it short.
 */
export async function sleepAtLeast(ms: number, from: bigint, signal?: AbortSignal): Promise<void> {
  const end = from + BigInt(Math.ceil(ms * NS_PER_MS));
  for (let left = end - monotonicNow(); left > 0n && !signal?.aborted; left = end - monotonicNow()) {
    await sleep(Math.ceil(Number(left) / NS_PER_MS), signal);
  }
}
