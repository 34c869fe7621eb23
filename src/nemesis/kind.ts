/**
 * A fault kind, whole: what --nemesis calls it, the aims it takes, its help line,
 * whether it can run on a backend, how its nemesis is built from the run's context, and
 * how a fault it recorded reads in the report and the progress line. Each kind is one
 * module under kinds/; the registry (kinds/index.ts) lists them.
 */
import type { AimedFault } from '../../checkers/coverage.js';
import type { Backend } from '../backends/backend.js';
import type { NodeNeed } from '../target/inventory.js';
import { leaderUnfit, type Unfit } from './applicability.js';
import type { NemesisClients, NemesisContext } from './context.js';
import type { Nemesis } from './nemesis.js';
import { NODE_AIMS } from './node-choice.js';

/** One fault kind of a --nemesis spec, parsed (spec.ts). */
export interface FaultSpec {
  kind: string;
  /**
   * What it aims at: which nodes, which client or code point, which request, the shape of a
   * partition (`kind:aim`, `<aim>` in --nemesis's help and the docs; "target" means only
   * --target's hosts).
   */
  aim: string;
  /**
   * How the fault goes, for a kind that has modes (`kind:aim:mode`): which way a clock
   * jumps or whether it strobes or drifts (clock, node-clock: forward unless given); when a node is taken down
   * (kill-node, pause-node: at any moment, while a client holds the lock, or while a client
   * is at a code point: `at=<point>`).
   */
  mode?:
    | 'forward'
    | 'backward'
    | 'strobe'
    | 'rate'
    | 'slow'
    | 'anytime'
    | 'while-held'
    | 'pause'
    | 'hold'
    | 'stop'
    | 'drop'
    | `at=${string}`;
}

/** What a fault needs of a lock node's control channel (FaultKindModule.nodeNeeds). */
export type { NodeNeed } from '../target/inventory.js';

/** A code point a fault aims at (FaultKindModule.aimsAt): checkers/coverage.ts's AimedFault less the kind. */
export type AimedPoint = Omit<AimedFault, 'kind'>;

/** A recorded fault in words: whom it hit, and how (each a short phrase). */
export interface FaultWords {
  whom?: string;
  how?: string[];
}

/** A fault's nemesis, wired to the run. */
export type BuildNemesis = (ctx: NemesisContext) => Nemesis;

export interface FaultKindModule<Name extends string = string> {
  /** The name in --nemesis and in the history (start-<name>, stop-<name>). */
  readonly name: Name;
  /** The aims it takes, the default first. */
  readonly aims: readonly string[];
  /**
   * Aims beyond the list, of a form (a code point's name `at=before-release`, a request's
   * name `pg_advisory_unlock`): the form in words for --help, and the test an aim passes.
   */
  readonly moreAims?: { form: string; test(aim: string): boolean };
  /** The ways it can go (`kind:aim:mode`), the default first; none: no third part. */
  readonly modes?: readonly string[];
  /** Modes beyond the list, of a form (`at=<point>`): the form in words for --help, and the test a mode passes. */
  readonly moreModes?: { form: string; test(mode: string): boolean };
  /** What it does, one line for --help and the campaign schema. */
  readonly what: string;
  /** A spec the grammar allows but the kind does not (clock:bridge:backward): why, in words. */
  refuse?(spec: FaultSpec): string | undefined;
  /**
   * The spec on this backend with this many lock nodes: why it cannot run, or how its
   * nemesis is built from the run's context (with what the backend declares in hand).
   * `viaChannels`: the nodes are reached through control channels (their own checks,
   * nodeNeeds, decide what this machine need not have).
   */
  fit(spec: FaultSpec, backend: Backend, lockNodes: number, viaChannels?: boolean): Unfit | BuildNemesis;
  /**
   * What the fault does to a lock node itself, for nodes lockchaos did not start (a target's,
   * reached through a control channel): stop or kill the service's process ('process'),
   * start it again ('restart'), add iptables rules on it ('network'). None: it acts on the
   * clients' side (their processes, their proxies) or through the service's own protocol.
   */
  nodeNeeds?(spec: FaultSpec): readonly NodeNeed[];
  /** Why it cannot run on a target's nodes at all yet, refused in one line before the run: none, it can. */
  readonly notOnTargets?: string;
  /** Whether clients must reach the servers through per-client proxies for it. */
  usesProxies?(spec: FaultSpec): boolean;
  /**
   * The code point the spec aims at, for the run's coverage (checkers/coverage.ts): the
   * point its start records as `at`, and its mode when the kind has modes. None: a fault
   * that aims at no code point (a node's, the network's). `inAcquirePoint` is how the
   * backend names the point inside its acquire (its capabilities' inAcquirePausePoint).
   */
  aimsAt?(spec: FaultSpec, inAcquirePoint: string | undefined): AimedPoint | undefined;
  /** A fault it started, in words, from the start's recorded value. */
  words(value: Record<string, unknown>): FaultWords;
}

