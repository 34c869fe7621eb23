/**
 * Redis behind Sentinel on real containers: the Sentinels fail over a primary cut off from
 * them and its replicas, both primaries then accept writes (the split brain the
 * sentinel-split-brain scenario turns into two lock holders), and after the heal the old
 * primary is demoted to a replica of the new one.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisClient } from '../../src/backends/redis-node.js';
import { redisSentinelBackend } from '../../src/backends/redis-sentinel.js';
import { SENTINEL_PORT, sentinelGroupSpecs, sentinelPrimary } from '../../src/backends/redis-sentinel-node.js';
import { type Cluster, startCluster } from '../../src/cluster/cluster.js';
import { removeResources } from '../../src/cluster/remove-resources.js';
import { nodeFaultContext } from '../../src/nemesis/context.js';
import { Partition } from '../../src/nemesis/kinds/partition.js';
import { sleep } from '../../src/util/monotonic-clock.js';
import { Rng } from '../../src/util/rng.js';
import { requireEngine } from './support.js';

const skip = await requireEngine();

async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 30_000): Promise<T> {
  for (let waited = 0; waited < deadlineMs; waited += 200) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    await sleep(200);
  }
  throw new Error(`${what}: not within ${deadlineMs} ms`);
}

describe.skipIf(skip)('redis-sentinel', () => {
  const runId = `test${randomBytes(3).toString('hex')}`;
  let cluster: Cluster;
  const lockNodes = () => cluster.nodes;

  beforeAll(async () => {
    cluster = await startCluster(runId, sentinelGroupSpecs({ replicas: 2, sentinels: 3, minReplicas: 0 }));
  });
  afterAll(async () => {
    await removeResources({ runId });
  });

  it("runs on Sentinel's own periods once ready: those shortened for the start are put back", async () => {
    for (const node of lockNodes().filter((n) => n.name.startsWith('sentinel-'))) {
      const client = await redisClient(node.ip, 1000, SENTINEL_PORT);
      try {
        const flat = (await client.call('SENTINEL', 'DEBUG')) as string[];
        const periods = Object.fromEntries(flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]]] : [])));
        expect(periods).toMatchObject({ 'PING-PERIOD': '1000', 'INFO-PERIOD': '10000' });
      } finally {
        client.disconnect();
      }
    }
  });

  it('fails over a primary cut from its replicas and Sentinels; both primaries accept writes; the heal demotes the old one', async () => {
    expect(await sentinelPrimary(lockNodes())).toBe('redis-1');
    const clients = lockNodes().map((n) => ({ name: n.name, ip: n.ip }));
    const lock = await redisSentinelBackend.client(clients, {
      requestTimeoutMs: 1000,
      rng: new Rng(1),
      clientId: 'c0',
      backend: { settings: { 'follow-failover': 'all' } },
    });
    const before = await lock.acquire('L', { ttlMs: 500, timeoutMs: 2000 });
    expect(before?.token).toBe(1);
    const old = await redisClient(cluster.node('redis-1').ip, 1000);
    expect(await old.wait(2, 2000)).toBe(2); // token 1 is on both replicas

    const cut = new Partition(
      nodeFaultContext(
        runId,
        lockNodes(),
        { nemesisIntervalS: 10, ttlMs: 1000 },
        { leader: () => sentinelPrimary(lockNodes()) },
      ),
      'isolate-leader',
    );
    const started = await cut.start(new Rng(3));
    expect(started?.value).toMatchObject({ shape: 'isolate-leader' });
    // The cut-off primary, still reachable from here, counts on alone: token 2.
    expect(await old.incr('L:token')).toBe(2);
    const promoted = await until('a replica promoted', async () => {
      const p = await sentinelPrimary(lockNodes());
      return p && p !== 'redis-1' ? p : undefined;
    });
    // Split brain: the old primary and the new one both write.
    const fresh = await redisClient(cluster.node(promoted).ip, 1000);
    expect(await old.set('k', 'old')).toBe('OK');
    expect(await fresh.set('k', 'new')).toBe('OK');
    // A client that follows failovers takes the lock on the new primary, whose counter is
    // the replica's copy: token 2 again. The token source forked.
    const after = await until('a grant on the new primary', () =>
      lock.acquire('L', { ttlMs: 500, timeoutMs: 1000 }).then((g) => g ?? undefined),
    );
    expect(after.token).toBe(2);
    await cut.stop();
    // Demoted, it resynchronises from the new primary: what it granted alone is gone.
    await until('the old primary demoted and in sync', async () =>
      /role:slave[\s\S]*master_link_status:up/.test(await old.info('replication')) ? true : undefined,
    );
    expect(await old.get('k')).toBe('new');
    old.disconnect();
    fresh.disconnect();
    await lock.close();
  });
});
