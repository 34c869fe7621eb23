import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportHeapMiB } from './report-heap.js';

describe('reportHeapMiB', () => {
  it('a fixed part for a small history, growing with its size', () => {
    fc.assert(
      fc.property(fc.nat(2 ** 31), fc.nat(2 ** 31), (a, b) => {
        const [small, large] = a <= b ? [a, b] : [b, a];
        expect(reportHeapMiB(small)).toBeGreaterThanOrEqual(256);
        expect(reportHeapMiB(small)).toBeLessThanOrEqual(reportHeapMiB(large));
      }),
    );
  });

  it('the 1M-operation lock-set history (330 MB) within 1 GiB with room for the rest of the process', () => {
    expect(reportHeapMiB(330_418_336)).toBeLessThan(800);
  });
});
