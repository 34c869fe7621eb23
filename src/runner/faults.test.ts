/**
 * A run's faults without Docker: the context the nemeses are built from, one schedule per
 * kind (drawn or given), the schedule handed back, the heal, and the per-client proxies.
 */
import { describe, expect, it } from 'vitest';
import type { Backend } from '../backends/backend.js';
import type { Cluster, NodeHandle } from '../cluster/cluster.js';
import { DATASTORE_NODE } from '../datastore/datastore.js';
import type { UnindexedOp } from '../history/recorder.js';
import {
  type FaultSpec,
  type Nemesis,
  type NemesisClients,
  type NemesisContext,
  resolveFaults,
} from '../nemesis/index.js';
import type { FaultPlan, FaultStart } from '../nemesis/nemesis.js';
import type { ScheduledFault } from '../nemesis/schedule.js';
import { DEFAULTS, type TestConfig } from '../run-data/config.js';
import { monotonicNow, sleep } from '../util/monotonic-clock.js';
import { Rng } from '../util/rng.js';
import { RunFaults } from './faults.js';

/** A nemesis that draws a node as the real ones do, and does nothing; its heal may fail. */
class FakeNemesis implements Nemesis {
  healed = 0;
  constructor(
    readonly kind: string,
    private readonly healFails = false,
  ) {}
  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = plan?.durationMs ?? Math.round(rng.uniform(5, 15));
    return { value: { nodes: [rng.pick(['n1', 'n2'])], ms: durationMs }, durationMs };
  }
  async stop() {
    return null;
  }
  async healAll() {
    this.healed++;
    if (this.healFails) throw new Error('node gone');
  }
}

const node = (name: string, role: 'node' | 'store', port: number) =>
  ({ name, role, ip: '127.0.0.1', port }) as NodeHandle;
const cluster: Cluster = {
  runId: 'r',
  networkName: 'net',
  nodes: [node('n1', 'node', 7001), node('n2', 'node', 7002), node(DATASTORE_NODE, 'store', 7009)],
  node: (name) => cluster.nodes.find((n) => n.name === name) as NodeHandle,
  collectLogs: async () => ({}),
};
const backend = {
  name: 'fake',
  capabilities: { inAcquirePausePoint: 'p' },
  leader: async () => 'n2',
} as unknown as Backend;
const clients = {} as NemesisClients;

function faults(config: Partial<TestConfig>, healFails = false) {
  const built: { specs: FaultSpec[]; ctx: NemesisContext; nemeses: FakeNemesis[] }[] = [];
  const full: TestConfig = { ...DEFAULTS, name: 't', seed: 1, nemesisIntervalS: 0.02, ...config };
  const resolved = { config: full, backend, faults: resolveFaults(full.nemesis, backend, 2) };
  const run = new RunFaults(resolved, cluster, 'run-1', (faults, ctx) => {
    const specs = faults.map((f) => f.spec);
    const nemeses = specs.map((s) => new FakeNemesis(s.kind, healFails && s.kind === 'loss'));
    built.push({ specs, ctx, nemeses });
    return nemeses;
  });
  return { run, built };
}

/** Runs the faults for forMs; the ops they recorded. */
async function runFor(run: RunFaults, forMs: number): Promise<UnindexedOp[]> {
  const ops: UnindexedOp[] = [];
  const stop = new AbortController();
  const done = run.run({
    clients,
    rng: new Rng(1),
    origin: monotonicNow(),
    record: (op) => ops.push(op),
    signal: stop.signal,
  });
  await sleep(forMs);
  stop.abort();
  await done;
  return ops;
}

