/**
 * A thread that works beside timing-sensitive ones lowers its own priority: a campaign's
 * finished cell checks and writes its report while other cells' workloads run, and on a
 * small machine the search took the CPU their clients' timing needs. On Linux the nice
 * value belongs to the thread (setpriority of "this process" from a thread sets that
 * thread's), so only the calling thread yields.
 */
import { getPriority, setPriority } from 'node:os';

/** How far a yielding thread steps back: about a tenth of its share under contention. */
export const YIELDING_NICE = 10;

/** Lowers the calling thread's priority by YIELDING_NICE (at most to 19); best effort. */
export function yieldCpu(): void {
  try {
    setPriority(Math.min(19, getPriority() + YIELDING_NICE));
  } catch {
    // not permitted, or not supported: the thread runs at its priority
  }
}
