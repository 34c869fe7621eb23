/**
 * The nemesis wiring without Docker: which nemesis each spec builds, with what of the
 * run's context (the backend's declared capabilities, the clients, the proxies, the timing).
 */
import { describe, expect, it } from 'vitest';
import type { Backend, BackendCapabilities } from '../backends/backend.js';
import type { NodeHandle } from '../cluster/cluster.js';
import { sleep } from '../util/monotonic-clock.js';
import { Rng } from '../util/rng.js';
import { type NemesisClients, type NemesisContext, nodeFaultContext } from './context.js';
import { buildNemeses, needsProxies, resolveFaults } from './index.js';
import { ClientClockStep } from './kinds/client-clock.js';
import { ClientPause } from './kinds/client-pause.js';
import { ClockJump, ClockStrobe } from './kinds/clock.js';
import { FAULT_KIND_MODULES } from './kinds/index.js';
import { NodeKill } from './kinds/kill-node.js';
import { DelayTraffic } from './kinds/latency.js';
import { PacketLoss } from './kinds/loss.js';
import { ClientPartition, Partition } from './kinds/partition.js';
import { NodePause } from './kinds/pause-node.js';
import type { FaultStart } from './nemesis.js';
import type { ProxyRoute, TcpProxy } from './proxy.js';

const POINT = 'test:after-votes';

/** A run's context on three lock nodes and two clients through proxies, with everything declared. */
function context(capabilities?: BackendCapabilities) {
  const shifted: { node: string; ms: number }[] = [];
  const armed: { client: number; where: string }[] = [];
  const clients: NemesisClients = {
    holders: () => [1],
    pid: (c) => 1000 + c,
    pids: (c) => [1000 + c].filter((p): p is number => p !== undefined),
    process: (c) => 10 + c,
    grantedAt: () => undefined,
    count: () => 2,
    grant: () => ({ votes: 2 }),
    catchAtPoint: async (where) => {
      armed.push({ client: 1, where });
      return { client: 1, pids: [1001], resume: () => {} };
    },
    crash: () => false,
  };
  const proxy = () => ({
    delayMs: 0,
    cut: false,
    setCut(cut: boolean) {
      this.cut = cut;
    },
  });
  const nodes = ['n1', 'n2', 'n3'].map((name) => ({ name, role: 'node' }) as NodeHandle);
  const routes: ProxyRoute[] = [0, 1].flatMap((client) =>
    ['n1', 'n2', 'n3', 'store'].map((node) => ({ client, node, proxy: proxy() as unknown as TcpProxy })),
  );
  const ctx: NemesisContext = {
    ...nodeFaultContext('t', nodes, { nemesisIntervalS: 2, ttlMs: 1000 }),
    clients,
    routes,
  };
  const backend = {
    name: 'test',
    leader: async () => 'n1',
    capabilities: capabilities ?? {
      clock: {
        how: 'test',
        shift: async (node: NodeHandle, ms: number) => {
          shifted.push({ node: node.name, ms });
          return [0, 1];
        },
        nodes: (name: string) => name !== 'n3',
      },
      inAcquirePausePoint: POINT,
      quorum: (n: number) => Math.floor(n / 2) + 1,
    },
  } as unknown as Backend;
  return { ctx, backend, shifted, armed };
}

const build = (spec: string, c = context()) => buildNemeses(resolveFaults(spec, c.backend, 3), c.ctx);

