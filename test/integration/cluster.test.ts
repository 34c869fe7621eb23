import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisClient, redisNodeSpec } from '../../src/backends/redis-node.js';
import { type Cluster, startCluster } from '../../src/cluster/cluster.js';
import { docker } from '../../src/cluster/engine.js';
import { LABEL_RUN, removeResources } from '../../src/cluster/labels.js';
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

  it('removes everything of the run by label', async () => {
    const removed = await removeResources({ runId });
    // The two nodes, and the netns helper that the iptables test started for redis-1.
    expect(removed.containers).toHaveLength(3);
    expect(removed.containers.filter((c) => /-net\d+$/.test(c))).toHaveLength(1);
    expect(removed.networks).toHaveLength(1);
    expect((await leftovers()).filter((x) => x.includes(runId))).toEqual([]);
  });
});
