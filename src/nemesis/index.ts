/**
 * Builds a run's nemeses from its --nemesis spec. Each fault kind runs on its own seeded
 * schedule (schedule.ts), so `pause-node,partition` flips both independently.
 */
import type { Backend, BackendCapabilities } from '../backends/backend.js';
import type { NodeHandle } from '../cluster/cluster.js';
import { UserError } from '../util/errors.js';
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
} from './node-faults.js';
import { ClientPartition, Latency, type ProxyRoute } from './proxy-faults.js';
import { FAULT_KINDS, type FaultSpec, parseNemesisSpec } from './spec.js';

export { type FaultSpec, parseNemesisSpec } from './spec.js';

/** Whether clients must reach the servers through per-client proxies. */
export const needsProxies = (specs: FaultSpec[]) =>
  specs.some((s) => s.kind === 'latency' || (s.kind === 'partition' && s.target.startsWith('clients')));

/**
 * The capability a fault kind needs of the backend, by what its spec asks; undefined when
 * it needs none (pause, kill, partition and loss work on any image: see cluster/netns.ts).
 */
function neededCapability(s: FaultSpec, backend: Backend): string | undefined {
  const caps = backend.capabilities ?? {};
  if (s.kind === 'clock' && !caps.clock) return "clock (how a node's clock moving is applied)";
  if (s.kind === 'clock' && s.target === 'bridge' && !caps.quorum) return 'quorum (grants on a bare majority of nodes)';
  if ((s.kind === 'client-clock' || s.target === 'in-acquire') && !caps.inAcquirePausePoint)
    return 'inAcquirePausePoint (a point inside acquire, after the votes, before the elapsed-time check)';
  if ((s.target === 'leader' || s.target === 'isolate-leader') && !backend.leader)
    return 'leader (which node leads now)';
  return undefined;
}

/** Problems a spec has with a given backend, found before any container starts. */
export function checkSpecForBackend(spec: string, backend: Backend, nodeCount: number): FaultSpec[] {
  const specs = parseNemesisSpec(spec);
  for (const s of specs) {
    const needed = neededCapability(s, backend);
    const shown = s.target === FAULT_KINDS[s.kind].targets[0] ? s.kind : `${s.kind}:${s.target}`;
    if (needed) {
      throw new UserError(
        `--nemesis ${shown} needs the backend capability ${needed}, which ${backend.name} does not declare: choose another fault or backend (lockchaos scenarios lists what fits)`,
      );
    }
    if (s.kind === 'partition' && s.target === 'clients-majorities' && nodeCount < 3) {
      throw new UserError(
        `--nemesis partition:clients-majorities needs at least 3 nodes; ${backend.name} has ${nodeCount}`,
      );
    }
    if (s.kind === 'partition' && !s.target.startsWith('clients') && nodeCount < 2) {
      throw new UserError(
        `--nemesis partition:${s.target} needs at least 2 nodes; ${backend.name} has ${nodeCount}: use partition:clients`,
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
  /** What the backend declared (checkSpecForBackend refused what it lacks). */
  capabilities: BackendCapabilities;
}

/** A declared capability, there because checkSpecForBackend made sure of it. */
function declared<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`unreachable: the backend declares no ${what} (checked before the run)`);
  return value;
}

export function buildNemeses(specs: FaultSpec[], w: NemesisWiring): Nemesis[] {
  const caps = w.capabilities;
  const clockNodes = (): NodeFaultContext => {
    const only = declared(caps.clock, 'clock').nodes;
    return only ? { ...w.node, nodes: w.node.nodes.filter((n) => only(n.name)) } : w.node;
  };
  const shift = () => declared(caps.clock, 'clock').shift;
  return specs.map((s) => {
    switch (s.kind) {
      case 'client-pause':
        return new ClientPause(
          w.clients,
          { intervalS: w.node.intervalS, ttlMs: w.node.ttlMs, pauseTtl: w.node.pauseTtl },
          2000,
          s.target === 'in-acquire' ? declared(caps.inAcquirePausePoint, 'in-acquire pause point') : undefined,
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
          declared(caps.inAcquirePausePoint, 'in-acquire pause point'),
          s.target as 'backward' | 'forward',
        );
      case 'clock':
        if (s.direction === 'strobe') return new ClockStrobe(clockNodes(), s.target, shift());
        return new ClockJump(clockNodes(), s.target, s.direction ?? 'forward', shift(), () => {
          if (!caps.quorum) return false;
          const quorum = caps.quorum(w.node.nodes.length);
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
