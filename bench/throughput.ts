/**
 * Harness overhead: operations per second that a run records (clients in worker
 * processes, every operation stamped, streamed over IPC and appended to history.jsonl)
 * against a raw client loop on the same kind of server (the same lock client, the same
 * concurrency, in this process, recording nothing). Goal: a median ratio of at least 90%.
 * Workload: mutex with no hold and no think time, no faults, redis backend.
 *
 * Raw and recorded rounds alternate (ROUNDS pairs, at least 5): one pair each was as noisy
 * as the machine (92% and then 63% on one quiet machine, twice in a row). Each pair's ratio
 * compares neighbours in time; the median and the spread of the pairs are the figure.
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
import { prepareRun } from '../src/runner/prepare.js';
import { run } from '../src/runner/run.js';
import { Rng } from '../src/util/rng.js';

const SECONDS = Number(process.env.SECONDS_PER_SIDE ?? 5);
const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 5));
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
    await prepareRun({
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
    }),
    { log: () => {} },
  );
  const window = SECONDS * 1e9;
  const completed = result.history.filter(
    (op) => op.type !== 'invoke' && op.process !== 'nemesis' && op.time <= window,
  );
  return completed.length / SECONDS;
}

const pairs: { raw: number; recorded: number; ratio: number }[] = [];
console.log(`${ROUNDS} rounds of raw then recorded, ${CONCURRENCY} clients, ${SECONDS} s a side`);
console.log('round   raw ops/s   recorded ops/s   ratio');
for (let i = 1; i <= ROUNDS; i++) {
  const r = await raw();
  const rec = await recorded();
  pairs.push({ raw: r, recorded: rec, ratio: rec / r });
  console.log(
    `${String(i).padStart(5)}   ${r.toFixed(0).padStart(9)}   ${rec.toFixed(0).padStart(14)}   ${pct(rec / r).padStart(5)}`,
  );
}
const ratios = pairs.map((p) => p.ratio).sort((a, b) => a - b);
const median = ratios[Math.floor(ratios.length / 2)] ?? Number.NaN;
console.log(
  `median ratio: ${pct(median)} (spread ${pct(ratios[0] ?? Number.NaN)} to ${pct(ratios.at(-1) ?? Number.NaN)}); goal: at least 90% -> ${median >= 0.9 ? 'met' : 'NOT met'}`,
);

function pct(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}
