/**
 * How long a cluster takes to be ready, from nothing to every node answering: the
 * 5-Redis (Redlock) + store cluster, the single Redis + store cluster, the 3-member etcd +
 * store cluster (ready: every member healthy, so a leader elected) and the 3-server
 * ZooKeeper + store ensemble (ready: every server in the quorum), the Sentinel group +
 * store (ready: replicas in sync, every Sentinel knows the replicas and the other
 * Sentinels) and PostgreSQL + store (ready: a session answers). Goals, once the images
 * exist: Redlock under 2 s, etcd under 4 s, ZooKeeper (three JVMs) under 8 s, the Sentinel
 * group under 15 s (replicas sync, Sentinels reach the nodes and each other their configs
 * name), postgres under 3 s; and every cluster within 1.5x its
 * floor (below). Prints a table; runs each a few times (ROUNDS, default 3).
 *
 *     npm run bench:startup                      every cluster
 *     node dist/perf/startup.js zookeeper etcd  only these
 */
import { randomBytes } from 'node:crypto';
import { BACKENDS } from '../src/backends/index.js';
import { type NodeSpec, startCluster } from '../src/cluster/cluster.js';
import { ensureEngine, ensureImage, POSTGRES_IMAGE } from '../src/cluster/docker-engine.js';
import { removeResources } from '../src/cluster/remove-resources.js';
import { dataStoreNodeSpec } from '../src/datastore/datastore.js';
import { nearestRank } from '../src/stats/quantiles.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);

// Names first: a wrong one is refused before any engine or image work.
const CLUSTERS = ['redlock', 'redis', 'etcd', 'zookeeper', 'redis-sentinel', 'postgres'];
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !CLUSTERS.includes(name));
if (unknown.length > 0) {
  console.error(`bench:startup: no cluster ${unknown.join(', ')}; give some of ${CLUSTERS.join(', ')}`);
  process.exit(3);
}

await ensureEngine();
await ensureImage({ build: true, log: console.error, images: [POSTGRES_IMAGE] });
const GOAL_S: Record<string, number> = { redlock: 2, etcd: 4, zookeeper: 8, 'redis-sentinel': 15, postgres: 3 };
/** Within this many times the floor: what lockchaos adds to Docker's own start. */
const FLOOR_GOAL = 1.5;

/** Seconds until startCluster(specs) returns, its resources removed afterwards. */
async function timeStart(specs: NodeSpec[]): Promise<number> {
  const runId = `bench${randomBytes(3).toString('hex')}`;
  const t0 = performance.now();
  try {
    await startCluster(runId, specs);
    return (performance.now() - t0) / 1000;
  } finally {
    await removeResources({ runId });
  }
}

const median = (xs: number[]) =>
  nearestRank(
    xs.toSorted((a, b) => a - b),
    0.5,
  );

console.log('cluster                        nodes  ready (s), each round      median  floor (s)  ratio  goal');
for (const name of asked.length > 0 ? asked : CLUSTERS) {
  const backend = BACKENDS[name];
  if (!backend) continue;
  const specs = [...backend.nodeSpecs({ ttlMs: 1000 }), dataStoreNodeSpec()];
  // The floor: the same containers of the same images on the same kind of network, started
  // in parallel by the same code, with the images' own command (sleep) and no readiness to
  // wait for. Measured in the same round, just before, so both see the same machine.
  const floorSpecs: NodeSpec[] = specs.map(({ command: _command, ...spec }) => ({ ...spec, ready: async () => {} }));
  const times: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    floors.push(await timeStart(floorSpecs));
    times.push(await timeStart(specs));
  }
  const m = median(times);
  const floor = median(floors);
  const ratio = m / floor;
  const goal = GOAL_S[name];
  const verdicts = [`${ratio <= FLOOR_GOAL ? 'within' : 'OVER'} ${FLOOR_GOAL}x floor`];
  if (goal !== undefined) verdicts.push(`${m <= goal ? 'within' : 'OVER'} ${goal} s`);
  console.log(
    `${`${name} + store`.padEnd(30)} ${String(specs.length).padStart(5)}  ${times
      .map((t) => t.toFixed(2))
      .join(', ')
      .padEnd(
        24,
      )} ${m.toFixed(2).padStart(6)}  ${floor.toFixed(2).padStart(9)}  ${ratio.toFixed(2).padStart(5)}  ${verdicts.join(', ')}`,
  );
}
