/**
 * Builds a run's nemeses from its --nemesis spec. Each fault kind runs on its own seeded
 * schedule (schedule.ts), so `pause-node,partition` flips both independently.
 */
import { UserError } from '../cli/errors.js';
import type { NodeHandle } from '../cluster/cluster.js';
import { ClientClockStep, ClientPause, type PausableClients } from './client-pause.js';
import type { Nemesis } from './nemesis.js';
import {
  ClockJump,
  ClockStrobe,
  type NodeFaultContext,
  NodeKill,
  NodePause,
  PacketLoss,
  Partition,
  type ShiftTtls,
} from './node-faults.js';
import { ClientPartition, Latency, type ProxyRoute } from './proxy-faults.js';
import { type FaultSpec, parseNemesisSpec } from './spec.js';

export { type FaultSpec, parseNemesisSpec } from './spec.js';

/** Whether clients must reach the servers through per-client proxies. */
export const needsProxies = (specs: FaultSpec[]) =>
  specs.some((s) => s.kind === 'latency' || (s.kind === 'partition' && s.target.startsWith('clients')));

/** Problems a spec has with a given backend, found before any container starts. */
export function checkSpecForBackend(spec: string, backend: string, nodeCount: number): FaultSpec[] {
  const specs = parseNemesisSpec(spec);
  for (const s of specs) {
    if (s.kind === 'clock' && backend !== 'redis' && backend !== 'redlock') {
      throw new UserError(`--nemesis clock applies to Redis nodes (redis, redlock), not ${backend}`);
    }
    if (s.kind === 'client-pause' && s.target === 'in-acquire' && backend !== 'redlock') {
      throw new UserError(`--nemesis client-pause:in-acquire pauses inside Redlock's acquire: use --backend redlock`);
    }
    if (s.kind === 'client-clock' && backend !== 'redlock') {
      throw new UserError(
        `--nemesis client-clock steps the clock of Redlock's elapsed-time check: use --backend redlock (${backend} does not time its grants on the client)`,
      );
    }
    if (s.kind === 'partition' && s.target === 'clients-majorities' && nodeCount < 3) {
      throw new UserError(`--nemesis partition:clients-majorities needs at least 3 nodes; ${backend} has ${nodeCount}`);
    }
    if (s.kind === 'partition' && !s.target.startsWith('clients') && nodeCount < 2) {
      throw new UserError(
        `--nemesis partition:${s.target} needs at least 2 nodes; ${backend} has ${nodeCount}: use partition:clients`,
      );
    }
  }
  return specs;
}

export interface NemesisWiring {
  node: NodeFaultContext;
  clients: PausableClients;
  routes: ProxyRoute[];
  concurrency: number;
  shiftTtls: ShiftTtls;
}

export function buildNemeses(specs: FaultSpec[], w: NemesisWiring): Nemesis[] {
  return specs.map((s) => {
    switch (s.kind) {
      case 'client-pause':
        return new ClientPause(
          w.clients,
          { intervalS: w.node.intervalS, ttlMs: w.node.ttlMs },
          2000,
          s.target as 'holder' | 'in-acquire',
        );
      case 'pause-node':
        return new NodePause(w.node, s.target);
      case 'kill-node':
        return new NodeKill(w.node, s.target);
      case 'partition':
        return s.target.startsWith('clients')
          ? new ClientPartition(w.routes, w.concurrency, w.node, s.target as 'clients' | 'clients-majorities')
          : new Partition(w.node, s.target);
      case 'loss':
        return new PacketLoss(w.node, s.target);
      case 'latency':
        return new Latency(w.routes, s.target, w.node.ttlMs, w.node.intervalS, () => w.clients.holders());
      case 'client-clock':
        return new ClientClockStep(
          w.clients,
          { intervalS: w.node.intervalS, ttlMs: w.node.ttlMs },
          s.target as 'backward' | 'forward',
        );
      case 'clock':
        if (s.direction === 'strobe') return new ClockStrobe(w.node, s.target, w.shiftTtls);
        return new ClockJump(w.node, s.target, s.direction ?? 'forward', w.shiftTtls, () => {
          const quorum = Math.floor(w.node.nodes.length / 2) + 1;
          return w.clients
            .holders()
            .some((c) => (w.clients.grant(c) as { votes?: number } | undefined)?.votes === quorum);
        });
      default:
        throw new Error(`no nemesis for fault kind ${JSON.stringify(s.kind satisfies never)}`);
    }
  });
}

export type { Nemesis, NodeHandle };
