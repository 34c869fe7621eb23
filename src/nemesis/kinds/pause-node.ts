/** pause-node: the cgroup freezer stops every process of the node (docker pause), then thaws. */
import type { NodeHandle } from '../../cluster/cluster.js';
import { faultKind, heldWords, nodesHit, onNodes, WHILE_HELD_MODES } from '../kind.js';
import { NodeOutage } from '../node-outage.js';

export class NodePause extends NodeOutage {
  readonly kind = 'pause-node';
  protected takeDown = (n: NodeHandle) => n.pause();
  protected bringBack = (n: NodeHandle) => n.resume();
}

export const pauseNode = faultKind({
  name: 'pause-node',
  ...onNodes((s, ctx) => new NodePause(ctx, s.target, s.mode === 'while-held' ? ctx.clients : undefined)),
  modes: WHILE_HELD_MODES,
  what: "freeze a node's processes (cgroup freezer), then thaw; while-held: only while a client holds the lock, kept holding until the node is back",
  words: (v) => ({ whom: nodesHit(v), how: heldWords(v) }),
});
