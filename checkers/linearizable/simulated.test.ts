/**
 * The checker against the brute-force reference on longer histories (about 10-60
 * operations) from clients running against a real object, half of them then falsified:
 * long enough to cross the search's 32-operation bitset words, busy enough to need
 * backtracking, and linearizable about two times in three.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForce, modelNamed, simulateHistory, verifyWitness } from '../../test/unit/linearizable-support.js';
import { MODEL_NAMES } from '../models/index.js';
import { checkLinearizable } from './check-linearizable.js';

const RUNS = 400;

describe('checkLinearizable agrees with the reference on simulated histories', () => {
  for (const name of MODEL_NAMES) {
    it(`${name}: ${RUNS} histories`, () => {
      const model = modelNamed(name);
      let valid = 0;
      fc.assert(
        fc.property(
          fc.integer(),
          fc.integer({ min: 2, max: 4 }),
          fc.integer({ min: 60, max: 200 }),
          fc.boolean(),
          (seed, processes, steps, corrupt) => {
            const history = simulateHistory(name, seed, processes, steps, corrupt);
            const expected = bruteForce(history, model);
            const result = checkLinearizable(history, model, { witness: true });
            expect(result.valid).toBe(expected);
            if (expected) {
              valid++;
              expect(verifyWitness(history, model, result.linearization ?? [])).toBeUndefined();
            }
          },
        ),
        { numRuns: RUNS, seed: 7 },
      );
      expect(valid).toBeGreaterThan(RUNS / 5);
      expect(valid).toBeLessThan(RUNS - RUNS / 10);
    });
  }
});
