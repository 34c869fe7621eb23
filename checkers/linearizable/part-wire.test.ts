/** A part sent to a worker thread (its columns, as a message copies them) is built there as the same part as here. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildHistory, historyArb } from '../../test/unit/linearizable-support.js';
import { MODEL_NAMES } from '../models/index.js';
import { prepare } from './index.js';
import { decodePart } from './part-wire.js';

describe('a part copied to a worker (structured clone of its columns)', () => {
  for (const name of MODEL_NAMES) {
    it(`${name}: every part of random histories, exactly`, () => {
      fc.assert(
        fc.property(historyArb, ({ actions, processes, drain }) => {
          const history = buildHistory(name, actions, processes, drain);
          for (const part of prepare(history, name, {}, false).parts) {
            expect(decodePart(structuredClone(part.columns))).toStrictEqual(part.data());
          }
        }),
        { numRuns: 300, seed: 20261130 },
      );
    });
  }
});
