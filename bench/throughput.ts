/**
 * Harness overhead: operations per second that a run records (clients in worker
 * processes, every operation stamped, streamed over IPC and appended to history.jsonl)
 * against a raw client loop on the same kind of server (the same lock client, the same
 * concurrency, in this process, recording nothing). Goal: at least 80%.
 * Workload: mutex with no hold and no think time, no faults, redis backend.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisBackend } from '../src/backends/redis.js';
import { startCluster } from '../src/cluster/cluster.js';
import { ensureEngine, ensureImage } from '../src/cluster/engine.js';
import { removeResources } from '../src/cluster/labels.js';
import { DEFAULTS } from '../src/runner/config.js';
import { run } from '../src/runner/run.js';
import { Rng } from '../src/util/rng.js';

const SECONDS = Number(process.env.SECONDS_PER_SIDE ?? 10);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 5);

await ensureEngine();
await ensureImage({ build: true, log: console.error });

// Raw: the same acquire/release requests, no worker processes, no history.
async function raw(): Promise<number> {
  const runId = `bench${randomBytes(3).toString('hex')}`;
  try {
    const cluster = await startCluster(runId, redisBackend.nodeSpecs({}));
    const nodes = cluster.nodes.map((n) => ({ name: n.name, ip: n.ip }));
    let ops = 0;
    const deadline = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, i) => {
        const client = await redisBackend.client(nodes, { requestTimeoutMs: 1000, rng: new Rng(i), clientId: `r${i}` });
        while (performance.now() < deadline) {
          const grant = await client.acquire('bench', { ttlMs: 1000, timeoutMs: 5000 });
          ops++;
          if (grant) {
            await client.release(grant);
            ops++;
          }
        }
        await client.close();
      }),
    );
    return ops / SECONDS;
  } finally {
    await removeResources({ runId });
  }
}

async function recorded(): Promise<number> {
  const result = await run(
    {
      ...DEFAULTS,
      name: 'bench-throughput',
      backend: 'redis',
      workload: 'mutex',
      nemesis: 'none',
      fencing: false,
      timeLimitS: SECONDS,
      concurrency: CONCURRENCY,
      holdMs: 0,
      rate: 0,
      seed: 1,
      storeDir: mkdtempSync(join(tmpdir(), 'lockchaos-bench-')),
    },
    { log: () => {} },
  );
  const window = SECONDS * 1e9;
  const completed = result.history.filter(
    (op) => op.type !== 'invoke' && op.process !== 'nemesis' && op.time <= window,
  );
  return completed.length / SECONDS;
}

const rawRate = await raw();
const recordedRate = await recorded();
console.log(`raw client loop:   ${rawRate.toFixed(0)} ops/s (${CONCURRENCY} clients, ${SECONDS} s)`);
console.log(`recorded by a run: ${recordedRate.toFixed(0)} ops/s`);
console.log(`ratio:             ${((100 * recordedRate) / rawRate).toFixed(0)}% (goal: at least 80%)`);
