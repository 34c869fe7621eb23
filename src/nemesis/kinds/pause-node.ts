/** pause-node: the cgroup freezer stops every process of the node (docker pause), then thaws. */
import type { NodeHandle } from '../../cluster/cluster.js';
import { faultKind, nodesHit, onNodes } from '../kind.js';
import { NodeOutage } from '../node-outage.js';

export class NodePause extends NodeOutage {
  readonly kind = 'pause-node';
  protected takeDown = (n: NodeHandle) => n.pause();
  protected bringBack = (n: NodeHandle) => n.resume();
}

export const pauseNode = faultKind({
  name: 'pause-node',
  ...onNodes,
  what: "freeze a node's processes (cgroup freezer), then thaw",
  build: (s, ctx) => new NodePause(ctx, s.target),
  words: (v) => ({ whom: nodesHit(v) }),
});
