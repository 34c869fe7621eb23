/** A part sent to a worker thread arrives as the same part. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildHistory, historyArb } from '../../test/unit/linearizable-support.js';
import { MODEL_NAMES } from '../models/index.js';
import { prepare } from './index.js';
import { decodePart, encodePart } from './part-wire.js';

describe('encodePart / decodePart', () => {
  for (const name of MODEL_NAMES) {
    it(`${name}: every part of random histories, exactly`, () => {
      fc.assert(
        fc.property(historyArb, ({ actions, processes, drain }) => {
          const history = buildHistory(name, actions, processes, drain);
          for (const part of prepare(history, name, {}).parts) {
            const back = decodePart(structuredClone(encodePart(part)));
            expect(back).toStrictEqual(part);
          }
        }),
        { numRuns: 300, seed: 20261130 },
      );
    });
  }
});
