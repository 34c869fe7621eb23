/**
 * The checker against a brute-force reference, on random small histories of every model:
 * several processes, fails, infos, operations that never complete, nemesis ops, stray infos.
 * Zero disagreements, and every linearization the checker claims is replayed and verified.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bruteForce,
  buildHistory,
  historyArb,
  modelNamed,
  verifyWitness,
} from '../../test/unit/linearizable-support.js';
import { MODEL_NAMES } from '../models/index.js';
import { checkLinearizable } from './check-linearizable.js';

const RUNS = 10_000;

describe('checkLinearizable agrees with a brute-force reference', () => {
  for (const name of MODEL_NAMES) {
    it(`${name}: ${RUNS} random histories`, () => {
      const model = modelNamed(name);
      const verdicts = { true: 0, false: 0 };
      fc.assert(
        fc.property(historyArb, fc.constantFrom(1, 3, 1 << 18), ({ actions, processes, drain }, slice) => {
          const history = buildHistory(name, actions, processes, drain);
          const expected = bruteForce(history, model);
          const result = checkLinearizable(history, model, { witness: true, sliceIterations: slice });
          expect(result.valid).toBe(expected);
          verdicts[String(expected) as 'true' | 'false']++;
          if (result.valid === true) {
            expect(verifyWitness(history, model, result.linearization ?? [])).toBeUndefined();
          } else {
            expect(result.counterexample?.op).toBeDefined();
          }
        }),
        { numRuns: RUNS, seed: 20261129 },
      );
      // Both verdicts are common, so neither branch is tested by accident only.
      expect(verdicts.true).toBeGreaterThan(RUNS / 10);
      expect(verdicts.false).toBeGreaterThan(RUNS / 10);
    });
  }
});
