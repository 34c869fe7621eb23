/**
 * The checker's clock, for its time limit and the parts' shares of it (shareEnd). By default
 * the wall clock. A step clock takes its place in tests: its time is how many times any
 * thread read it (a counter shared with the part workers), and a search reads it every 4096
 * steps, so a time limit becomes an amount of search: the same schedule on a loaded machine
 * as on an idle one, where a wall-clock limit of seconds left tests passing or failing with
 * the machine's load.
 */
let steps: Int32Array | undefined;

/** Now, in ms on this thread's clock. */
export function now(): number {
  return steps ? Atomics.add(steps, 0, 1) + 1 : performance.now();
}

/**
 * Where this thread's clock starts, in ms since the epoch: times handed to another thread
 * go as now() + origin() (performance.now() has another origin in each thread).
 */
export function origin(): number {
  return steps ? 0 : performance.timeOrigin;
}

/** The step clock's shared counter, when it is in use (a part worker's job carries it). */
export function stepClock(): SharedArrayBuffer | undefined {
  return steps?.buffer as SharedArrayBuffer | undefined;
}

/** Reads a step clock from now on: a fresh one, or the one another thread shares. */
export function useStepClock(shared = new SharedArrayBuffer(4)): void {
  steps = new Int32Array(shared);
}

/** Reads the wall clock from now on (the default). */
export function useWallClock(): void {
  steps = undefined;
}
