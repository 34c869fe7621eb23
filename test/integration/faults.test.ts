/**
 * Every fault must really take effect on real containers, and heal: a partitioned node
 * cannot reach its peers, a killed node is gone until restarted (with or without its
 * data), packet loss rules appear and go, a clock jump shortens TTLs, a proxy delays or
 * cuts one client's traffic.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisClient, redisNodeSpec, SHIFT_TTLS } from '../../src/backends/redis-node.js';
import { type Cluster, type NodeHandle, startCluster } from '../../src/cluster/cluster.js';
import { removeResources } from '../../src/cluster/remove-resources.js';
import { type NodeFaultContext, nodeFaultContext } from '../../src/nemesis/context.js';
import { ClockJump, ClockStrobe } from '../../src/nemesis/kinds/clock.js';
import { NodeKill } from '../../src/nemesis/kinds/kill-node.js';
import { DelayTraffic } from '../../src/nemesis/kinds/latency.js';
import { PacketLoss } from '../../src/nemesis/kinds/loss.js';
import { ClientPartition, Partition } from '../../src/nemesis/kinds/partition.js';
import type { FaultStart } from '../../src/nemesis/nemesis.js';
import { type ProxyRoute, TcpProxy } from '../../src/nemesis/proxy.js';
import { sleep } from '../../src/util/monotonic-clock.js';
import { Rng } from '../../src/util/rng.js';
import { requireEngine } from './support.js';

const skip = await requireEngine();

/** Can `from` reach `to`'s Redis? (from inside from's network namespace) */
async function reaches(from: NodeHandle, to: NodeHandle): Promise<boolean> {
  const r = await from.exec(['timeout', '2', 'redis-cli', '-h', to.ip, 'ping']);
  return r.exitCode === 0 && r.output.includes('PONG');
}

async function answers(ip: string, port = 6379): Promise<boolean> {
  try {
    const c = await redisClient(ip, 500, port);
    try {
      return (await c.ping()) === 'PONG';
    } finally {
      c.disconnect();
    }
  } catch {
    return false;
  }
}

