import { UserError } from './errors.js';

/**
 * A wait that must end: the promise's outcome, or a rejection with makeError() when it has
 * not settled within ms (a module's import that never finishes, workers that do not stop).
 * The promise itself goes on, since nothing can cancel it; the timer is cleared as soon as
 * either settles, so an answer in time leaves nothing pending.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, makeError: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(makeError()), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The promise's outcome, or a rejection with the signal's reason as soon as it is aborted (a
 * wait that Ctrl-C must end: a node's ready() that never settles). The promise goes on.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // Not waited on, it goes on all the same: its failure later (workers' grace running out
    // after a Ctrl-C) must be no unhandled rejection, which would end the CLI as a crash.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/**
 * `attempt`'s value once it succeeds, trying again (after intervalMs, doubling to 2 s) until
 * patienceMs have passed or the signal is aborted; then its last error. For setup that a
 * loaded machine can fail once (a connect timeout) and that records nothing. A UserError
 * (a backend module that does not load, a config it refuses) is thrown at once: trying
 * again cannot mend it, and the user would wait out the patience to read it.
 */
export async function keepTrying<T>(
  patienceMs: number,
  attempt: () => Promise<T>,
  { intervalMs = 100, signal }: { intervalMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const until = Date.now() + patienceMs;
  for (let wait = intervalMs; ; wait = Math.min(2 * wait, 2000)) {
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof UserError || Date.now() + wait >= until || signal?.aborted) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
