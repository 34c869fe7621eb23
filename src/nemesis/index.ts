/**
 * Builds a run's nemeses from its --nemesis spec, asking each kind's module (kinds/): what
 * it needs of the backend, whether it needs proxies, and its nemesis. Each fault kind runs
 * on its own seeded schedule (schedule.ts), so `pause-node,partition` flips both
 * independently.
 */
import type { Backend } from '../backends/backend.js';
import type { NodeHandle } from '../cluster/cluster.js';
import { UserError } from '../util/errors.js';
import type { NemesisContext } from './context.js';
import type { BuildNemesis, FaultKindModule, FaultSpec } from './kind.js';
import type { Nemesis } from './nemesis.js';
import { type ParsedFault, parseFaults } from './spec.js';

export type { NemesisClients, NemesisContext } from './context.js';
export type { FaultSpec } from './kind.js';
export { parseNemesisSpec } from './spec.js';

/** A fault kind of a run, fit for its backend: its spec, its module, how its nemesis is built. */
export interface Fault {
  spec: FaultSpec;
  module: FaultKindModule;
  build: BuildNemesis;
}

/**
 * The --nemesis spec's faults on this backend (the spec's text, or its faults parsed where it
 * was checked: a campaign file's); a spec it cannot run is one UserError line, before any
 * container starts.
 */
export function resolveFaults(
  spec: string | readonly ParsedFault[],
  backend: Backend,
  lockNodes: number,
  /** The nodes are reached through control channels (FaultKindModule.fit). */
  viaChannels = false,
): Fault[] {
  return (typeof spec === 'string' ? parseFaults(spec) : spec).map(({ spec: s, module }) => {
    const fit = module.fit(s, backend, lockNodes, viaChannels);
    if (typeof fit === 'function') return { spec: s, module, build: fit };
    if ('reason' in fit) throw new UserError(`--nemesis ${s.kind}:${s.aim} ${fit.reason}`);
    const shown = s.aim === module.aims[0] ? s.kind : `${s.kind}:${s.aim}`;
    throw new UserError(
      `--nemesis ${shown} needs the backend capability ${fit.capability}, which ${backend.name} does not declare: choose another fault or backend (lockchaos scenarios lists what fits)`,
    );
  });
}

/** Whether clients must reach the servers through per-client proxies. */
export const needsProxies = (faults: readonly Fault[]) => faults.some((f) => f.module.usesProxies?.(f.spec) ?? false);

/** One nemesis per kind of the spec, wired to the run. */
export const buildNemeses = (faults: readonly Fault[], ctx: NemesisContext): Nemesis[] =>
  faults.map((f) => f.build(ctx));

export type { Nemesis, NodeHandle };