describe('the nemesis wiring', () => {
  it.each([
    ['client-pause', ClientPause],
    ['client-pause:in-acquire', ClientPause],
    ['client-clock', ClientClockStep],
    ['pause-node', NodePause],
    ['kill-node:leader', NodeKill],
    ['loss', PacketLoss],
    ['partition', Partition],
    ['partition:isolate-leader', Partition],
    ['partition:clients', ClientPartition],
    ['partition:clients-majorities', ClientPartition],
    ['latency:store', DelayTraffic],
    ['clock', ClockJump],
    ['clock:one:backward', ClockJump],
    ['clock:all:strobe', ClockStrobe],
  ])('%s builds a %o', (spec, type) => {
    const [nemesis] = build(spec);
    expect(nemesis).toBeInstanceOf(type);
    expect(nemesis?.kind).toBe(spec.split(':')[0]);
  });

  it('builds one nemesis per kind, in the order of the spec', () => {
    expect(build('latency,pause-node,client-pause').map((n) => n.kind)).toEqual([
      'latency',
      'pause-node',
      'client-pause',
    ]);
    expect(build('none')).toEqual([]);
  });

  it('every registered kind builds a nemesis of its own name on its default target', () => {
    for (const kind of FAULT_KIND_MODULES) expect(build(kind.name).map((n) => n.kind)).toEqual([kind.name]);
  });

  it('asks for per-client proxies only for the kinds that cut or delay clients', () => {
    const proxies = (spec: string) => needsProxies(resolveFaults(spec, context().backend, 3));
    expect(proxies('latency')).toBe(true);
    expect(proxies('pause-node,partition:clients')).toBe(true);
    expect(proxies('partition:clients-majorities')).toBe(true);
    expect(proxies('partition,loss,kill-node,clock,client-pause,client-clock')).toBe(false);
  });

  it('in-acquire stops a client at the point the backend declares', async () => {
    const c = context();
    const { armed } = c;
    const [pause] = build('client-pause:in-acquire', c);
    const [step] = build('client-clock', c);
    await pause?.start(new Rng(1));
    await step?.start(new Rng(2));
    expect(armed.map((a) => a.where)).toEqual([POINT, POINT]);
  });

  it('moves clocks only on the nodes the backend declares for clock faults, by about the TTL', async () => {
    const c = context();
    const { shifted } = c;
    const started = (await build('clock:all', c)[0]?.start(new Rng(3))) as FaultStart;
    expect(shifted.map((s) => s.node)).toEqual(['n1', 'n2']);
    const { jumpMs } = started.value as { jumpMs: number };
    expect(jumpMs).toBeGreaterThanOrEqual(500);
    expect(jumpMs).toBeLessThanOrEqual(1500);
    expect(started.durationMs).toBeGreaterThanOrEqual(1000); // 0.5-1.5x the 2 s interval
    expect(started.durationMs).toBeLessThanOrEqual(3000);
  });

  it('latency delays through the proxies by about the TTL, and heals', async () => {
    const c = context();
    const { ctx } = c;
    const latency = build('latency', c)[0] as DelayTraffic;
    const started = (await latency.start(new Rng(4))) as FaultStart;
    const { delayMs } = started.value as { delayMs: number };
    expect(delayMs).toBeGreaterThanOrEqual(500);
    expect(delayMs).toBeLessThanOrEqual(1500);
    const delayed = ctx.routes.filter((r) => r.proxy.delayMs > 0).map((r) => `${r.client}>${r.node}`);
    expect(delayed).toEqual(['0>n1', '0>n2', '0>n3', '1>n1', '1>n2', '1>n3']);
    await latency.healAll();
    expect(ctx.routes.every((r) => r.proxy.delayMs === 0)).toBe(true);
  });

  it('clients-majorities cuts every client from the majority it does not reach, and names the bridge', async () => {
    const c = context();
    const { ctx } = c;
    const split = build('partition:clients-majorities', c)[0] as ClientPartition;
    const started = (await split.start(new Rng(5))) as FaultStart;
    const { bridge, groups } = started.value as { bridge: string; groups: { clients: number[]; nodes: string[] }[] };
    expect(ctx.split).toEqual({ bridge });
    for (const g of groups) {
      expect(g.nodes).toContain(bridge);
      expect(g.nodes).toHaveLength(2);
    }
    const cut = (r: ProxyRoute) => (r.proxy as unknown as { cut: boolean }).cut;
    for (const r of ctx.routes) {
      const reaches = groups.find((g) => g.clients.includes(r.client))?.nodes ?? [];
      expect(cut(r), `${r.client}>${r.node}`).toBe(r.node !== 'store' && !reaches.includes(r.node));
    }
    await split.stop();
    expect(ctx.split).toBeUndefined();
    expect(ctx.routes.some(cut)).toBe(false);
  });

  it('a split clock:bridge jumped under a holder stands until that hold ends', async () => {
    // Every node's clock can jump here: the bridge is whichever node the split drew.
    const shift = async () => [0, 1] as [number, number];
    const c = context({ clock: { how: 'test', shift }, quorum: (n: number) => Math.floor(n / 2) + 1 });
    let holders = [1];
    c.ctx.clients = { ...c.ctx.clients, holders: () => holders, grantedAt: () => 42 };
    const nemeses = build('partition:clients-majorities,clock:bridge', c);
    const split = nemeses.find((n) => n instanceof ClientPartition) as ClientPartition;
    const jump = nemeses.find((n) => n instanceof ClockJump) as ClockJump;
    const { bridge } = ((await split.start(new Rng(5))) as FaultStart).value as { bridge: string };
    const jumped = ((await jump.start(new Rng(6))) as FaultStart).value as {
      nodes: string[];
      bareMajorityHeld: boolean;
    };
    expect(jumped).toMatchObject({ nodes: [bridge], bareMajorityHeld: true });
    const cut = (r: ProxyRoute) => (r.proxy as unknown as { cut: boolean }).cut;
    let healed = false;
    const stopped = split.stop().then((v) => {
      healed = true;
      return v;
    });
    await sleep(150);
    expect(healed).toBe(false);
    expect(c.ctx.routes.some(cut)).toBe(true);
    holders = [];
    expect(await stopped).toMatchObject({ keptForHolderMs: expect.any(Number) });
    expect(c.ctx.split).toBeUndefined();
    expect(c.ctx.routes.some(cut)).toBe(false);
  });
});
