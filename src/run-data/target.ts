/**
 * A run on a target (--target): the inventory's nodes take the place of the lock nodes the
 * backend would start, each with the backend's readiness check, and every fault of the run
 * is checked against every node's control channel before anything starts. A fault a node
 * cannot take is one UserError line that names the node and why.
 */
import { clockWarpSupport } from '../cluster/clock-warp.js';
import type { NodeSpec } from '../cluster/cluster.js';
import type { Fault } from '../nemesis/index.js';
import { checkChannelFiles, type Inventory, type NodeNeed, type TargetNode } from '../target/inventory.js';
import { runnerClockHelper } from '../target/ssh-clock.js';
import type { Ready } from '../target/target-node.js';
import { UserError } from '../util/errors.js';
import type { TestConfig } from './parameters.js';

export interface ResolvedTarget {
  inventory: Inventory;
  /** The backend's readiness, one per inventory node, in order. */
  ready: Ready[];
  /** What the run's faults will do on the nodes: checked on each node as the run starts. */
  needs: ReadonlySet<NodeNeed>;
}

/** The client-side fault kinds, for the refusal's words. */
const CLIENT_SIDE = 'client-pause, client-kill, client-clock, latency, partition:clients, wire';

/** Why a node cannot take a fault that needs `need`, or undefined when it can. */
function cannot(node: TargetNode, need: NodeNeed): string | undefined {
  const c = node.control;
  if (c.kind === 'none')
    return `node ${node.name} has no control channel (a service reached only as a client takes client-side faults: ${CLIENT_SIDE}): give it ssh: or docker:, or choose a client-side fault`;
  if (need === 'clock') return clockCannot(node);
  if (c.kind === 'docker') return undefined;
  if (need === 'process' && node.commands.process === undefined)
    return `node ${node.name} has no commands.process: name a command that prints the service's pids ("pgrep -x my-lockd")`;
  if (need === 'restart' && node.commands.start === undefined)
    return `node ${node.name} has no commands.start: name the command that starts the service again after the kill ("systemctl start etcd")`;
  return undefined;
}

/**
 * Why node-clock cannot warp a node's clock from what this machine knows (the host's own
 * checks come as the run starts): a container of this engine is warped from here, by its
 * host pids; a host over SSH takes this machine's helper.
 */
function clockCannot(node: TargetNode): string | undefined {
  const c = node.control;
  if (c.kind === 'docker') {
    const support = clockWarpSupport();
    return support.ok
      ? undefined
      : `node ${node.name} is container ${c.container} of this engine, whose clock node-clock warps from this machine, and ${support.why}: run lockchaos as root on the engine's host, or choose clock (Redis TTLs) or a client-side fault`;
  }
  if (c.kind !== 'ssh') return undefined;
  const helper = runnerClockHelper();
  return 'why' in helper ? `node ${node.name}: ${helper.why}` : undefined;
}

/** Backends whose nodes agree by majority: an even count tolerates no more failures than one fewer. */
const MAJORITY = new Set(['etcd', 'zookeeper']);

/**
 * What a reader of a run on this target should know before it starts, one line each (on
 * stderr, and in --dry-run's listing): nothing wrong enough to refuse, but not as it seems.
 */
export function targetNotes(backend: string, inventory: Inventory): string[] {
  const n = inventory.nodes.length;
  if (!MAJORITY.has(backend) || n % 2 !== 0) return [];
  return [
    `note: --target ${inventory.path}: ${n} ${backend} nodes need ${n / 2 + 1} for a majority: it survives ${(n - 2) / 2} node failure${n === 4 ? '' : 's'}, no more than ${n - 1} would (list an odd number of nodes unless that is what is tested)`,
  ];
}

export function resolveTarget(
  inventory: Inventory,
  lockSpecs: readonly NodeSpec[],
  faults: readonly Fault[],
  c: Pick<TestConfig, 'backend' | 'loseData' | 'target'>,
): ResolvedTarget {
  const file = c.target;
  const lock = lockSpecs.filter((s) => s.role === 'node');
  if (lock.length !== inventory.nodes.length) {
    throw new UserError(
      `--target ${file} names ${inventory.nodes.length} node${inventory.nodes.length === 1 ? '' : 's'}; backend ${c.backend} runs ${lock.length}: list ${lock.length} in the inventory`,
    );
  }
  checkChannelFiles(inventory);
  const needs = new Set<NodeNeed>();
  for (const f of faults) {
    if (f.module.notOnTargets)
      throw new UserError(`--nemesis ${f.spec.kind}:${f.spec.aim} on --target ${file}: ${f.module.notOnTargets}`);
    const wanted = f.module.nodeNeeds?.(f.spec) ?? [];
    for (const need of wanted) {
      needs.add(need);
      for (const node of inventory.nodes) {
        const why = cannot(node, need);
        if (why) throw new UserError(`--nemesis ${f.spec.kind}:${f.spec.aim} on --target ${file}: ${why}`);
      }
    }
  }
  if (c.loseData && faults.some((f) => f.spec.kind === 'kill-node')) {
    throw new UserError(
      `--lose-data on --target ${file}: lockchaos wipes only the data of nodes it started; leave --lose-data out`,
    );
  }
  return { inventory, ready: lock.map((s) => s.ready), needs };
}
