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
import type { FaultSpec } from './kind.js';
import type { Nemesis } from './nemesis.js';
import { faultKindModule, parseNemesisSpec } from './spec.js';

export type { ClientFaultTarget, NemesisContext } from './context.js';
export type { FaultSpec } from './kind.js';
export { parseNemesisSpec } from './spec.js';

/** The kind's module of a parsed spec (parsing made sure there is one). */
function moduleOf(s: FaultSpec) {
  const module = faultKindModule(s.kind);
  if (!module) throw new Error(`unreachable: no fault kind ${s.kind} (the spec was parsed)`);
  return module;
}

/** Whether clients must reach the servers through per-client proxies. */
export const needsProxies = (specs: FaultSpec[]) => specs.some((s) => moduleOf(s).usesProxies?.(s) ?? false);

/** Problems a spec has with a given backend, found before any container starts. */
export function checkSpecForBackend(spec: string, backend: Backend, nodeCount: number): FaultSpec[] {
  const specs = parseNemesisSpec(spec);
  for (const s of specs) {
    const module = moduleOf(s);
    const unfit = module.unfit?.(s, backend, nodeCount);
    if (!unfit) continue;
    if ('reason' in unfit) throw new UserError(`--nemesis ${s.kind}:${s.target} ${unfit.reason}`);
    const shown = s.target === module.targets[0] ? s.kind : `${s.kind}:${s.target}`;
    throw new UserError(
      `--nemesis ${shown} needs the backend capability ${unfit.capability}, which ${backend.name} does not declare: choose another fault or backend (lockchaos scenarios lists what fits)`,
    );
  }
  return specs;
}

/** One nemesis per kind of the spec, wired to the run (checkSpecForBackend passed). */
export const buildNemeses = (specs: FaultSpec[], ctx: NemesisContext): Nemesis[] =>
  specs.map((s) => moduleOf(s).build(s, ctx));

export type { Nemesis, NodeHandle };
