/**
 * The rounds of search-rounds.ts against a search of one part at a time: each part searched alone
 * to its end gives its steps, so its round and the part to report are known in advance; the
 * check must report that part's counterexample, having searched exactly what the rounds give
 * every part until then (a violation found early, whatever its place in check order). On
 * two threads: the same verdict and counterexample, and the same steps counted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Beside, besideHardHistory, INVALID_KEY } from '../../perf/beside-hard.js';
import { hardKeysHistory } from '../../perf/checker.js';
import { simulateRegister } from '../../perf/simulate.js';
import type { Op } from '../../src/history/op.js';
import { keyedHistory, largeRegisterWithStaleRead } from '../../test/unit/linearizable-support.js';
import { register } from '../models/register.js';
import { checkLinearizable, newPartCheck, prepare } from './check-linearizable.js';
import { AHEAD_SHARE, checkLinearizableParallel } from './parallel.js';
import type { PartOutcome } from './part.js';
import { Decided, LARGE_PART, precheckAt, roundOf, stepsBy } from './search-rounds.js';

/** keyedHistory, corrupting by place. */
const keyed = (model: string, seeds: number[], corrupt: (k: number) => boolean, steps: number): Op[] =>
  keyedHistory(model, seeds, (_, k) => corrupt(k), steps);

/** The register model, counting its pre-checks (Model.impossible). */
function countingPrechecks(): typeof register & { prechecks: number } {
  const counted = {
    ...register,
    prechecks: 0,
    impossible: (ops: Parameters<NonNullable<typeof register.impossible>>[0], initial: unknown) => {
      counted.prechecks++;
      return register.impossible?.(ops, initial);
    },
  };
  return counted;
}

/** Each part searched alone to its end, in check order. */
function eachAlone(history: Op[], model: string): { outcomes: PartOutcome[]; impossible: boolean } {
  const prepared = prepare(history, model, {});
  const outcomes = prepared.parts.map((part) => {
    const check = newPartCheck(prepared, part, Number.POSITIVE_INFINITY);
    check.run(Number.MAX_SAFE_INTEGER);
    return check.outcome();
  });
  return { outcomes, impossible: prepared.found.size > 0 };
}

