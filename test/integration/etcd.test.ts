/**
 * The etcd backend on a real 3-member cluster: the lock itself (shared suite), the lease
 * TTL in whole seconds, and whole runs through the CLI.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { etcdBackend, leaseTtlSeconds } from '../../src/backends/etcd.js';
import { startCluster } from '../../src/cluster/cluster.js';
import { removeResources } from '../../src/cluster/remove-resources.js';
import { Rng } from '../../src/util/rng.js';
import { endToEndSuite, grantAskingAgain, lockServiceSuite } from './lock-service.js';
import { requireEngine } from './support.js';

const skip = await requireEngine();

describe('etcd lease TTL', () => {
  it('rounds the TTL up to whole seconds, at least one', () => {
    expect([1, 999, 1000, 1001, 2000, 2500].map(leaseTtlSeconds)).toEqual([1, 1, 1, 2, 2, 3]);
  });
});

describe.skipIf(skip)('etcd lock on a real 3-member cluster', () => {
  lockServiceSuite(etcdBackend, { serverComm: 'etcd', probe: 'GET /health HTTP/1.0\r\n\r\n', ttlMs: 1000 });
});

describe.skipIf(skip)('an etcd member that lost its data', () => {
  const runId = `test${randomBytes(3).toString('hex')}`;
  afterAll(() => removeResources({ runId }));

  it('is replaced by a fresh member, and the cluster serves locks again', async () => {
    const cluster = await startCluster(runId, etcdBackend.nodeSpecs({}));
    const lost = cluster.node('etcd-2');
    // What kill-node --lose-data does: leave the marker, kill, restart.
    await lost.exec(['touch', '/data/.lose-data']);
    await lost.signal('SIGKILL');
    await lost.restart();
    expect(await lost.logs()).toMatch(/etcd-2 lost its data: replaced it with a new member/);
    const { output } = await lost.exec(['etcdctl', 'member', 'list']);
    expect(
      output
        .trim()
        .split('\n')
        .filter((l) => l.includes(', started, ')),
    ).toHaveLength(3);
    const client = await etcdBackend.client(
      cluster.nodes.map((n) => ({ name: n.name, ip: n.ip })),
      { requestTimeoutMs: 1000, rng: new Rng(1), clientId: 'a' },
    );
    // The new member may still be catching up when first asked: ask again.
    const grant = await grantAskingAgain((opts) => client.acquire('after-loss', opts), 5000, 1000);
    expect(grant.token).toBeGreaterThan(0);
    await client.close();
  });
});

// A 2 s lease and pauses of 1.6-4 s: most pauses outlive the lease. (With etcd's default
// election timeout its shortest lease would be 2 s anyway; the cluster is tuned for 1 s.)
describe.skipIf(skip)('lockchaos run --backend etcd, end to end', () => endToEndSuite('etcd', 2000));
