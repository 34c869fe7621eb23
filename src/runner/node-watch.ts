/**
 * Lock nodes that died or restarted outside the nemesis. A node killed from outside (a
 * `docker kill`, the OOM killer) while the run goes on leaves a run that did not test what
 * was asked: most acquires fail at once, nothing overlaps, and without this the verdict
 * read valid. The state of each lock node at the start of the workload is kept; at its end
 * every node must be running, and started no later than then, unless kill-node restarted
 * it (the run's schedule says so), and still on the run's network: no fault of the run
 * detaches a node (partitions are iptables rules inside it), so one cut off with `docker
 * network disconnect` answered nobody, and the verdict read valid with "no fault in effect".
 */
import type { NodeHandle, NodeState } from '../cluster/cluster.js';
import type { ScheduledFault } from '../nemesis/schedule.js';
import type { RunCondition } from '../run-data/conditions.js';

export class NodeWatch {
  private constructor(private readonly started: Map<NodeHandle, NodeState | undefined>) {}

  /** The lock nodes' state now, at the start of the workload. */
  static async begin(nodes: readonly NodeHandle[]): Promise<NodeWatch> {
    const states = await Promise.all(nodes.map((n) => n.state().catch(() => undefined)));
    return new NodeWatch(new Map(nodes.map((n, i) => [n, states[i]])));
  }

  /** A condition for each node that is not running, or restarted without the nemesis. */
  async lost(applied: readonly ScheduledFault[]): Promise<RunCondition[]> {
    const killed = restartedByNemesis(applied);
    const conditions: RunCondition[] = [];
    for (const [node, before] of this.started) {
      const now = await node.state().catch(() => undefined);
      if (!now?.running) {
        const how = now ? `exited with code ${now.exitCode}` : 'is gone';
        conditions.push(
          nodeLost(
            killed.has(node.name)
              ? `lock node ${node.name} is down after the run (${how}): kill-node took it down and its start did not bring it back`
              : `lock node ${node.name} ${how}, and no fault of the run took it down`,
          ),
        );
      } else if (now.onNetwork === false) {
        conditions.push(
          nodeLost(
            `lock node ${node.name} is cut off from the run's network (a docker network disconnect?), and no fault of the run did it`,
          ),
        );
      } else if (before && now.startedAt !== before.startedAt && !killed.has(node.name)) {
        conditions.push(
          nodeLost(`lock node ${node.name} restarted at ${now.startedAt}, and no fault of the run restarted it`),
        );
      }
    }
    return conditions;
  }
}

const nodeLost = (message: string): RunCondition => ({ kind: 'node-lost', message });

/** The nodes kill-node took down (and so restarted), from the faults the run applied. */
function restartedByNemesis(applied: readonly ScheduledFault[]): Set<string> {
  const names = new Set<string>();
  for (const fault of applied) {
    if (fault.kind !== 'kill-node') continue;
    const nodes = (fault.did as { nodes?: unknown } | undefined)?.nodes;
    if (Array.isArray(nodes)) for (const n of nodes) names.add(String(n));
  }
  return names;
}
