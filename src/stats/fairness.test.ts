import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jainIndex } from './fairness.js';

describe('Jain fairness index', () => {
  it('1 for equal shares, 1/n for one taker, hand-computed in between', () => {
    expect(jainIndex([3, 3, 3, 3])).toBe(1);
    expect(jainIndex([10, 0, 0, 0])).toBe(0.25);
    // (1+2+3)^2 / (3·(1+4+9)) = 36/42
    expect(jainIndex([1, 2, 3])).toBeCloseTo(36 / 42, 12);
  });

  it('undefined without shares; refuses negative ones', () => {
    expect(jainIndex([])).toBeNull();
    expect(jainIndex([0, 0])).toBeNull();
    expect(() => jainIndex([1, -1])).toThrow(RangeError);
  });

  it('property: between 1/n and 1, and scale-free', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 64 }), (xs) => {
        const j = jainIndex(xs);
        if (xs.every((x) => x === 0)) {
          expect(j).toBeNull();
          return;
        }
        expect(j).toBeGreaterThanOrEqual(1 / xs.length - 1e-12);
        expect(j).toBeLessThanOrEqual(1 + 1e-12);
        expect(jainIndex(xs.map((x) => x * 7))).toBeCloseTo(j as number, 9);
      }),
    );
  });
});
