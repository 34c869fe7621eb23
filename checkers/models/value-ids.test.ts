import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueIds } from './value-ids.js';
import { valueKey } from './values.js';

/** Values as histories hold them, with the edges of valueKey's equality: -0, big and fractional numbers, nil. */
const number = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(-0, 0.5, 2 ** 31, 2 ** 32 + 1, -(2 ** 40), 1e21, Number.NaN, Number.POSITIVE_INFINITY),
);
const value = fc.oneof(
  fc.array(number, { maxLength: 4 }),
  number,
  fc.constantFrom(null, undefined, 'a', '1', '[1]'),
  fc.array(fc.oneof(number, fc.constant('1'), fc.constant(null)), { maxLength: 3 }),
  fc.record({ a: number }),
);

/** Keys as the maps keyed by valueKey compare them (SameValueZero: NaN is NaN, -0 is 0). */
const sameKey = (a: unknown, b: unknown) => new Set([valueKey(a), valueKey(b)]).size === 1;

describe('ValueIds', () => {
  it('gives two values one id exactly when a map keyed by their valueKeys would', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 40 }), (values) => {
        const ids = new ValueIds();
        const got = values.map((v) => ids.id(v));
        for (let i = 0; i < values.length; i++) {
          for (let j = 0; j < values.length; j++) {
            expect(got[i] === got[j]).toBe(sameKey(values[i], values[j]));
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds arrays again past the table growing', () => {
    const ids = new ValueIds();
    const sets = Array.from({ length: 5000 }, (_, i) => [i % 7, i, -i / 2]);
    const first = sets.map((s) => ids.id(s));
    expect(new Set(first).size).toBe(5000);
    expect(sets.map((s) => ids.id([...s]))).toEqual(first);
    expect(ids.id([-0, 0, -0])).toBe(ids.id([0, 0, 0]));
  });
});
