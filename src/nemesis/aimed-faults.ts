/**
 * The faults of a run aimed at code points, for its coverage (checkers/coverage.ts): each
 * kind declares where a spec of it aims (FaultKindModule.aimsAt), so that the coverage
 * names no kind, and a new kind that aims at a point is counted by declaring it.
 */
import type { AimedFault } from '../../checkers/coverage.js';
import type { FaultSpec } from './kind.js';
import { faultKindModule } from './spec.js';

/** The faults of `specs` aimed at a point, given how the backend names its in-acquire point. */
export function aimedFaults(specs: readonly FaultSpec[], inAcquirePoint?: string): AimedFault[] {
  return specs.flatMap((s) => {
    const at = faultKindModule(s.kind)?.aimsAt?.(s, inAcquirePoint);
    return at === undefined ? [] : [{ kind: s.kind, ...at }];
  });
}