describe('the rounds of doubling steps', () => {
  it('report the part found not linearizable in the fewest rounds (then check order), having searched exactly what the rounds gave each part', () => {
    let invalid = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('mutex', 'kv', 'register'),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(1, 7, 64, 4096),
        fc.integer({ min: 2, max: 6 }),
        (model, seed, first, keys) => {
          const seeds = Array.from({ length: keys }, (_, k) => seed + k);
          const history = keyed(model, seeds, (k) => (seed + k) % 3 === 0, 300);
          const result = checkLinearizable(history, model, { sliceIterations: first });
          const { outcomes, impossible } = eachAlone(history, model);
          if (impossible) return; // the model's pre-check wins over any search: index.ts
          const illegal = outcomes.flatMap((o, part) =>
            o.status === 'illegal' ? [{ round: roundOf(o.iterations, first), part }] : [],
          );
          const best = illegal.sort((a, b) => a.round - b.round || a.part - b.part)[0];
          if (!best) {
            expect(result.valid).toBe(true);
            expect(result.stats.iterations).toBe(outcomes.reduce((n, o) => n + o.iterations, 0));
            return;
          }
          invalid++;
          expect(result.valid).toBe(false);
          expect(result.counterexample).toEqual(outcomes[best.part].counterexample);
          const limit = (part: number) => stepsBy(part < best.part ? best.round : best.round - 1, first);
          const given = outcomes.reduce(
            (n, o, part) => n + (part === best.part ? o.iterations : Math.min(o.iterations, limit(part))),
            0,
          );
          expect(result.stats.iterations).toBe(given);
        },
      ),
      { numRuns: 300, seed: 20261202 },
    );
    expect(invalid).toBeGreaterThan(30);
  });

  it('find an invalid key after two hard ones having searched each other key about as much as it, not to its end', async () => {
    // A lost append: only the search finds it (a stale read kv's pre-check finds first: below).
    const c = { model: 'kv' as const, clients: 50, operations: 4000, infoRate: 0.001, keys: 10, seed: 42 };
    const fault = 'lost-append' as const;
    const { history, invalidKey } = hardKeysHistory({ ...c, hardKeys: 'whole', fault });
    const alone = checkLinearizable(hardKeysHistory({ ...c, hardKeys: 'alone', fault }).history, 'kv');
    const one = checkLinearizable(history, 'kv');
    expect(one.counterexample?.key).toBe(invalidKey);
    expect(alone.valid).toBe(false);
    // Ten keys, each given at most the rounds the invalid key took (twice its steps, rounded up a round).
    const round = roundOf(alone.stats.iterations, 1 << 12);
    expect(one.stats.iterations).toBeLessThanOrEqual(alone.stats.iterations + 9 * stepsBy(round, 1 << 12));
    // On two threads: the same key and operation, and at most 1.2 times the states.
    const two = await checkLinearizableParallel(history, 'kv', { threads: 2, minOperations: 0 });
    expect(two.stats.threads).toBe(2);
    expect(two.counterexample).toEqual(one.counterexample);
    expect(two.stats.iterations).toBeLessThanOrEqual(1.2 * one.stats.iterations);
  });

  it('find a stale read after two hard keys by the pre-check, searching no key, on one thread and on two', async () => {
    const c = { model: 'kv' as const, clients: 50, operations: 4000, infoRate: 0.001, keys: 10, seed: 42 };
    const { history, invalidKey } = hardKeysHistory({ ...c, hardKeys: 'whole', fault: 'stale-read' });
    const one = checkLinearizable(history, 'kv');
    expect(one.counterexample?.key).toBe(invalidKey);
    expect(one.stats.iterations).toBe(0);
    const two = await checkLinearizableParallel(history, 'kv', { threads: 2, minOperations: 0 });
    expect(two.stats.threads).toBe(2);
    expect(two.counterexample).toEqual(one.counterexample);
    // The worker's first part may have had its first turn while this thread pre-checked the rest.
    expect(two.stats.iterations).toBeLessThanOrEqual(1 << 12);
  });

  it('a large part its search finds linearizable before precheckAt is never pre-checked; one it finds not linearizable is, before the verdict', () => {
    const counted = countingPrechecks();
    const history = simulateRegister({ clients: 5, operations: LARGE_PART + 1000, infoRate: 0.01, seed: 7 });
    const valid = checkLinearizable(history, counted);
    expect(valid.valid).toBe(true);
    expect(valid.stats.iterations).toBeLessThan(precheckAt(LARGE_PART + 1000));
    expect(counted.prechecks).toBe(0);
    // The same with a read no order explains at its end: the search finds it first, and the
    // pre-check, run before the verdict, names it.
    const last = history.length;
    history.push(
      { index: last, type: 'invoke', f: 'read', process: 999, time: 0 },
      { index: last + 1, type: 'ok', f: 'read', process: 999, time: 0, value: 'never written' },
    );
    const invalid = checkLinearizable(history, counted);
    expect(invalid.valid).toBe(false);
    expect(counted.prechecks).toBe(1);
    expect(invalid.counterexample?.reason).toMatch(/^it needs the register to hold "never written"/);
  });

  it('a large part still undecided at precheckAt is pre-checked there, and its impossible read ends the search at that step', async () => {
    const counted = countingPrechecks();
    const history = largeRegisterWithStaleRead();
    const last = history.length;
    history.push(
      // A second, small part: a history of one part is checked on one thread.
      { index: last, type: 'invoke', f: 'write', process: 998, time: 0, key: 'j', value: 1 },
      { index: last + 1, type: 'ok', f: 'write', process: 998, time: 0, key: 'j', value: 1 },
    );
    const size = LARGE_PART + 1001;
    const one = checkLinearizable(history, counted);
    expect(one.valid).toBe(false);
    expect(counted.prechecks).toBe(2); // the small part before any search, the large one at its step
    // The small part first (check order), then the large one to the pre-check's step.
    expect(one.stats.iterations).toBe(1 + precheckAt(size));
    expect(one.counterexample?.reason).toMatch(/^it needs the register to hold/);
    const two = await checkLinearizableParallel(history, 'register', { threads: 2, minOperations: 0 });
    expect(two.stats.threads).toBe(2);
    expect(two.counterexample).toEqual(one.counterexample);
    // The large part stops at the same step; the small part's one step is counted only if its
    // thread reached it before the verdict stopped the check (timing, on a busy machine not).
    expect(two.stats.iterations).toBeGreaterThanOrEqual(precheckAt(size));
    expect(two.stats.iterations).toBeLessThanOrEqual(1 + precheckAt(size));
  });

  it('on two threads: the same verdict and counterexample as one, on histories with several invalid keys', async () => {
    for (let round = 0; round < 6; round++) {
      for (const model of ['mutex', 'kv']) {
        const seeds = Array.from({ length: 7 }, (_, i) => 500 + 10 * round + i);
        const history = keyed(model, seeds, (k) => (k + round) % 3 === 0, 900);
        const one = checkLinearizable(history, model, { witness: true });
        const two = await checkLinearizableParallel(history, model, { witness: true, threads: 2, minOperations: 0 });
        expect(two.valid).toBe(one.valid);
        expect(two.counterexample).toEqual(one.counterexample);
        expect(two.linearization).toEqual(one.linearization);
      }
    }
  });
});

