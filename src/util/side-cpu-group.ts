/**
 * Side work in a CPU group of low weight: a campaign's finished cell checks and writes its
 * report while other cells start their clusters and run their workloads. A thread's nice
 * value (yield-cpu.ts) ranks it only among the threads of its own scheduling group; the CPU
 * is first shared between groups (the runner's session, /docker's servers, dockerd's and
 * containerd's), so a yielded check still took its whole group's share from the cluster the
 * next cell was starting, which is what a free workload slot waits for.
 *
 * The calling thread joins <cgroup v1 cpu mount>/lockchaos-side-<pid>, weighted a tenth of
 * a group: under contention it gets about a tenth of a core, when the machine is idle all of
 * it. cgroup v1 moves one thread (its `tasks` file), and the threads it starts are born in
 * its group; cgroup v2 moves whole processes only (outside threaded mode), so there, and
 * where the runner is not root, the thread keeps its nice value alone. Best effort: side
 * work runs wherever it can.
 */
import { mkdirSync, readdirSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMounts } from './cgroup.js';
import { yieldCpu } from './yield-cpu.js';

/** The side group's weight against a group's default 1024: a tenth, as YIELDING_NICE. */
export const SIDE_CPU_SHARES = 102;

const PREFIX = 'lockchaos-side-';

/** Where cgroup v1's cpu controller is mounted, if it is. */
export function cpuV1Mount(mounts = readMounts()): string | undefined {
  for (const line of mounts.split('\n')) {
    const [, path, type, options] = line.split(' ');
    if (type === 'cgroup' && options?.split(',').includes('cpu')) return path;
  }
  return undefined;
}

/** The side group of this process, whether made or not; undefined without cgroup v1's cpu controller. */
export function sideCpuGroupPath(mount = cpuV1Mount()): string | undefined {
  return mount === undefined ? undefined : join(mount, `${PREFIX}${process.pid}`);
}

/**
 * Moves the calling thread (and the threads it starts from now on) into this process's side
 * group; whether it moved.
 */
export function joinSideCpuGroup(): boolean {
  const group = sideCpuGroupPath();
  if (group === undefined) return false;
  try {
    // "<pid>/task/<tid>": the calling thread's own id, which Node does not otherwise give.
    const tid = readlinkSync('/proc/thread-self').split('/').pop() as string;
    mkdirSync(group, { recursive: true });
    writeFileSync(join(group, 'cpu.shares'), String(SIDE_CPU_SHARES));
    writeFileSync(join(group, 'tasks'), tid);
    return true;
  } catch {
    // not root, or the hierarchy is read-only: the thread's nice value alone
    return false;
  }
}

/** Side work beside workloads yields both ways: its nice value, and its CPU group. */
export function yieldAsSideWork(): void {
  yieldCpu();
  joinSideCpuGroup();
}

/**
 * Removes the side groups that hold no thread (of processes gone, or between their side
 * work); a process that yields again makes its group again.
 */
export function removeIdleSideCpuGroups(mount = cpuV1Mount()): void {
  if (mount === undefined) return;
  let names: string[];
  try {
    names = readdirSync(mount).filter((name) => name.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    try {
      rmdirSync(join(mount, name)); // refused (EBUSY) while a thread is in it
    } catch {
      // busy, or gone already
    }
  }
}
