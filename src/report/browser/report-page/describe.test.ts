import { describe, expect, it } from 'vitest';
import type { Violation } from '../../report-data-types.js';
import { describeBar, describeFault, describeHold, describeMark, markLine } from './describe.js';
import type { ReportPageData } from './page-data.js';
import { indexTimeline } from './timeline-index.js';

/** Two processes: p0's acquire (ok, token 7) and write (never completed); p1's read that failed. */
const D = {
  endMs: 5000,
  fs: ['acquire', 'write', 'read'],
  colors: ['#2563eb', '#7c3aed', '#0891b2'],
  lanes: [
    { process: 0, label: 'p0' },
    { process: 1, label: 'p1' },
  ],
  bars: [
    [0, 0, 0, 1000, 1012.6, 0, 1, '', '', ''],
    [0, 1, 3, 2000, -1, 2, -1, '[1 2]', '', ''],
    [1, 2, 1, 2500, 2600, 3, 4, '', 'timeout', ''],
  ],
  holds: [[0, 1012.6, -1, 1, -1, 7]],
  faults: [{ label: 'pause p0', startMs: 1500, endMs: -1, row: 0, lane: 0 }],
} as unknown as ReportPageData;

describe('what the page says about an element', () => {
  it('describes an operation by its outcome, times and value', () => {
    expect(describeBar(D, 0)).toEqual([
      'acquire by process 0: ok',
      'invoked 1.000 s (op #0), completed 1.013 s (op #1), 12.6 ms',
    ]);
    expect(describeBar(D, 1)).toEqual([
      'write by process 0: pending',
      'invoked 2.000 s (op #2), never completed',
      'value: [1 2]',
    ]);
    expect(describeBar(D, 2)[0]).toBe('read by process 1: fail (timeout)');
  });

  it('describes a hold to the end, with its token, and a fault not healed', () => {
    expect(describeHold(D, 0)).toEqual([
      'process 0 believes it holds the lock',
      'from 1.013 s (acquire ok, op #1) to the end',
      'fencing token 7',
    ]);
    expect(describeFault(D, 0)).toEqual(['fault: pause p0', '1.500 s – not healed in this history']);
  });

  it("names a finding's marks at the time each takes effect, and one not drawn", () => {
    const { byIndex } = indexTimeline(D);
    expect(byIndex).toEqual({ 0: 0, 1: 0, 2: 1, 3: 2, 4: 2 });
    expect(markLine(D, byIndex, { index: 1, label: 'acquired' })).toBe('acquired (op #1) at 1.013 s');
    expect(markLine(D, byIndex, { index: 2, label: 'wrote' })).toBe('wrote (op #2) at 2.000 s');
    expect(markLine(D, byIndex, { index: 9, label: 'read' })).toBe('read (op #9) (not drawn)');
    const v = { marks: [{ index: 3, label: 'read' }] } as Violation;
    expect(describeMark(D, byIndex, v, 0)).toEqual(['1: read (op #3)', ...describeBar(D, 2)]);
  });
});
