/**
 * The sweep at every start (and `lockchaos cleanup`): remove the containers and networks
 * of runs whose runner is gone, and end their client workers (a worker left paused by a
 * killed runner would otherwise stay stopped forever) and what their client programs left
 * in their cgroups (a daemon that left the program's process group), and give the
 * processes they warped (clock-warp.ts) their true clock back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cgroupPath, listCgroups, removeCgroup } from '../util/cgroup.js';
import { removeIdleSideCpuGroups } from '../util/side-cpu-group.js';
import { reclaimClockWarps } from './clock-warp.js';
import { cgroupOwner, ownerAlive, WORKER_ENV } from './labels.js';
import { removeResources } from './remove-resources.js';

/** Worker processes whose runner is gone: their env names the runner's owner label. */
export function orphanWorkers(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue;
    }
    const marker = environ.split('\0').find((kv) => kv.startsWith(`${WORKER_ENV}=`));
    if (!marker) continue;
    const owner = marker.slice(WORKER_ENV.length + 1).split('@')[1];
    if (!ownerAlive(owner)) found.push(Number(entry));
  }
  return found;
}

export async function reclaimOrphans(which: 'orphaned' | 'all' = 'orphaned') {
  // First, while their processes still run: a warped client program outlives its run.
  const clocks = await reclaimClockWarps(which);
  let workers = 0;
  for (const pid of orphanWorkers()) {
    try {
      process.kill(pid, 'SIGKILL');
      workers++;
    } catch {
      // gone already
    }
  }
  const cgroups = await reclaimCgroups(which);
  removeIdleSideCpuGroups(); // empty ones only: a live run's busy group refuses
  const removed = await removeResources(which);
  return { ...removed, workers, cgroups, clocks: clocks.restored, clockProblems: clocks.problems };
}

/** Removes the client program cgroups of runs whose runner is gone (or all of them); how many. */
export function reclaimCgroups(which: 'orphaned' | 'all' = 'orphaned'): Promise<number> {
  return removeCgroups((owner) => which === 'all' || !ownerAlive(owner.owner));
}

/**
 * Ends one run's client programs and whatever they started, and removes their cgroups:
 * at the end of the run, when its workers (which close them) may have been killed.
 */
export function removeRunCgroups(runId: string): Promise<number> {
  return removeCgroups((owner) => owner.runId === runId);
}

/** Removes the client cgroups `which` selects (each emptied first); how many. */
async function removeCgroups(which: (owner: { runId: string; owner: string }) => boolean): Promise<number> {
  const names = listCgroups().filter((name) => {
    const owner = cgroupOwner(name);
    return owner !== undefined && which(owner);
  });
  const removed = await Promise.all(
    names.map((name) => {
      const path = cgroupPath(name);
      return path === undefined ? false : removeCgroup(path);
    }),
  );
  return removed.filter(Boolean).length;
}
