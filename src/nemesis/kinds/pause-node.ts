/** pause-node: the cgroup freezer stops every process of the node (docker pause), then thaws. */
import type { NodeHandle, PauseRecord } from '../../cluster/cluster.js';
import type { Rng } from '../../util/rng.js';
import { faultKind, nodeOutageKind } from '../kind.js';
import type { FaultPlan, FaultStart } from '../nemesis.js';
import { NodeOutage } from '../node-outage.js';

export class NodePause extends NodeOutage {
  readonly kind = 'pause-node';
  /** What each node of the current start said it stopped (a target's host: pid → state). */
  private stopped: Record<string, PauseRecord> = {};
  override start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    this.stopped = {};
    return super.start(rng, plan);
  }
  protected async takeDown(n: NodeHandle) {
    const record = await n.pause();
    if (record) this.stopped[n.name] = record;
  }
  protected bringBack = (n: NodeHandle) => n.resume();
  protected override describe(_nodes: NodeHandle[]) {
    return Object.keys(this.stopped).length > 0 ? { stopped: this.stopped } : {};
  }
}

export const pauseNode = faultKind({
  nodeNeeds: () => ['process'] as const,
  name: 'pause-node',
  ...nodeOutageKind((ctx, aim, keep, atPoint) => new NodePause(ctx, aim, keep, atPoint)),
  what: "freeze a node's processes (cgroup freezer), then thaw; while-held: only while a client holds the lock, kept holding until the node is back; at=<point>: while the first client at a code point is kept there",
});
