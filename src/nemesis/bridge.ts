/**
 * The bridge of a clients-majorities split (Redlock, partition:clients-majorities): the one
 * master both client groups reach. Kleppmann's story needs it faulted at one moment: while
 * a client holds a lock with a bare majority of votes, which the bridge's key completes
 * (A, B, C held; C's clock moves; C, D, E granted to another). clock:bridge and
 * node-clock:bridge wait here for that moment.
 */
import type { NodeHandle } from '../cluster/cluster.js';
import { sleep } from '../util/monotonic-clock.js';
import type { NemesisContext, NodeFaultContext } from './context.js';

/** A client's grant as it stands now, and whether that same grant is still held. */
export interface HeldGrant {
  client: number;
  stillHeld: () => boolean;
}

/** A grant of a bare majority of votes held now (Redlock, during a split), if any. */
export function bareMajorityGrant(
  ctx: NemesisContext,
  quorum: ((nodes: number) => number) | undefined,
): () => HeldGrant | undefined {
  if (!quorum) return () => undefined;
  return () => {
    const bare = quorum(ctx.nodes.length);
    const { clients } = ctx;
    const client = clients.holders().find((c) => (clients.grant(c) as { votes?: number } | undefined)?.votes === bare);
    if (client === undefined) return undefined;
    const since = clients.grantedAt(client);
    return { client, stillHeld: () => clients.holders().includes(client) && clients.grantedAt(client) === since };
  };
}

/**
 * The bridge, at its moment (waited for up to 4 s): none while no split stands or it is out
 * (paused, killed). While a bare-majority grant is held, the split is made to outlast it,
 * so that the other group can take the bridge's expired key while the holder still holds.
 */
export async function bridgeAtItsMoment(
  ctx: NodeFaultContext,
  grant: () => HeldGrant | undefined,
): Promise<{ nodes: NodeHandle[]; bareMajorityHeld: boolean }> {
  const now = () => (ctx.split !== undefined ? grant() : undefined);
  let held = now();
  for (let waited = 0; !held && waited < 4000; waited += 10) {
    await sleep(10);
    held = now();
  }
  const split = ctx.split;
  const bridge = ctx.nodes.find((n) => n.name === split?.bridge);
  const nodes = bridge && !ctx.unavailable.has(bridge.name) ? [bridge] : [];
  // The split is healed no earlier than that hold ends (partition.ts).
  if (split && held && nodes.length > 0) split.outlast = held.stillHeld;
  return { nodes, bareMajorityHeld: held !== undefined };
}