/** Keeps a kind's name a literal type, so that the registry's names are a union. */
export const faultKind = <const Name extends string>(kind: FaultKindModule<Name>) => kind;

/** The aims and fit of a kind that hits whole nodes (pause-node, kill-node, loss), given how its nemesis is built. */
export const onNodes = (build: (s: FaultSpec, ctx: NemesisContext) => Nemesis) => ({
  aims: NODE_AIMS,
  fit: (s: FaultSpec, backend: Backend): Unfit | BuildNemesis =>
    leaderUnfit(s.aim, backend) ?? ((ctx) => build(s, ctx)),
});

/**
 * The modes of a fault that takes whole nodes out: at any moment of its schedule, or only
 * while a client holds the lock, kept holding until the nodes are back (kept-holder.ts).
 */
export const WHILE_HELD_MODES = ['anytime', 'while-held'] as const;

/**
 * The node kinds' third mode form: the nodes go down while a client is at a code point,
 * kept there until they are back (kept-holder.ts), as while-held keeps a holder in its hold.
 */
export const AT_POINT_MODES = {
  form: 'at=<point>',
  test: (mode: string) => /^at=[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(mode),
};

/**
 * A clock's drift rate given, not drawn (`node-clock:bridge:rate=0.2`: the clock runs at
 * 1 + ρ; negative, slow): a decimal ρ from −0.9 to 10, not 0, so that a scenario or a sweep
 * can set ρ against the bound a lock assumes (Redlock's drift factor, 1%).
 */
export const RATE_MODES = {
  form: 'rate=<ρ>',
  test: (mode: string) => modeRate({ kind: '', aim: '', mode: mode as FaultSpec['mode'] }) !== undefined,
};

/** The ρ a `rate=<ρ>` mode gives; undefined for any other mode, or a ρ out of range. */
export function modeRate(s: FaultSpec): number | undefined {
  const m = s.mode === undefined ? null : /^rate=(-?\d+(?:\.\d+)?)$/.exec(s.mode);
  const rate = m ? Number(m[1]) : Number.NaN;
  return Number.isFinite(rate) && rate >= -0.9 && rate <= 10 && rate !== 0 ? rate : undefined;
}

/**
 * A clock kind's mode as it runs (node-clock's, client-clock-warp's): `rate=<ρ>` is the mode
 * `rate` with its ρ given; any other mode as named, `unnamed` when none is.
 */
export function clockMode<M extends string>(s: FaultSpec, unnamed: M): { mode: M | 'rate'; rate?: number } {
  const rate = modeRate(s);
  return rate === undefined ? { mode: (s.mode ?? unnamed) as M } : { mode: 'rate', rate };
}

/** The code point an `at=<point>` mode names; undefined for any other mode. */
export const modePoint = (s: FaultSpec): string | undefined =>
  s.mode?.startsWith('at=') ? s.mode.slice('at='.length) : undefined;

/** Where a node fault aimed at a code point aims (`at=<point>`), for the coverage; none for the others. */
export const atNodePoint = (s: FaultSpec): AimedPoint | undefined => {
  const point = modePoint(s);
  return point === undefined ? undefined : { point };
};

/**
 * What pause-node and kill-node share: their aims and fit, their modes (at any moment,
 * while a client holds the lock, while one is at a code point), where they aim, their words.
 * `build` is given the clients to keep, and the point, when the mode asks for them.
 */
export const nodeOutageKind = (
  build: (ctx: NemesisContext, aim: string, keep?: NemesisClients, atPoint?: string) => Nemesis,
) => ({
  ...onNodes((s, ctx) =>
    build(ctx, s.aim, s.mode === 'while-held' || modePoint(s) ? ctx.clients : undefined, modePoint(s)),
  ),
  modes: WHILE_HELD_MODES,
  moreModes: AT_POINT_MODES,
  aimsAt: atNodePoint,
  words: (v: Record<string, unknown>) => ({ whom: nodesHit(v), how: heldWords(v) }),
});

/** A while-held fault's holder, in words: the process it kept in its hold, or at its point. */
export const heldWords = (v: Record<string, unknown>): string[] => {
  const holder = v.holder as { process?: unknown; at?: unknown } | undefined;
  if (typeof holder?.process !== 'number') return [];
  return [
    typeof holder.at === 'string'
      ? `while process ${holder.process} was at ${holder.at}`
      : `while process ${holder.process} held the lock`,
  ];
};

/** A list of node names, or whatever was recorded, as words. */
export const listed = (x: unknown) => (Array.isArray(x) ? x.map(String).join(', ') : String(x));

/** The nodes a fault hit, for the node fault kinds' words. */
export const nodesHit = (v: Record<string, unknown>): string | undefined =>
  v.nodes === undefined ? undefined : listed(v.nodes);
