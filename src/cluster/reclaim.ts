/**
 * The sweep at every start (and `lockchaos cleanup`): remove the containers and networks
 * of runs whose runner is gone, and end their client workers (a worker left paused by a
 * killed runner would otherwise stay stopped forever).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { ownerAlive, removeResources, WORKER_ENV } from './labels.js';

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
  let workers = 0;
  for (const pid of orphanWorkers()) {
    try {
      process.kill(pid, 'SIGKILL');
      workers++;
    } catch {
      // gone already
    }
  }
  const removed = await removeResources(which);
  return { ...removed, workers };
}
