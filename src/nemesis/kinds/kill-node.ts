/** kill-node: SIGKILL to the server (PID 1), then a restart of the container. */
import type { NodeHandle } from '../../cluster/cluster.js';
import type { Rng } from '../../util/rng.js';
import { faultKind, nodeOutageKind } from '../kind.js';
import type { FaultPlan, FaultStart } from '../nemesis.js';
import { NodeOutage } from '../node-outage.js';

export class NodeKill extends NodeOutage {
  readonly kind = 'kill-node';
  /** Nodes of the current start whose data-loss marker could not be left: they keep their data. */
  private keptData: string[] = [];
  override start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    this.keptData = [];
    return super.start(rng, plan);
  }
  protected async takeDown(n: NodeHandle) {
    // The node's start command wipes its data dir at the next start when asked (node-start.ts).
    if (this.ctx.loseData) {
      const marked = await n.exec(['touch', '/data/.lose-data']).then(
        (r) => r.exitCode === 0,
        () => false,
      );
      if (!marked) this.keptData.push(n.name);
    }
    await n.signal('SIGKILL');
  }
  protected bringBack = (n: NodeHandle) => n.restart();
  /**
   * loseData as asked when every marker was left; otherwise the nodes that restart with
   * their data are named, and loseData is false if none will restart empty.
   */
  protected override describe(nodes: NodeHandle[]) {
    if (this.keptData.length === 0) return { loseData: this.ctx.loseData };
    return { loseData: this.keptData.length < nodes.length, keptData: this.keptData };
  }
}

export const killNode = faultKind({
  nodeNeeds: () => ['process', 'restart'] as const,
  name: 'kill-node',
  ...nodeOutageKind((ctx, aim, keep, atPoint) => new NodeKill(ctx, aim, keep, atPoint)),
  what: 'SIGKILL the server, then restart it (--lose-data: restart empty); while-held: only while a client holds the lock, kept holding until the node is back; at=<point>: while the first client at a code point is kept there',
});
