/**
 * How long a cluster takes to be ready, from nothing to every node answering: the
 * 5-Redis (Redlock) + store cluster and the single Redis + store cluster. Goal for the
 * first: under 2 s once the image exists. Prints a table; runs each a few times.
 */
import { randomBytes } from 'node:crypto';
import { BACKENDS } from '../src/backends/index.js';
import { startCluster } from '../src/cluster/cluster.js';
import { ensureEngine, ensureImage } from '../src/cluster/engine.js';
import { removeResources } from '../src/cluster/labels.js';
import { storeNodeSpec } from '../src/store/datastore.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);

await ensureEngine();
await ensureImage({ build: true, log: console.error });
console.log('cluster                        nodes  ready (s), each round      median');
for (const name of ['redlock', 'redis']) {
  const backend = BACKENDS[name];
  if (!backend) continue;
  const specs = [...backend.nodeSpecs({}), storeNodeSpec()];
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
  console.log(
    `${`${name} + store`.padEnd(30)} ${String(specs.length).padStart(5)}  ${times
      .map((t) => t.toFixed(2))
      .join(', ')
      .padEnd(24)} ${median.toFixed(2)}`,
  );
}
