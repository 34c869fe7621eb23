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
 *
 * A third loop in each round is the machine's own limit for lockchaos's shape: the same raw
 * loop, one client per process, as many processes as clients. A run needs its clients in
 * processes of their own (the nemesis pauses one with SIGSTOP), so what that shape costs on
 * this machine is not recording's cost: recorded against it is what the recording adds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { NodeAddress } from '../src/backends/backend.js';
import { redisBackend } from '../src/backends/redis.js';
import { startCluster } from '../src/cluster/cluster.js';
import { ensureEngine, ensureImage } from '../src/cluster/docker-engine.js';
import { removeResources } from '../src/cluster/remove-resources.js';
import { DEFAULTS } from '../src/run-data/config.js';
import { prepareRun } from '../src/run-data/prepare.js';
import { run } from '../src/runner/run.js';
import { nearestRank } from '../src/stats/quantiles.js';
import { Rng } from '../src/util/rng.js';

const SECONDS = Number(process.env.SECONDS_PER_SIDE ?? 5);
const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 5));
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 5);

/** A raw client, connected: loop() counts acquires and releases until `deadline` (epoch ms). */
async function rawClient(nodes: NodeAddress[], i: number): Promise<{ loop(deadline: number): Promise<number> }> {
  const client = await redisBackend.client(nodes, { requestTimeoutMs: 1000, rng: new Rng(i), clientId: `r${i}` });
  return {
    async loop(deadline) {
      let ops = 0;
      while (Date.now() < deadline) {
        const grant = await client.acquire('bench', { ttlMs: 1000, timeoutMs: 5000 });
        ops++;
        if (grant) {
          await client.release(grant);
          ops++;
        }
      }
      await client.close();
      return ops;
    },
  };
}

// A client of the process floor (`--raw-client I NODES`): says "ready" once connected, reads
// the deadline, prints its count. Connecting and starting are outside the count.
const childAt = process.argv.indexOf('--raw-client');
if (childAt >= 0) {
  const [i, nodes] = process.argv.slice(childAt + 1);
  const client = await rawClient(JSON.parse(nodes as string), Number(i));
  console.log('ready');
  const [deadline] = (await once(process.stdin, 'data')) as [Buffer];
  console.log(await client.loop(Number(deadline.toString())));
  process.exit(0);
}

await ensureEngine();
await ensureImage({ build: true, log: console.error });

/** Operations per second of CONCURRENCY raw loops: in this process, or one process each. */
async function raw(inProcesses: boolean): Promise<number> {
  const runId = `bench${randomBytes(3).toString('hex')}`;
  const children: ChildProcess[] = [];
  try {
    const cluster = await startCluster(runId, redisBackend.nodeSpecs({}));
    const nodes = cluster.nodes.map((n) => ({ name: n.name, ip: n.ip }));
    const clients = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) => (inProcesses ? rawChild(nodes, i, children) : rawClient(nodes, i))),
    );
    const deadline = Date.now() + SECONDS * 1000;
    const counts = await Promise.all(clients.map((c) => c.loop(deadline)));
    return counts.reduce((a, b) => a + b, 0) / SECONDS;
  } finally {
    // A child still waiting for its deadline (another failed first) would outlive the bench.
    for (const child of children) if (child.exitCode === null) child.kill();
    await removeResources({ runId });
  }
}

/** rawClient in a child process of its own, added to `children`. */
async function rawChild(
  nodes: NodeAddress[],
  i: number,
  children: ChildProcess[],
): Promise<{ loop(deadline: number): Promise<number> }> {
  const args = [process.argv[1] as string, '--raw-client', String(i), JSON.stringify(nodes)];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error(`raw client ${i} ended early`);
    return line.value;
  };
  await next(); // ready
  return {
    async loop(deadline) {
      child.stdin.end(String(deadline));
      return Number(await next());
    },
  };
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

const rounds: { raw: number; processes: number; recorded: number }[] = [];
console.log(`${ROUNDS} rounds of raw, raw in processes, then recorded, ${CONCURRENCY} clients, ${SECONDS} s each`);
console.log('round   raw ops/s   raw, a process each   recorded ops/s   recorded/raw   recorded/processes');
for (let i = 1; i <= ROUNDS; i++) {
  const r = await raw(false);
  const p = await raw(true);
  const rec = await recorded();
  rounds.push({ raw: r, processes: p, recorded: rec });
  console.log(
    `${String(i).padStart(5)}   ${r.toFixed(0).padStart(9)}   ${p.toFixed(0).padStart(19)}   ${rec.toFixed(0).padStart(14)}   ${pct(rec / r).padStart(12)}   ${pct(rec / p).padStart(18)}`,
  );
}
/** The median of a ratio over the rounds, and its spread. */
function summary(ratio: (x: (typeof rounds)[number]) => number): { median: number; text: string } {
  const xs = rounds.map(ratio).sort((a, b) => a - b);
  const median = nearestRank(xs, 0.5);
  return { median, text: `${pct(median)} (spread ${pct(xs[0] ?? Number.NaN)} to ${pct(xs.at(-1) ?? Number.NaN)})` };
}
const overRaw = summary((x) => x.recorded / x.raw);
const overProcesses = summary((x) => x.recorded / x.processes);
const shape = summary((x) => x.processes / x.raw);
console.log(`median recorded/raw: ${overRaw.text}; goal: at least 90% -> ${overRaw.median >= 0.9 ? 'met' : 'NOT met'}`);
console.log(`median raw in processes/raw (the machine's cost of a process per client): ${shape.text}`);
console.log(
  `median recorded/raw in processes (what recording adds): ${overProcesses.text}; at least 90% -> ${overProcesses.median >= 0.9 ? 'met' : 'NOT met'}`,
);

function pct(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}
