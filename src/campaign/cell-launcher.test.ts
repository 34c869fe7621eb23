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
  cell(2, 'valid', true), // asks to stop at a violation, but a valid run has none: full time
  cell(3, 'invalid', true),
  cell(4, 'invalid', false), // --full-time, or its own stop-on-violation: false
];

describe('launchOrder', () => {
  it('puts the full-time cells first and the early stoppers after them, each in file order', () => {
    expect(launchOrder(cells).map((c) => c.index)).toEqual([0, 2, 4, 1, 3]);
  });
});

describe('launchCells', () => {
  it('starts the cells in launch order', async () => {
    const started: number[] = [];
    await launchCells(cells, { parallel: 1, ahead: 0 }, new AbortController().signal, async (one, workloadOver) => {
      started.push(one.index);
      workloadOver();
    });
    expect(started).toEqual([0, 2, 4, 1, 3]);
  });
});
