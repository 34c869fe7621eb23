/**
 * The tries an exploration makes: for each point a baseline run reached, every fault that
 * can act there (docs/running.md's fault table).
 */

/** One point a baseline reached, and how often. */
export interface LearnedPoint {
  point: string;
  reached: number;
}

/** A fault aimed at one point: its --nemesis spec. */
export interface Candidate {
  point: string;
  fault: string;
  spec: string;
}

const WIRE_MODES = ['pause', 'hold', 'stop', 'drop'] as const;
const CLIENT_FAULTS = ['client-pause', 'client-kill'] as const;

/** The standard points of the built-in workload, tried even where the baseline did not count them. */
export const STANDARD_POINTS = ['after-grant', 'in-hold', 'before-release', 'in-extend'] as const;

/** The standard points inside a hold: a client paused there outlives any lease (the lease argument). */
const IN_HOLD = new Set(['after-grant', 'in-hold', 'before-release']);

/** The node faults that can act while a client is at a code point (`pause-node:one:at=P`), where the backend has nodes to fault. */
export const NODE_FAULTS = ['pause-node', 'kill-node'] as const;

/**
 * Every fault at every point: wire:<REQ>:<mode> for a request, client-pause/kill:at=P for
 * a code point, and each of `nodeFaults` (those the run's backend and nodes can take) on one
 * node while a client is kept at the point. Without fencing, a pause at a standard point
 * inside the hold is left out: it breaks every lease lock alike and says nothing of the
 * library (lease-argument.ts); a node fault keeps its client no longer than most of its
 * lease (kept-holder.ts), so it stays.
 */
export function candidatesFor(
  points: readonly LearnedPoint[],
  fencing = true,
  nodeFaults: readonly string[] = [],
): Candidate[] {
  return points.flatMap(({ point }) => {
    if (point.startsWith('wire:')) {
      return WIRE_MODES.map((mode) => ({ point, fault: `wire:${mode}`, spec: `${point}:${mode}` }));
    }
    const onClient = CLIENT_FAULTS.filter((kind) => fencing || kind !== 'client-pause' || !IN_HOLD.has(point)).map(
      (kind) => ({ point, fault: kind, spec: `${kind}:at=${point}` }),
    );
    const onNode = nodeFaults.map((kind) => ({ point, fault: kind, spec: `${kind}:one:at=${point}` }));
    return [...onClient, ...onNode];
  });
}

/**
 * The candidates with the node faults moved last, each group in its order: a point's own
 * faults (on its client, on the wire) say more of the library, and two more tries a point
 * ahead of them would push them back in every round.
 */
export function nodeFaultsLast(candidates: readonly Candidate[]): Candidate[] {
  const onNode = (c: Candidate) => (NODE_FAULTS as readonly string[]).includes(c.fault);
  return [...candidates.filter((c) => !onNode(c)), ...candidates.filter(onNode)];
}
