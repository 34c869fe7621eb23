/**
 * The search's table of number keys: the same ids a Map would give, for any numbers (small
 * integers, negatives, fractions, beyond 2^31), through many doublings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NumberIds } from './number-ids.js';

describe('NumberIds', () => {
  it('answers what a Map answers, for any numbers, as it grows', () => {
    const key = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.double({ noNaN: true }), fc.maxSafeInteger());
    fc.assert(
      fc.property(fc.array(key, { maxLength: 3000 }), (keys) => {
        const table = new NumberIds(4);
        const map = new Map<number, number>();
        for (const k of keys) {
          const id = table.get(k);
          expect(id).toBe(map.get(k) ?? -1);
          if (id === -1) {
            table.set(k, map.size);
            map.set(k, map.size);
          }
        }
        expect(table.size).toBe(map.size);
        for (const [k, id] of map) expect(table.get(k)).toBe(id);
      }),
      { numRuns: 200, seed: 20261201 },
    );
  });

  it('keeps a million ids', () => {
    const table = new NumberIds();
    for (let i = 0; i < 1_000_000; i++) table.set(i * 7, i);
    expect(table.get(7 * 999_999)).toBe(999_999);
    expect(table.get(3)).toBe(-1);
    expect(table.size).toBe(1_000_000);
  });
});
