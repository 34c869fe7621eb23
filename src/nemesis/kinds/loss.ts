/** loss: drop a share of the packets into some nodes (iptables statistic). */
import type { NodeHandle } from '../../cluster/cluster.js';
import type { Rng } from '../../util/rng.js';
import { IptablesFault, ruleTag } from '../iptables.js';
import { faultKind, nodesHit, onNodes } from '../kind.js';
import { chooseNodes, mustNetExec } from '../nodes.js';

export const LOSS_PROBABILITY = 0.2;

/** The rule that drops a share of a node's packets, tagged with the run. */
export function lossRule(n: Pick<NodeHandle, 'confined' | 'port'>, runId: string): string[] {
  return [
    'iptables',
    '-A',
    'INPUT',
    // A host the team runs: only the service's packets (its SSH keeps working).
    ...(n.confined ? ['-p', 'tcp', '--dport', String(n.port)] : []),
    '-m',
    'statistic',
    '--mode',
    'random',
    '--probability',
    String(LOSS_PROBABILITY),
    '-m',
    'comment',
    '--comment',
    ruleTag(runId),
    '-j',
    'DROP',
  ];
}

export class PacketLoss extends IptablesFault {
  readonly kind = 'loss';
  protected readonly stopKey = 'nodes';

  protected async addRules(rng: Rng, durationMs: number) {
    const nodes = await chooseNodes(this.ctx, this.aim, rng);
    if (nodes.length === 0) return null;
    for (const n of nodes) {
      await mustNetExec(n, lossRule(n, this.ctx.runId));
      this.ruledOn(n);
    }
    return { nodes: nodes.map((n) => n.name), probability: LOSS_PROBABILITY, ms: durationMs };
  }
}

export const loss = faultKind({
  nodeNeeds: () => ['network'] as const,
  name: 'loss',
  ...onNodes((s, ctx) => new PacketLoss(ctx, s.aim)),
  what: `drop ${LOSS_PROBABILITY * 100}% of packets into a node (iptables statistic)`,
  words: (v) => ({
    whom: nodesHit(v),
    how: typeof v.probability === 'number' ? [`${Math.round(v.probability * 100)}% loss`] : [],
  }),
});