describe.skipIf(skip)('faults on real containers', () => {
  const runId = `test${randomBytes(3).toString('hex')}`;
  let cluster: Cluster;
  let ctx: NodeFaultContext;
  const node = (name: string) => cluster.node(name);

  beforeAll(async () => {
    cluster = await startCluster(
      runId,
      ['r1', 'r2', 'r3'].map((n) => redisNodeSpec(n, 'node')),
    );
    ctx = nodeFaultContext(runId, cluster.nodes, { nemesisIntervalS: 1, ttlMs: 1000 });
  });
  afterAll(async () => {
    await removeResources({ runId });
  });

  it('partition: the sides cannot reach each other until healed', async () => {
    expect(await reaches(node('r1'), node('r3'))).toBe(true);
    const p = new Partition(ctx, 'isolate-one');
    const started = await p.start(new Rng(1));
    const drops = ((started as FaultStart).value as { drops: Record<string, string[]> }).drops;
    const lonely = Object.entries(drops).find(([, d]) => d.length === 2)?.[0] as string;
    const other = ['r1', 'r2', 'r3'].find((x) => x !== lonely) as string;
    const third = ['r1', 'r2', 'r3'].find((x) => x !== lonely && x !== other) as string;
    expect(await reaches(node(other), node(lonely))).toBe(false);
    expect(await reaches(node(lonely), node(other))).toBe(false);
    expect(await reaches(node(other), node(third))).toBe(true);
    await p.stop();
    expect(await reaches(node(other), node(lonely))).toBe(true);
    expect((await node(lonely).netExec(['iptables', '-S', 'INPUT'])).output).not.toContain(runId);
  });

  it('loss: a statistic DROP rule tagged with the run, removed on heal', async () => {
    const loss = new PacketLoss(ctx, 'one');
    const started = await loss.start(new Rng(2));
    const [name] = ((started as FaultStart).value as { nodes: string[] }).nodes;
    const rules = (await node(name as string).netExec(['iptables', '-S', 'INPUT'])).output;
    expect(rules).toMatch(/-m statistic --mode random --probability 0\.2\d* .*lockchaos-test.* -j DROP/);
    await loss.healAll();
    expect((await node(name as string).netExec(['iptables', '-S', 'INPUT'])).output).not.toContain('statistic');
  });

  it('kill-node: gone until restarted, back with its data (append-only file)', async () => {
    const r2 = node('r2');
    const c = await redisClient(r2.ip, 1000);
    await c.set('kept', 'yes');
    c.disconnect();
    const kill = new NodeKill({ ...ctx, nodes: [r2] }, 'one');
    await kill.start(new Rng(3));
    expect(ctx.unavailable.has('r2')).toBe(true);
    expect(await answers(r2.ip)).toBe(false);
    await kill.stop();
    expect(ctx.unavailable.has('r2')).toBe(false);
    const after = await redisClient(r2.ip, 1000);
    expect(await after.get('kept')).toBe('yes');
    after.disconnect();
  });

  it('kill-node with --lose-data: restarts empty', async () => {
    const r3 = node('r3');
    const c = await redisClient(r3.ip, 1000);
    await c.set('kept', 'yes');
    c.disconnect();
    const kill = new NodeKill({ ...ctx, nodes: [r3], loseData: true }, 'one');
    await kill.start(new Rng(4));
    expect(await answers(r3.ip)).toBe(false);
    await kill.stop();
    const after = await redisClient(r3.ip, 1000);
    expect(await after.get('kept')).toBeNull();
    after.disconnect();
  });

  it('clock: a forward jump shortens every TTL by the jump, and expires what it overtakes', async () => {
    const r1 = node('r1');
    const c = await redisClient(r1.ip, 1000);
    await c.set('long', 'x', 'PX', 60_000);
    await c.set('short', 'x', 'PX', 100);
    const shift = async (_node: NodeHandle, ms: number) => (await c.eval(SHIFT_TTLS, 0, ms, '*')) as [number, number];
    const jump = new ClockJump({ ...ctx, nodes: [r1] }, 'one', 'forward', shift);
    const started = await jump.start(new Rng(5));
    const { jumpMs } = (started as FaultStart).value as { jumpMs: number };
    expect(jumpMs).toBeGreaterThanOrEqual(500);
    expect(await c.exists('short')).toBe(0);
    const pttl = await c.pttl('long');
    expect(pttl).toBeLessThanOrEqual(60_000 - jumpMs);
    expect(pttl).toBeGreaterThan(60_000 - jumpMs - 1000);
    c.disconnect();
  });

  it('clock backward: a jump lengthens every TTL by the jump', async () => {
    const r2 = node('r2');
    const c = await redisClient(r2.ip, 1000);
    await c.set('held', 'x', 'PX', 1000);
    const shift = async (_node: NodeHandle, ms: number) => (await c.eval(SHIFT_TTLS, 0, ms, '*')) as [number, number];
    const jump = new ClockJump({ ...ctx, nodes: [r2] }, 'one', 'backward', shift);
    const started = await jump.start(new Rng(6));
    const { jumpMs, effects } = (started as FaultStart).value as { jumpMs: number; effects: Record<string, unknown> };
    expect(jumpMs).toBeLessThanOrEqual(-500);
    expect(effects.r2).toEqual({ expired: 0, shifted: 1 });
    expect(await c.pttl('held')).toBeGreaterThan(1000 - jumpMs - 200);
    c.disconnect();
  });

  it('clock strobe: flips ahead and back, expiring early what a flip overtakes, and ends where it began', async () => {
    const r3 = node('r3');
    const c = await redisClient(r3.ip, 1000);
    await c.set('long', 'x', 'PX', 60_000);
    await c.set('doomed', 'x', 'PX', 300);
    const shifts: { ms: number; expired: number }[] = [];
    const shift = async (_node: NodeHandle, ms: number) => {
      const answer = (await c.eval(SHIFT_TTLS, 0, ms, '*')) as [number, number];
      shifts.push({ ms, expired: answer[0] });
      return answer;
    };
    const strobe = new ClockStrobe({ ...ctx, nodes: [r3] }, 'one', shift);
    const t0 = Date.now();
    const started = (await strobe.start(new Rng(7))) as FaultStart;
    const { offsetMs, periodMs } = started.value as { offsetMs: number; periodMs: number };
    expect(offsetMs).toBeGreaterThanOrEqual(500);
    expect(periodMs).toBeGreaterThanOrEqual(50);
    await sleep(4 * periodMs + 100);
    // The first flip ahead, made at once, overtook the 300 ms key: it expired by the shift,
    // not by its own TTL.
    expect(shifts[0]).toEqual({ ms: offsetMs, expired: 1 });
    expect(await c.exists('doomed')).toBe(0);
    const stopped = (await strobe.stop()) as { flips: number; expired: number; missed: number };
    expect(stopped.flips).toBeGreaterThanOrEqual(4);
    expect(stopped.flips % 2).toBe(0); // every flip ahead came back
    expect(stopped.expired).toBeGreaterThanOrEqual(1);
    expect(stopped.missed).toBe(0);
    expect(shifts.reduce((sum, x) => sum + x.ms, 0)).toBe(0);
    // Back where it began: the long key lost only the time that really passed.
    const pttl = await c.pttl('long');
    expect(pttl).toBeLessThanOrEqual(60_000 - (Date.now() - t0) + 50);
    expect(pttl).toBeGreaterThan(60_000 - (Date.now() - t0) - 500);
    expect(await strobe.stop()).toBeNull();
    c.disconnect();
  });

  it("latency and client cuts: one client's proxy delays, then holds, its traffic", async () => {
    const r1 = node('r1');
    const proxy = new TcpProxy(r1.ip, r1.port);
    const port = await proxy.listen();
    const routes: ProxyRoute[] = [{ client: 0, node: 'r1', proxy }];
    const c = await redisClient('127.0.0.1', 5000, port);
    const timed = async () => {
      const t0 = performance.now();
      await c.ping();
      return performance.now() - t0;
    };
    expect(await timed()).toBeLessThan(200);
    const latency = new DelayTraffic(routes, 'nodes', { nemesisIntervalS: 1, ttlMs: 300 });
    const started = await latency.start(new Rng(6));
    const { delayMs } = (started as FaultStart).value as { delayMs: number };
    expect(await timed()).toBeGreaterThanOrEqual(2 * delayMs - 20); // both ways
    await latency.stop();
    expect(await timed()).toBeLessThan(200);

    const cut = new ClientPartition(routes, ctx, 'clients');
    await cut.start(new Rng(7));
    const pending = c.ping();
    const early = await Promise.race([
      pending.then(() => 'answered'),
      new Promise((r) => setTimeout(() => r('held'), 500)),
    ]);
    expect(early).toBe('held');
    await cut.stop();
    expect(await pending).toBe('PONG'); // held bytes flow once the cut heals
    c.disconnect();
    await proxy.close();
  });
});
