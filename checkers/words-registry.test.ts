import { describe, expect, it } from 'vitest';
import { H } from '../test/unit/history-builder.js';
import { checkEvidence, evidenceWords } from './evidence.js';
import { checkFencing, fencingWords } from './fencing.js';
import { checkLostUpdates, lostUpdatesWords } from './lost-updates.js';
import { checkMutualExclusion, mutualExclusionWords } from './mutual-exclusion.js';
import { firstSaid, warningsOf, wordsOf } from './words-registry.js';

const S = 'S';

/** Two holds one after the other, each adding to the store, and the final read. */
const ops = new H()
  .acquire(0)
  .invoke(0, 'write', S, [1])
  .ok(0, 'write', S, [1])
  .release(0)
  .acquire(1)
  .invoke(1, 'write', S, [1, 2])
  .ok(1, 'write', S, [1, 2])
  .release(1)
  .invoke(9, 'read', S)
  .ok(9, 'read', S, [1, 2]).ops;

describe('the checkers that speak for their results', () => {
  it('finds each checker’s words by the name its results carry', () => {
    expect(wordsOf(checkMutualExclusion(ops, { counts: true }))).toBe(mutualExclusionWords);
    expect(wordsOf(checkLostUpdates(ops, S))).toBe(lostUpdatesWords);
    expect(wordsOf(checkFencing(ops, { storeKey: S, fencing: false }))).toBe(fencingWords);
    expect(wordsOf(checkEvidence(ops, { writes: true, storeKey: S, fencing: false }))).toBe(evidenceWords);
  });

  it('takes a result no checker speaks for as silent, judging the data', () => {
    const words = wordsOf({ checker: 'linearizable(mutex)', valid: false, summary: 'not linearizable' });
    expect(words).toEqual({ judges: 'data' });
  });

  it('answers with the first result that tells, in the results’ order', () => {
    const results = [checkMutualExclusion(ops, { counts: true }), checkLostUpdates(ops, S)];
    expect(firstSaid(results, (w, r) => w.dataFate?.(r))).toEqual({
      words: 'no acknowledged add lost',
      intact: true,
      kept: 'all 2 acknowledged adds kept',
    });
    expect(firstSaid(results, (w, r) => w.exclusion?.(r))).toBe('no two of 2 holds overlapped');
    expect(firstSaid(results, (w, r) => w.turnedAway?.(r))).toBeUndefined();
  });

  it('gathers warnings from every result that has some', () => {
    const evidence = { checker: 'evidence', valid: true as const, summary: '', details: { warnings: ['few writes'] } };
    expect(warningsOf([checkLostUpdates(ops, S), evidence])).toEqual(['few writes']);
  });
});
