import { describe, expect, it } from 'vitest';
import { levelOfDetail } from './level-of-detail.js';
import { firstEnding } from './timeline-index.js';

/** Intervals [start, end] by id; 1 ms is 1 px. */
function drawn(intervals: [number, number][], t0: number, t1: number): string[] {
  const out: string[] = [];
  levelOfDetail(
    intervals.map((_, i) => i),
    (i) => intervals[i][0],
    (i) => intervals[i][1],
    { t0, t1, x: (t) => t },
    (id, x0, x1) => out.push(`one ${id} ${x0}-${x1}`),
    (ids, x0, x1) => out.push(`many ${ids.join(',')} ${x0}-${x1}`),
  );
  return out;
}

describe('level of detail', () => {
  it('finds the first interval that ends in view', () => {
    const ends = [10, 20, 30, 40];
    expect(firstEnding([0, 1, 2, 3], (i) => ends[i], 25)).toBe(2);
    expect(firstEnding([0, 1, 2, 3], (i) => ends[i], 20)).toBe(1);
    expect(firstEnding([0, 1, 2, 3], (i) => ends[i], 50)).toBe(4);
  });

  it('draws wide intervals alone and merges narrow ones that touch', () => {
    expect(
      drawn(
        [
          [0, 1],
          [2, 3],
          [4, 5],
          [10, 20],
          [30, 31],
          [40, 41],
        ],
        0,
        100,
      ),
    ).toEqual(['many 0,1,2 0-5', 'one 3 10-20', 'one 4 30-31', 'one 5 40-41']);
  });

  it('draws only what is in view', () => {
    expect(
      drawn(
        [
          [0, 10],
          [20, 30],
          [40, 50],
          [60, 70],
        ],
        25,
        45,
      ),
    ).toEqual(['one 1 20-30', 'one 2 40-50']);
  });
});
