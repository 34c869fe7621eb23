import { describe, expect, it } from 'vitest';
import type { Cell } from './matrix.js';
import { type CellResult, cellsNotRun } from './report.js';

const result = (index: number, actual: CellResult['actual']) =>
  ({ cell: { index, id: `c${index}`, expect: 'valid' } as Cell, actual }) as CellResult;

describe('cellsNotRun', () => {
  it('names the planned cells that have no result, a not-run one among them', () => {
    const planned = [0, 3, 6, 9].map((index) => ({ index, id: `c${index}`, expect: 'valid' as const }));
    const cells = [result(3, 'valid'), result(9, 'not-run')];
    expect(cellsNotRun({ planned, cells }).map((c) => c.id)).toEqual(['c0', 'c6', 'c9']);
  });

  it('without a plan (an older summary), names the cells written as not-run', () => {
    const cells = [result(1, 'invalid'), result(2, 'not-run')];
    expect(cellsNotRun({ cells })).toEqual([{ index: 2, id: 'c2', expect: 'valid' }]);
  });
});
