/**
 * A thread that works beside timing-sensitive ones lowers its own priority: a campaign's
 * finished cell checks and writes its report while other cells' workloads run, and on a
 * small machine the search took the CPU their clients' timing needs. On Linux the nice
 * value belongs to the thread (setpriority of "this process" from a thread sets that
 * thread's), so only the calling thread yields.
 */
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far a yielding thread steps back: about a tenth of its share under contention. */
export const YIELDING_NICE = 10;

/**
 * Lowers the calling thread's priority by YIELDING_NICE (at most to 19); best effort. The
 * priority it had, for regainCpu; undefined when it could not yield.
 */
export function yieldCpu(): number | undefined {
  try {
    const had = getPriority();
    setPriority(Math.min(19, had + YIELDING_NICE));
    return had;
  } catch {
    // not permitted, or not supported: the thread runs at its priority
    return undefined;
  }
}

/**
 * Whether a process may yield and later take its priority back: raising one again takes
 * CAP_SYS_NICE (root). A process that could not would stay yielded through its workload,
 * so it does not yield at all.
 */
export function mayRegainCpu(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0;
}

/**
 * Every thread of this process back to `nice` (those started while it yielded took the
 * yielded value with them); best effort.
 */
export function regainCpu(nice: number): void {
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      setPriority(Number(tid), nice);
    } catch {
      // a thread that ended meanwhile
    }
  }
}

/**
 * Every thread of these processes back to `nice`: a program started while its worker
 * yielded took the yielded value with it, into every process and thread it made. Best effort.
 */
export function regainCpuOf(pids: readonly number[], nice: number): void {
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited meanwhile
    }
    for (const tid of tids) {
      try {
        setPriority(Number(tid), nice);
      } catch {
        // a thread that ended meanwhile
      }
    }
  }
}
