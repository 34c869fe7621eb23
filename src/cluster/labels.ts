/**
 * Every container and network a run makes carries these labels, so that teardown, the
 * sweep at the next start and `lockchaos cleanup` find exactly what lockchaos made.
 * The owner label names the runner process (host, pid, start time), so the sweep can tell
 * a live run's resources from those a crashed runner left.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { sleep } from '../util/monotonic-clock.js';
import { ownContainerId } from './client-path.js';
import { docker } from './docker-engine.js';

export const LABEL_RUN = 'org.lockchaos.run';
export const LABEL_OWNER = 'org.lockchaos.owner';
export const LABEL_ROLE = 'org.lockchaos.role';
/** Environment marker on client worker processes: "<run id>@<runner owner label>". */
export const WORKER_ENV = 'LOCKCHAOS_WORKER_RUN';

function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) counted after the ')' that ends the command name.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function ownerLabel(pid = process.pid): string {
  return `${hostname()}:${pid}:${processStartTime(pid) ?? '?'}`;
}

/** True when the runner named by an owner label is still running on this host. */
export function ownerAlive(owner: string | undefined): boolean {
  if (!owner) return false;
  const [host, pidText, start] = owner.split(':');
  if (host !== hostname()) return true; // another host's run: not ours to judge
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return processStartTime(pid) === start;
}

/**
 * The cgroup of a run's client program (util/cgroup.ts): "<run id>-<runner pid>-<its start
 * time>-<client>", so that the sweep can tell the groups of a runner that is gone.
 * `owner` is the runner's owner label (a worker has it from WORKER_ENV).
 */
export function clientCgroupName(runId: string, client: string, owner = ownerLabel()): string {
  const [, pid, start] = owner.split(':');
  return `${runId}-${pid}-${start}-${client}`;
}

/** The run id and the runner's owner label a client cgroup's name holds (undefined: not one of ours). */
export function cgroupOwner(name: string): { runId: string; owner: string } | undefined {
  const m = /^([0-9a-f]+)-(\d+)-([^-]+)-/.exec(name);
  return m ? { runId: m[1] as string, owner: `${hostname()}:${m[2]}:${m[3]}` } : undefined;
}

export function runLabels(runId: string, role: string): Record<string, string> {
  return { [LABEL_RUN]: runId, [LABEL_OWNER]: ownerLabel(), [LABEL_ROLE]: role };
}

export interface Removed {
  containers: string[];
  networks: string[];
  /**
   * Networks of runs whose runner is gone that the engine would not remove: it counts an
   * endpoint in them (a container a third party attached, or a stale endpoint that dockerd
   * kept after its container was removed, which only a restart of dockerd clears).
   */
  inUse: string[];
}

/** Waits (up to 30 s) until the engine no longer knows the container. */
async function containerGone(id: string): Promise<void> {
  for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
    try {
      await docker().getContainer(id).inspect();
    } catch (err) {
      if (/No such container|404/.test(String(err))) return;
      throw err;
    }
  }
}

/**
 * Removes lockchaos containers and networks. `which` selects them: one run's, those whose
 * runner is gone (the sweep at every start), or all of them (`lockchaos cleanup --all`).
 */
export async function removeResources(which: { runId: string } | 'orphaned' | 'all'): Promise<Removed> {
  const filters = typeof which === 'object' ? { label: [`${LABEL_RUN}=${which.runId}`] } : { label: [LABEL_RUN] };
  const keep = (labels: Record<string, string> | undefined) =>
    which === 'orphaned' && ownerAlive(labels?.[LABEL_OWNER]);
  const removed: Removed = { containers: [], networks: [], inUse: [] };
  const containers = await docker().listContainers({ all: true, filters });
  await Promise.all(
    containers
      .filter((c) => !keep(c.Labels))
      .map(async (c) => {
        try {
          await docker().getContainer(c.Id).remove({ force: true, v: true });
          removed.containers.push(c.Names[0]?.replace(/^\//, '') ?? c.Id);
        } catch (err) {
          if (/No such container/.test(String(err))) return;
          if (!/already in progress/.test(String(err))) throw err;
          // Being removed by another sweep (two runs starting at once): wait until it is gone,
          // so that its network is empty when we come to it. Two sweeps that each skipped the
          // other's container would otherwise both find the network busy and leave it.
          await containerGone(c.Id);
        }
      }),
  );
  const networks = await docker().listNetworks({ filters });
  const own = ownContainerId();
  for (const n of networks.filter((n) => !keep(n.Labels))) {
    try {
      // This process's own container joined it (client-path.ts): it leaves first.
      if (own !== undefined)
        await docker()
          .getNetwork(n.Id)
          .disconnect({ Container: own, Force: true })
          .catch(() => undefined);
      await docker().getNetwork(n.Id).remove();
      removed.networks.push(n.Name);
    } catch (err) {
      // Still attached: a container that a third party attached, which the next sweep may
      // find gone. A run's own network has no container left here.
      const busy = which === 'orphaned' && /active endpoints/.test(String(err));
      if (busy) removed.inUse.push(n.Name);
      else if (!/No such network|not found/.test(String(err))) throw err;
    }
  }
  return removed;
}
