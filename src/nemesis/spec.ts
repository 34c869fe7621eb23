/**
 * The --nemesis spec: 'none', or fault kinds separated by commas, each with an optional
 * target after a colon: `pause-node:leader,partition:majorities-ring,kill-node`. Parsed
 * here into a list; a bad spec is one line that lists what is allowed.
 */
import { UserError } from '../util/errors.js';

export const NODE_TARGETS = ['one', 'minority', 'majority', 'all', 'leader'] as const;
export const PARTITIONS = [
  'halves',
  'random-halves',
  'majorities-ring',
  'isolate-one',
  'isolate-leader',
  'bridge',
  'clients',
  'clients-majorities',
] as const;

/** Every fault kind, the targets it takes (first = default), and what it does. */
export const FAULT_KINDS = {
  'client-pause': {
    targets: ['holder', 'in-acquire'],
    what: "SIGSTOP a client worker that holds the lock, for 0.8-2x the TTL; in-acquire: inside Redlock's acquire, after it won a majority of votes",
  },
  'pause-node': { targets: NODE_TARGETS, what: "freeze a node's processes (cgroup freezer), then thaw" },
  'kill-node': { targets: NODE_TARGETS, what: 'SIGKILL the server, then restart it (--lose-data: restart empty)' },
  partition: {
    targets: PARTITIONS,
    what: 'iptables DROP between nodes; clients: cut some clients from the nodes; clients-majorities: two client groups each reach another majority, sharing one node (proxies)',
  },
  loss: { targets: NODE_TARGETS, what: 'drop 20% of packets into a node (iptables statistic)' },
  latency: {
    targets: ['nodes', 'store', 'all'],
    what: "delay traffic through per-client TCP proxies: all clients to the nodes, or one client's to the store, or all of one client's",
  },
  clock: {
    targets: ['minority', 'one', 'majority', 'all', 'bridge'],
    directions: ['forward', 'backward', 'strobe'],
    what: "jump a Redis node's clock: shift every key's TTL (clock:one:backward lengthens them; clock:one:strobe flips it ahead and back every 50-250 ms); bridge: the node a clients-majorities split shares",
  },
  'client-clock': {
    targets: ['backward', 'forward'],
    what: "step a Redlock client's own clock, the one its elapsed-time check reads, while it is stopped between winning the votes and that check: backward by about the pause, so the pause goes uncounted; forward, so a good lock is refused",
  },
} as const satisfies Record<string, { targets: readonly string[]; directions?: readonly string[]; what: string }>;

export type FaultKind = keyof typeof FAULT_KINDS;

export interface FaultSpec {
  kind: FaultKind;
  target: string;
  /** Which way a clock jumps, or whether it strobes (clock only; forward unless given). */
  direction?: 'forward' | 'backward' | 'strobe';
}

export function parseNemesisSpec(spec: string): FaultSpec[] {
  const text = spec.trim();
  if (text === '' || text === 'none') return [];
  const kinds = Object.keys(FAULT_KINDS) as FaultKind[];
  const seen = new Set<string>();
  return text.split(',').map((part) => {
    const [rawKind = '', target, direction, ...extra] = part.trim().split(':');
    const kind = rawKind.trim() as FaultKind;
    if (!Object.hasOwn(FAULT_KINDS, kind)) {
      throw new UserError(
        `unknown nemesis '${rawKind}' in --nemesis '${spec}': choose none or some of ${kinds.join(', ')}`,
      );
    }
    const info: { targets: readonly string[]; directions?: readonly string[] } = FAULT_KINDS[kind];
    const allowed = info.targets;
    const directions = info.directions ?? [];
    const badDirection = direction !== undefined && !directions.includes(direction);
    if (extra.length > 0 || badDirection || (target !== undefined && !allowed.includes(target))) {
      const forms = allowed.map((t) => `${kind}:${t}`);
      if (directions.length > 0) forms.push(`${kind}:<target>:${directions.join('|')}`);
      throw new UserError(
        `bad target '${part.slice(rawKind.length + 1)}' for ${kind} in --nemesis '${spec}': use ${forms.join(', ')}`,
      );
    }
    if (seen.has(kind)) throw new UserError(`--nemesis '${spec}' names ${kind} twice: give each fault kind once`);
    seen.add(kind);
    const parsed: FaultSpec = { kind, target: target ?? (allowed[0] as string) };
    if (directions.length > 0) parsed.direction = (direction ?? directions[0]) as FaultSpec['direction'];
    if (parsed.target === 'bridge' && parsed.direction !== 'forward') {
      throw new UserError(
        `--nemesis '${spec}': clock:bridge jumps forward only (its point is to expire the shared key): use clock:bridge`,
      );
    }
    return parsed;
  });
}
