/**
 * The checker's clock, for its time limit and the parts' shares of it (shareEnd). By default
 * the wall clock. A step clock takes its place in tests: its time is how many times this
 * thread has read it, and a search reads it every 4096 steps, so a time limit becomes an
 * amount of search: the same schedule on a loaded machine as on an idle one, where a
 * wall-clock limit of seconds left tests passing or failing with the machine's load.
 *
 * Each thread counts its own reads, and a worker's turn ends at a time on its own clock
 * (parallel.ts takes it from the worker's last answer). With one counter for all threads, a
 * worker the machine held back saw its turns end before it had searched, while the other
 * thread read the clock on.
 */
let steps: number | undefined;

/** Now, in ms on this thread's clock. */
export function now(): number {
  return steps !== undefined ? ++steps : performance.now();
}

/**
 * Where this thread's clock starts, in ms since the epoch: times handed to another thread
 * go as now() + origin() (performance.now() has another origin in each thread).
 */
export function origin(): number {
  return steps !== undefined ? 0 : performance.timeOrigin;
}

/** The step clock's time, not counted as a read; undefined on the wall clock. */
export function stepTime(): number | undefined {
  return steps;
}

/** Reads a step clock from now on, from 0. */
export function useStepClock(): void {
  steps = 0;
}

/** Reads the wall clock from now on (the default). */
export function useWallClock(): void {
  steps = undefined;
}
