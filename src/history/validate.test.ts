/** adoptOp takes a parsed record as the op only when it is the op toOp would build. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adoptOp, toOp } from './validate.js';

/** Mostly a field as lockchaos writes it, sometimes not. */
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: bad, weight: 1 });

const fieldArb = {
  index: mostly(fc.nat(1000), fc.constantFrom(-1, 1.5, '3', null)),
  type: mostly(fc.constantFrom('invoke', 'ok', 'fail', 'info'), fc.constantFrom('done', null, 3)),
  f: mostly(fc.constantFrom('read', 'write', 'acquire'), fc.constantFrom('', 7)),
  process: mostly(fc.oneof(fc.nat(9), fc.constant('nemesis')), fc.constantFrom('p', 2.5, null)),
  time: mostly(fc.nat(), fc.constantFrom(null, '1')),
  key: mostly(fc.constantFrom('k', 'lockchaos:set'), fc.oneof(fc.nat(5), fc.constant(null))),
  value: fc.oneof(
    fc.constant(null),
    fc.array(fc.nat(5), { maxLength: 3 }),
    fc.nat(5),
    fc.record({ token: fc.nat(3) }),
    fc.record(
      {
        validityMs: fc.integer({ min: -3, max: 3 }),
        token: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(1.5)),
      },
      { requiredKeys: [] },
    ),
  ),
  error: mostly(fc.constant('timeout'), fc.oneof(fc.constant(null), fc.record({ code: fc.nat(3) }))),
  extra: fc.nat(3),
};

/** A record as JSON.parse would give it: some fields, in some order. */
const recordArb = fc
  .tuple(
    fc.record(fieldArb, { requiredKeys: ['type', 'f', 'process'] }),
    fc.shuffledSubarray(Object.keys(fieldArb)),
    fc.nat(5),
  )
  .map(([fields, order, shuffled]) => {
    const names = Object.keys(fields);
    const ordered =
      shuffled === 0 ? [...order.filter((k) => names.includes(k)), ...names.filter((k) => !order.includes(k))] : names;
    return JSON.parse(
      JSON.stringify(Object.fromEntries(ordered.map((k) => [k, (fields as Record<string, unknown>)[k]]))),
    );
  });

describe('adoptOp', () => {
  it('is toOp exactly (fields, values and their order) whenever it takes the record', () => {
    let adopted = 0;
    fc.assert(
      fc.property(recordArb, (record: Record<string, unknown>) => {
        let expected: unknown;
        try {
          expected = toOp(structuredClone(record), 'line 1', 0);
        } catch {
          expected = undefined; // toOp refuses it: adoptOp must not take it
        }
        const op = adoptOp(record);
        if (op === undefined) return;
        adopted++;
        expect(JSON.stringify(op)).toBe(JSON.stringify(expected));
        expect(op).toStrictEqual(expected);
      }),
      { numRuns: 3000, seed: 20261130 },
    );
    expect(adopted).toBeGreaterThan(30);
  });

  it('takes the ops lockchaos writes', () => {
    const record = { index: 3, type: 'ok', f: 'acquire', process: 1, time: 5, key: 'L', value: { token: 2 } };
    expect(adoptOp({ ...record })).toStrictEqual(record);
  });
});

describe("an acquire's grant in a stored history", () => {
  const acquire = (value: unknown) => ({ index: 1, type: 'ok', f: 'acquire', process: 0, time: 1, value });

  it('is refused with a negative validity or a token that is not an integer from 0 to 2^53-1, in one line', () => {
    for (const [value, message] of [
      [{ validityMs: -5 }, 'validityMs is -5, a negative number of ms (a validity is 0 or more)'],
      [{ validityMs: 990, token: -5 }, 'token is -5, not an integer from 0 to 2^53-1'],
      [{ validityMs: 990, token: 2.5 }, 'token is 2.5, not an integer from 0 to 2^53-1'],
    ] as const) {
      expect(adoptOp(acquire(value))).toBeUndefined();
      expect(() => toOp(acquire(value), 'line 2', 1)).toThrow(
        `line 2: the acquire's grant is one no lock service gives: ${message}; correct the value or remove the operation`,
      );
    }
  });

  it("is taken as it is when in range, or when not a grant lockchaos wrote (a foreign history's value)", () => {
    for (const value of [
      { validityMs: 0, token: 0 },
      { validityMs: 990, token: 7, votes: 3 },
      { token: '7' },
      'held',
      [1],
    ])
      expect(adoptOp(acquire(value))).toStrictEqual(acquire(value));
    // Only an acquire's ok holds a grant: a read of -5 is a read of -5.
    expect(toOp({ type: 'ok', f: 'read', process: 0, value: { token: -5 } }, 'line 1', 0).value).toEqual({ token: -5 });
    expect(toOp({ type: 'invoke', f: 'acquire', process: 0, value: { token: -5 } }, 'line 1', 0).f).toBe('acquire');
  });
});
