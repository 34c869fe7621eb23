/**
 * How long a cluster takes to be ready, from nothing to every node answering: the
 * 5-Redis (Redlock) + store cluster, the single Redis + store cluster, the 3-member etcd +
 * store cluster (ready: every member healthy, so a leader elected) and the 3-server
 * ZooKeeper + store ensemble (ready: every server in the quorum), the Sentinel group +
 * store (ready: replicas in sync, every Sentinel knows the replicas and the other
 * Sentinels) and PostgreSQL + store (ready: a session answers). Goals, once the images
 * exist: Redlock under 2 s, etcd under 4 s, ZooKeeper (three JVMs) under 8 s, the Sentinel
 * group under 15 s (replicas sync first, then Sentinels find each other through hello
 * messages published every 2 s), postgres under 3 s. Prints a table; runs each a few
 * times.
 */
import { randomBytes } from 'node:crypto';
import { BACKENDS } from '../src/backends/index.js';
import { startCluster } from '../src/cluster/cluster.js';
import { ensureEngine, ensureImage, POSTGRES_IMAGE } from '../src/cluster/engine.js';
import { removeResources } from '../src/cluster/labels.js';
import { dataStoreNodeSpec } from '../src/datastore/datastore.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);

await ensureEngine();
await ensureImage({ build: true, log: console.error, images: [POSTGRES_IMAGE] });
const GOAL_S: Record<string, number> = { redlock: 2, etcd: 4, zookeeper: 8, 'redis-sentinel': 15, postgres: 3 };
console.log('cluster                        nodes  ready (s), each round      median  goal');
for (const name of ['redlock', 'redis', 'etcd', 'zookeeper', 'redis-sentinel', 'postgres']) {
  const backend = BACKENDS[name];
  if (!backend) continue;
  const specs = [...backend.nodeSpecs({ ttlMs: 1000 }), dataStoreNodeSpec()];
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const runId = `bench${randomBytes(3).toString('hex')}`;
    const t0 = performance.now();
    try {
      await startCluster(runId, specs);
      times.push((performance.now() - t0) / 1000);
    } finally {
      await removeResources({ runId });
    }
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  const goal = GOAL_S[name];
  console.log(
    `${`${name} + store`.padEnd(30)} ${String(specs.length).padStart(5)}  ${times
      .map((t) => t.toFixed(2))
      .join(', ')
      .padEnd(
        24,
      )} ${median.toFixed(2).padStart(6)}  ${goal === undefined ? '' : `${median <= goal ? 'within' : 'OVER'} ${goal} s`}`,
  );
}
