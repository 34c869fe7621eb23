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
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
