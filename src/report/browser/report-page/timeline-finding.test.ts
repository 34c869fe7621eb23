import { describe, expect, it } from 'vitest';
import { badgeX, lostArrowPath, type MarkBox } from './timeline-finding.js';
import { BAR_H, BAR_Y, LABEL_W } from './timeline-layout.js';

const box = (x0: number, x1: number, y: number): MarkBox => ({ x0, x1, y, m: { index: 0, label: '' } });

describe("the finding's marks", () => {
  it('bends the lost-write arrow 14 px above the higher of the two bars', () => {
    const mid = BAR_Y + BAR_H / 2;
    expect(lostArrowPath(box(100, 150, 60), box(250, 300, 120))).toBe(
      `M152,${60 + mid} C200,${60 + mid - 14} 200,${60 + mid - 14} 247,${120 + mid}`,
    );
  });

  it("puts a badge at the operation's end or start, kept inside the plot", () => {
    expect(badgeX(box(200, 300, 0), true, 800)).toBe(300);
    expect(badgeX(box(200, 300, 0), false, 800)).toBe(200);
    expect(badgeX(box(0, 10, 0), false, 800)).toBe(LABEL_W + 8);
    expect(badgeX(box(0, 2000, 0), true, 800)).toBe(LABEL_W + 800 - 8);
  });
});
