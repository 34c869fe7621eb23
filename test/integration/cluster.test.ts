import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisClient, redisNodeSpec } from '../../src/backends/redis-node.js';
import { type Cluster, CPU_SHARES, startCluster } from '../../src/cluster/cluster.js';
import { docker, NODE_IMAGE } from '../../src/cluster/docker-engine.js';
import { LABEL_OWNER, LABEL_ROLE, LABEL_RUN } from '../../src/cluster/labels.js';
import { removeResources } from '../../src/cluster/remove-resources.js';
import { leftovers, requireEngine } from './support.js';

const skip = await requireEngine();

describe.skipIf(skip)('cluster on real containers', () => {
  const runId = `test${randomBytes(3).toString('hex')}`;
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster(runId, [redisNodeSpec('redis-1', 'node'), redisNodeSpec('store', 'store')]);
  });
  afterAll(async () => {
    await removeResources({ runId });
  });

  it('starts labelled nodes on their own network, reachable from the host', async () => {
    expect(cluster.nodes.map((n) => n.name)).toEqual(['redis-1', 'store']);
    const containers = await docker().listContainers({ filters: { label: [`${LABEL_RUN}=${runId}`] } });
    expect(containers).toHaveLength(2);
    const client = await redisClient(cluster.node('redis-1').ip, 1000);
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });

  it('runs the server as PID 1, so a signal to the container reaches it', async () => {
    const { exitCode, output } = await cluster.node('redis-1').exec(['cat', '/proc/1/comm']);
    expect(exitCode).toBe(0);
    expect(output.trim()).toBe('redis-server');
  });

  it('runs the node with no added capability; iptables reach its namespace from a helper container', async () => {
    const node = cluster.node('redis-1');
    const info = await docker().getContainer(node.containerId).inspect();
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect((await node.exec(['iptables', '-L', '-n'])).exitCode).not.toBe(0);
    expect((await node.netExec(['iptables', '-L', '-n'])).exitCode).toBe(0);
  });

  it('pauses a node for real: a paused server stops answering, and answers again after resume', async () => {
    const node = cluster.node('redis-1');
    const client = await redisClient(node.ip, 300);
    await node.pause();
    await expect(client.ping()).rejects.toThrow(/timed out/i);
    await node.resume();
    // The timed-out ping's reply may still be in flight; a fresh one must answer.
    const fresh = await redisClient(node.ip, 1000);
    expect(await fresh.ping()).toBe('PONG');
    client.disconnect();
    fresh.disconnect();
  });

  it('a cluster started ahead of its workload yields the CPU until it claims it', async () => {
    const aheadId = `${runId}a`;
    try {
      const ahead = await startCluster(aheadId, [redisNodeSpec('redis-1', 'node')], undefined, true);
      const shares = async () =>
        (await docker().getContainer(ahead.node('redis-1').containerId).inspect()).HostConfig.CpuShares;
      expect(await shares()).toBe(CPU_SHARES.ahead);
      await ahead.claimCpu?.();
      expect(await shares()).toBe(CPU_SHARES.running);
      // One started for its workload at once weighs as much as any container from the start.
      const info = await docker().getContainer(cluster.node('redis-1').containerId).inspect();
      expect(info.HostConfig.CpuShares ?? 0).toBe(0);
    } finally {
      await removeResources({ runId: aheadId });
    }
  });

  it('removes everything of the run by label', async () => {
    const removed = await removeResources({ runId });
    // The two nodes, and the netns helper that the iptables test started for redis-1.
    expect(removed.containers).toHaveLength(3);
    expect(removed.containers.filter((c) => /-net\d+$/.test(c))).toHaveLength(1);
    expect(removed.networks).toHaveLength(1);
    expect((await leftovers()).filter((x) => x.includes(runId))).toEqual([]);
  });

  it("two sweeps at once (two runs starting together) both remove a dead runner's leftovers without an error", async () => {
    // A dead runner's cluster: its owner label names a pid that is not running.
    const orphan = `test${randomBytes(3).toString('hex')}`;
    const labels = { [LABEL_RUN]: orphan, [LABEL_OWNER]: `${hostname()}:999999999:0`, [LABEL_ROLE]: 'node' };
    const network = await docker().createNetwork({ Name: `lockchaos-${orphan}`, Labels: labels });
    await Promise.all(
      [1, 2, 3].map(async (i) => {
        const c = await docker().createContainer({
          Image: NODE_IMAGE,
          name: `lockchaos-${orphan}-n${i}`,
          Labels: labels,
          HostConfig: { NetworkMode: network.id },
        });
        await c.start();
      }),
    );
    const sweeps = await Promise.all([removeResources('orphaned'), removeResources('orphaned')]);
    expect(sweeps.flatMap((s) => s.containers).filter((c) => c.includes(orphan)).length).toBeGreaterThanOrEqual(3);
    // Nothing left for a third sweep: a network with no container was the hole (0 containers
    // and 1 network after the last run of a CI).
    expect((await leftovers()).filter((x) => x.includes(orphan))).toEqual([]);
  });
});