describe("a run's faults", () => {
  it('builds the nemeses from one context: the lock nodes, the timing, the clients, the leader', async () => {
    const { run, built } = faults({ nemesis: 'pause-node:leader,loss', ttlMs: 700, pauseTtl: 1.5, loseData: true });
    await runFor(run, 0);
    expect(built).toHaveLength(1);
    const { specs, ctx } = built[0] as (typeof built)[number];
    expect(specs.map((s) => `${s.kind}:${s.aim}`)).toEqual(['pause-node:leader', 'loss:one']);
    expect(ctx.runId).toBe('run-1');
    expect(ctx.nodes.map((n) => n.name)).toEqual(['n1', 'n2']);
    expect(ctx.timing).toMatchObject({ nemesisIntervalS: 0.02, ttlMs: 700, pauseTtl: 1.5 });
    expect(ctx.loseData).toBe(true);
    expect(ctx.clients).toBe(clients);
    expect(ctx.routes).toEqual([]);
    expect(await ctx.leader?.()).toBe('n2');
  });

  it('runs each kind on its own schedule until the signal, and hands back what it drew, in order of start', async () => {
    const { run } = faults({ nemesis: 'pause-node,loss' });
    const ops = await runFor(run, 250);
    const started = (kind: string) => ops.filter((o) => o.f === `start-${kind}` && o.type === 'ok').length;
    expect(started('pause-node')).toBeGreaterThan(1);
    expect(started('loss')).toBeGreaterThan(1);
    expect(ops.every((o) => o.process === 'nemesis')).toBe(true);
    const schedule = run.schedule();
    expect(schedule).toHaveLength(started('pause-node') + started('loss'));
    expect(schedule.map((f) => f.atMs)).toEqual(schedule.map((f) => f.atMs).sort((a, b) => a - b));
    expect(schedule.every((f) => f.did !== undefined)).toBe(true);
  });

  it('applies a given schedule by kind, and hands it back with what each applied fault did', async () => {
    const given: ScheduledFault[] = [
      { kind: 'loss', atMs: 10, durationMs: 5, seed: 1, did: 'from the file' },
      { kind: 'pause-node', atMs: 30, durationMs: 5, seed: 2 },
      { kind: 'loss', atMs: 60_000, durationMs: 5, seed: 3 },
    ];
    const { run } = faults({ nemesis: 'pause-node,loss', schedule: given });
    const ops = await runFor(run, 200);
    expect(ops.filter((o) => o.type === 'ok' && String(o.f).startsWith('start-')).map((o) => o.f)).toEqual([
      'start-loss',
      'start-pause-node',
    ]);
    const back = run.schedule();
    expect(back.map(({ did: _, ...f }) => f)).toEqual(given.map(({ did: _, ...f }) => f));
    expect(back[0]?.did).toEqual({ nodes: [expect.any(String)], ms: 5 });
    expect(back[1]?.did).toEqual({ nodes: [expect.any(String)], ms: 5 });
    expect(back[2]).not.toHaveProperty('did'); // past the end: not applied, and the file's did is not kept
  });

  it('heals every nemesis, also when one heal fails', async () => {
    const { run, built } = faults({ nemesis: 'loss,pause-node' }, true);
    await runFor(run, 0);
    await expect(run.healAll()).resolves.toBeUndefined();
    expect(built[0]?.nemeses.map((n) => n.healed)).toEqual([1, 1]);
  });

  it('reaches the nodes directly unless a fault needs per-client proxies', async () => {
    const { run } = faults({ nemesis: 'pause-node,partition' });
    await run.openProxies();
    expect(run.addressesFor(0)).toEqual({
      nodes: [
        { name: 'n1', ip: '127.0.0.1', port: 7001 },
        { name: 'n2', ip: '127.0.0.1', port: 7002 },
      ],
      store: { name: DATASTORE_NODE, ip: '127.0.0.1', port: 7009 },
    });
  });

  it('with latency, each client reaches every node and the store through its own proxy', async () => {
    const { run, built } = faults({ nemesis: 'latency', concurrency: 2 });
    await run.openProxies();
    try {
      const a = run.addressesFor(0);
      const b = run.addressesFor(1);
      for (const [address, port] of [
        [a.nodes[0], 7001],
        [a.store, 7009],
        [b.nodes[1], 7002],
      ] as const) {
        expect(address).toMatchObject({ ip: '127.0.0.1', direct: { ip: '127.0.0.1', port } });
      }
      const ports = [...a.nodes, a.store, ...b.nodes, b.store].map((x) => x.port);
      expect(new Set(ports).size).toBe(6);
      await runFor(run, 0);
      expect(built[0]?.ctx.routes.map((r) => `${r.client}>${r.node}`)).toEqual([
        '0>n1',
        '0>n2',
        '0>store',
        '1>n1',
        '1>n2',
        '1>store',
      ]);
    } finally {
      await run.close();
    }
  });
});
