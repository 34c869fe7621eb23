/**
 * Which nodes a fault hits, and partitions as grudges: for each node, the nodes whose
 * packets it drops. Pure functions of the node names and the seeded PRNG.
 */
import type { Rng } from '../util/rng.js';

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

/** The aims of the kinds that hit whole nodes (pause-node, kill-node, loss). */
export const NODE_AIMS = ['one', 'minority', 'majority', 'all', 'leader'] as const;

/** one | minority | majority | all | leader (the leader's name, when known). */
export function pickNodes(aim: string, nodes: readonly string[], rng: Rng, leader?: string): string[] {
  const n = nodes.length;
  const order = shuffled(nodes, rng);
  switch (aim) {
    case 'one':
      return order.slice(0, 1);
    case 'minority':
      return order.slice(0, Math.max(1, Math.floor((n - 1) / 2)));
    case 'majority':
      return order.slice(0, Math.floor(n / 2) + 1);
    case 'all':
      return [...nodes];
    case 'leader':
      return leader !== undefined && nodes.includes(leader) ? [leader] : order.slice(0, 1);
    default:
      throw new Error(`unknown node aim ${aim}`);
  }
}

/** node -> the nodes it will not hear from. Symmetric unless said otherwise. */
export type Grudge = Map<string, Set<string>>;

function cutBetween(a: readonly string[], b: readonly string[], grudge: Grudge = new Map()): Grudge {
  for (const x of a)
    for (const y of b) {
      if (!grudge.has(x)) grudge.set(x, new Set());
      if (!grudge.has(y)) grudge.set(y, new Set());
      grudge.get(x)?.add(y);
      grudge.get(y)?.add(x);
    }
  return grudge;
}

/**
 * halves: first half | second half (in name order); random-halves: the same, shuffled;
 * isolate-one / isolate-leader: one node | the rest; bridge: two halves that share one
 * node, which hears both; majorities-ring: each node sees a majority (its neighbours on a
 * shuffled ring), but no two nodes see the same majority (Jepsen's).
 */
export function partitionGrudge(kind: string, nodes: readonly string[], rng: Rng, leader?: string): Grudge {
  const n = nodes.length;
  const half = Math.floor(n / 2);
  switch (kind) {
    case 'halves':
      return cutBetween(nodes.slice(0, half), nodes.slice(half));
    case 'random-halves': {
      const order = shuffled(nodes, rng);
      return cutBetween(order.slice(0, half), order.slice(half));
    }
    case 'isolate-one':
    case 'isolate-leader': {
      const lonely = pickNodes(kind === 'isolate-leader' ? 'leader' : 'one', nodes, rng, leader)[0] as string;
      return cutBetween(
        [lonely],
        nodes.filter((x) => x !== lonely),
      );
    }
    case 'bridge': {
      // order[half] is in neither side: the bridge keeps hearing both.
      const order = shuffled(nodes, rng);
      return cutBetween(order.slice(0, half), order.slice(half + 1));
    }
    case 'majorities-ring': {
      const ring = shuffled(nodes, rng);
      const reach = Math.floor(n / 2); // neighbours each side: self + 2*reach/2 >= majority
      const grudge: Grudge = new Map();
      ring.forEach((x, i) => {
        const visible = new Set<string>([x]);
        for (let d = 1; visible.size < Math.floor(n / 2) + 1 && d <= reach; d++) {
          visible.add(ring[(i + d) % n] as string);
          if (visible.size < Math.floor(n / 2) + 1) visible.add(ring[(i - d + n) % n] as string);
        }
        grudge.set(x, new Set(nodes.filter((y) => !visible.has(y))));
      });
      return grudge;
    }
    default:
      throw new Error(`unknown partition ${kind}`);
  }
}

/** What each node can still reach, for messages: "a,b | c,d". */
export function describeGrudge(grudge: Grudge): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [node, drops] of grudge) out[node] = [...drops].sort();
  return out;
}
