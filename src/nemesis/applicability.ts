/**
 * Whether a fault kind can run on a backend: the kinds ask the capabilities the backend
 * declares (backends/backend.ts), never its name. A lacking capability is named in these
 * words in the one-line refusal.
 */
import type { Backend } from '../backends/backend.js';

const WORDS = {
  clock: "clock (how a node's clock moving is applied)",
  quorum: 'quorum (grants on a bare majority of nodes)',
  inAcquirePausePoint: 'inAcquirePausePoint (a point inside acquire, after the votes, before the elapsed-time check)',
  leader: 'leader (which node leads now)',
} as const;

export type Capability = keyof typeof WORDS;

/** Why a spec cannot run: a capability the backend does not declare, or another reason (in words after the spec). */
export type Unfit = { capability: string } | { reason: string };

/** A capability the backend does not declare, in words. */
export const missing = (capability: Capability): Unfit => ({ capability: WORDS[capability] });

/** The capability, in words, when the backend does not declare it. */
export function lacks(backend: Backend, capability: Capability): Unfit | undefined {
  const has = capability === 'leader' ? backend.leader !== undefined : Boolean(backend.capabilities?.[capability]);
  return has ? undefined : missing(capability);
}

/** The aims that need to know the leader: `leader` (of a node fault) and `isolate-leader`. */
export const leaderUnfit = (aim: string, backend: Backend) =>
  aim === 'leader' || aim === 'isolate-leader' ? lacks(backend, 'leader') : undefined;
