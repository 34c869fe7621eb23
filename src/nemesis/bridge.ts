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
  /** How long ago the runner learned of the grant, ms. */
  ageMs: () => number;
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
    return {
      client,
      stillHeld: () => clients.holders().includes(client) && clients.grantedAt(client) === since,
      ageMs: () => (since === undefined ? 0 : Date.now() - since),
    };
  };
}

/**
 * The bridge, at its moment (waited for up to 4 s): none while no split stands or it is out
 * (paused, killed). While a bare-majority grant is held, the split is made to outlast it,
 * so that the other group can take the bridge's expired key while the holder still holds.
 * `freshWithinMs`: only a grant that new will do (waited for up to two TTLs more, then any
 * held one): a drift shortens what is left of a key by its ρ, so it must begin as the key
 * is set to expire it within the hold it completes.
 */
export async function bridgeAtItsMoment(
  ctx: NodeFaultContext,
  grant: () => HeldGrant | undefined,
  freshWithinMs?: number,
): Promise<{ nodes: NodeHandle[]; bareMajorityHeld: boolean; grantAgeMs?: number }> {
  const now = () => (ctx.split !== undefined ? grant() : undefined);
  const fresh = (g: HeldGrant | undefined) =>
    g !== undefined && (freshWithinMs === undefined || g.ageMs() <= freshWithinMs);
  const deadlineMs = 4000 + (freshWithinMs === undefined ? 0 : 2 * ctx.timing.ttlMs);
  let held = now();
  for (let waited = 0; !fresh(held) && waited < deadlineMs; waited += 10) {
    await sleep(10);
    held = now();
  }
  const split = ctx.split;
  const bridge = ctx.nodes.find((n) => n.name === split?.bridge);
  const nodes = bridge && !ctx.unavailable.has(bridge.name) ? [bridge] : [];
  // The split is healed no earlier than that hold ends (partition.ts).
  if (split && held && nodes.length > 0) split.outlast = held.stillHeld;
  return {
    nodes,
    bareMajorityHeld: held !== undefined,
    ...(held && freshWithinMs !== undefined ? { grantAgeMs: held.ageMs() } : {}),
  };
}
