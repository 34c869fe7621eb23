import { describe, expect, it } from 'vitest';
import { launchCells, launchOrder } from './cell-launcher.js';
import type { ResolvedCell } from './matrix.js';

/** A cell as the launcher sees it: its index, its expectation and whether it stops early. */
function cell(index: number, expect: 'valid' | 'invalid', stopOnViolation?: boolean): ResolvedCell {
  const config = stopOnViolation === undefined ? {} : { stopOnViolation };
  return { index, expect, resolved: { config } } as unknown as ResolvedCell;
}

const cells = [
  cell(0, 'valid'),
  cell(1, 'invalid', true),
  cell(2, 'valid'),
  cell(3, 'invalid', true),
  cell(4, 'valid', true), // asks to stop at a violation, but a valid run has none: full time
  cell(5, 'invalid', true),
  cell(6, 'invalid', false), // --full-time, or its own stop-on-violation: false
  cell(7, 'invalid', true),
];

describe('launchOrder', () => {
  it('keeps file order before the last `depth` cells, and there puts the full-time ones first', () => {
    expect(launchOrder(cells, 5).map((c) => c.index)).toEqual([0, 1, 2, 4, 6, 3, 5, 7]);
  });

  it('reorders the whole campaign when it is no longer than the depth', () => {
    expect(launchOrder(cells, 8).map((c) => c.index)).toEqual([0, 2, 4, 6, 1, 3, 5, 7]);
    expect(launchOrder(cells.slice(0, 2), 5).map((c) => c.index)).toEqual([0, 1]);
  });

  it('keeps file order with a depth of 0', () => {
    expect(launchOrder(cells, 0).map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('launchCells', () => {
  it('starts the cells in launch order, its depth that of the launcher (2 × parallel + ahead)', async () => {
    const started: number[] = [];
    await launchCells(cells, { parallel: 2, ahead: 1 }, new AbortController().signal, async (one, workloadOver) => {
      started.push(one.index);
      workloadOver();
    });
    expect(started).toEqual([0, 1, 2, 4, 6, 3, 5, 7]);
  });
});
