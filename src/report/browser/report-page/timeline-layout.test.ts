import { describe, expect, it } from 'vitest';
import {
  AXIS_H,
  FAULT_H,
  LABEL_W,
  LANE_H,
  RIGHT,
  timeAt,
  timelineLayout,
  timelineScale,
  twoLaneSpan,
} from './timeline-layout.js';

const lanes = (n: number) => Array.from({ length: n }, (_, i) => ({ process: i, label: `p${i}` }));
const fault = (row: number) => ({ row }) as never;

describe("the timeline's geometry", () => {
  it('makes room for each fault row and each lane', () => {
    expect(timelineLayout({ faults: [], lanes: lanes(2) } as never)).toEqual({
      lanesTop: AXIS_H + FAULT_H,
      height: AXIS_H + FAULT_H + 2 * LANE_H + 6,
    });
    expect(timelineLayout({ faults: [fault(0), fault(2)], lanes: lanes(1) } as never).lanesTop).toBe(
      AXIS_H + 3 * FAULT_H,
    );
  });

  it('spans the band between two drawn holders, in either order, and nothing with one', () => {
    const top = (lane: number) => 100 + lane * LANE_H;
    expect(
      twoLaneSpan(top, [
        [3, 0, 1],
        [1, 0, 1],
      ]),
    ).toEqual([100 + LANE_H, 100 + 4 * LANE_H]);
    expect(
      twoLaneSpan(top, [
        [-1, 0, 1],
        [1, 0, 1],
      ]),
    ).toBeUndefined();
  });

  it('maps the view onto the plot, at least 480 px wide, and x back to time', () => {
    const s = timelineScale(1000, [2000, 4000]);
    expect(s.plotW).toBe(1000 - LABEL_W - RIGHT);
    expect(s.X(2000)).toBe(LABEL_W);
    expect(s.X(4000)).toBeCloseTo(LABEL_W + s.plotW);
    expect(s.clampX(0)).toBe(LABEL_W - 3);
    expect(s.clampX(5000)).toBe(LABEL_W + s.plotW + 3);
    expect(timelineScale(0, [0, 1]).width).toBe(480);
    expect(timeAt([2000, 4000], 1000, s.X(3000))).toBeCloseTo(3000);
    expect(timeAt([2000, 4000], 1000, 0)).toBe(2000);
    expect(timeAt([2000, 4000], 1000, 5000)).toBe(4000);
  });
});
