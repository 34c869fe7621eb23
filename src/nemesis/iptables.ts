/**
 * What partition and loss share: iptables DROP rules in the nodes' own network namespaces,
 * every rule tagged with the run id, so that a stop or a heal removes exactly ours.
 */
import type { NodeHandle } from '../cluster/cluster.js';
import type { Rng } from '../util/rng.js';
import type { NodeFaultContext } from './context.js';
import { type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from './nemesis.js';
import { mustNetExec, whenAvailable } from './nodes.js';

/** The comment on each of the run's rules. */
export const ruleTag = (runId: string) => `lockchaos-${runId}`;

/** The command that removes the run's rules from a node. */
export const removeRulesCommand = (runId: string) => [
  'bash',
  '-c',
  // iptables-save | drop our lines | iptables-restore: atomic, and leaves others' rules.
  `iptables-save | grep -v -- '${ruleTag(runId)}' | iptables-restore`,
];

async function removeTaggedRules(node: NodeHandle, runId: string) {
  await mustNetExec(node, removeRulesCommand(runId));
}

/**
 * A fault made of DROP rules on some nodes: a kind says which rules on which nodes
 * (addRules); stopping removes the run's rules from those nodes, once each is back from
 * any pause, and healing removes them from every node.
 */
export abstract class IptablesFault implements Nemesis {
  abstract readonly kind: string;
  private ruled = new Set<NodeHandle>();
  /** The key under which a stop's value names the nodes it cleared. */
  protected abstract readonly stopKey: string;
  constructor(
    protected readonly ctx: NodeFaultContext,
    /** Which nodes (loss), or the partition's shape. */
    protected readonly aim: string,
  ) {}

  /** Adds the rules of one fault (calling ruled() for each node given rules); the start's value, or null. */
  protected abstract addRules(rng: Rng, durationMs: number): Promise<Record<string, unknown> | null>;

  /** Marks a node as carrying rules of the current fault. */
  protected ruledOn(node: NodeHandle) {
    this.ruled.add(node);
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(this.ctx.timing.nemesisIntervalS, rng));
    const value = await this.addRules(rng, durationMs);
    return value && { value, durationMs };
  }
  async stop() {
    const nodes = [...this.ruled];
    this.ruled.clear();
    await Promise.all(
      nodes.map(async (n) => {
        await whenAvailable(this.ctx, n);
        await removeTaggedRules(n, this.ctx.runId);
      }),
    );
    return { [this.stopKey]: nodes.map((n) => n.name) };
  }
  async healAll() {
    await Promise.all(this.ctx.nodes.map((n) => removeTaggedRules(n, this.ctx.runId).catch(() => undefined)));
    this.ruled.clear();
  }
}
