/**
 * Removing what carries a run's labels (labels.ts) from the engine: one run's containers and
 * networks at its teardown, those of runners that are gone at the sweep, all of them for
 * `lockchaos cleanup --all`. Apart from the labels themselves, so that a client worker,
 * which needs only the names, does not load the engine's client (a quarter second of CPU
 * per worker).
 */
import type { ContainerInfo } from 'dockerode';
import { sleep } from '../util/monotonic-clock.js';
import { ownContainerId } from './client-path.js';
import { docker } from './docker-engine.js';
import { LABEL_OWNER, LABEL_ROLE, LABEL_RUN, NET_HELPER_ROLE, ownerAlive } from './labels.js';

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

/** Removes one container, noting it in `removed`; one already gone is passed over. */
async function removeContainer(c: ContainerInfo, removed: Removed): Promise<void> {
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
  const containers = (await docker().listContainers({ all: true, filters })).filter((c) => !keep(c.Labels));
  // A net helper lives in its node's network namespace (netns.ts): it goes before its node.
  // Removed at once, the engine has been seen to keep an endpoint of the run's network
  // counted after both were gone (moby#42119), a network only a restart of dockerd removes.
  const helper = (c: ContainerInfo) => c.Labels?.[LABEL_ROLE] === NET_HELPER_ROLE;
  for (const group of [containers.filter(helper), containers.filter((c) => !helper(c))]) {
    await Promise.all(group.map((c) => removeContainer(c, removed)));
  }
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