describe('the steps counted on threads (issue 44)', () => {
  it('a part past its limit counts to its limit, the rest discarded; the reported part all its steps', () => {
    // first 4: rounds end at 4, 12, 28 steps. Part 1 is found not linearizable at 10 steps
    // (round 1): part 0, before it in check order, may go to round 1's end (12), part 2,
    // after it, to round 0's (4). On threads parts 0 and 2 ran on to 28 meanwhile.
    const decided = new Decided([10, 10, 10], 4);
    decided.steps[0] = 28;
    decided.steps[2] = 28;
    const illegal = { status: 'illegal', iterations: 10 } as PartOutcome;
    decided.record(1, illegal);
    expect(decided.best).toEqual({ round: 1, part: 1 });
    expect([0, 1, 2].map((p) => decided.counted(p))).toEqual([12, 10, 4]);
    expect(decided.totalSteps).toBe(26);
    expect(decided.discardedSteps).toBe(28 - 12 + (28 - 4));
    // Without a violation every step counts.
    const open = new Decided([10, 10], 4);
    open.steps[0] = 100;
    expect(open.totalSteps).toBe(100);
    expect(open.discardedSteps).toBe(0);
  });

  it('on two threads: exactly the steps of one thread, whatever the parts, rounds and violations', async () => {
    let invalid = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('mutex', 'kv', 'register'),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(1, 7, 64, 4096),
        fc.integer({ min: 2, max: 6 }),
        async (model, seed, first, keys) => {
          const seeds = Array.from({ length: keys }, (_, k) => seed + k);
          const history = keyed(model, seeds, (k) => (seed + k) % 3 === 0, 300);
          // An operation the pre-check finds impossible ends every search wherever it stands:
          // the worker's first part may have had a turn by then (the test above).
          if (prepare(history, model, {}).found.size > 0) return;
          const one = checkLinearizable(history, model, { sliceIterations: first });
          const two = await checkLinearizableParallel(history, model, {
            sliceIterations: first,
            threads: 2,
            minOperations: 0,
          });
          expect(two.stats.threads).toBe(2);
          expect(two.valid).toBe(one.valid);
          expect(two.counterexample).toEqual(one.counterexample);
          expect(two.stats.iterations).toBe(one.stats.iterations);
          // All told, the threads search at most AHEAD_SHARE more than one thread.
          const total = two.stats.iterations + two.stats.discardedIterations;
          expect(total).toBeLessThanOrEqual((1 + AHEAD_SHARE) * one.stats.iterations);
          expect(one.stats.discardedIterations).toBe(0);
          if (one.valid === true) expect(two.stats.discardedIterations).toBe(0);
          if (one.valid === false) invalid++;
        },
      ),
      { numRuns: 40, seed: 20261215 },
    );
    expect(invalid).toBeGreaterThan(5);
  });

  it.each<Beside>(['hard-first', 'invalid-first'])(
    "an invalid key beside a hard one (%s): two threads count one thread's steps, and search at most 1.2 times them, run after run",
    async (beside) => {
      const history = besideHardHistory(beside);
      const one = checkLinearizable(history, 'kv');
      expect(one.counterexample?.key).toBe(INVALID_KEY);
      // The invalid key takes more than round 0, so the hard key has turns of later rounds.
      expect(one.stats.iterations).toBeGreaterThan(3 * (1 << 12));
      const discarded = new Set<number>();
      for (let run = 0; run < 3; run++) {
        const two = await checkLinearizableParallel(history, 'kv', { threads: 2, minOperations: 0 });
        expect(two.stats.threads).toBe(2);
        expect(two.counterexample).toEqual(one.counterexample);
        expect(two.stats.iterations).toBe(one.stats.iterations);
        expect(two.stats.iterations + two.stats.discardedIterations).toBeLessThanOrEqual(1.2 * one.stats.iterations);
        discarded.add(two.stats.discardedIterations);
      }
      expect(discarded.size).toBe(1);
    },
  );
});
