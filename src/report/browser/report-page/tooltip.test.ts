import { describe, expect, it } from 'vitest';
import { tipPosition } from './tooltip.js';

describe("the tooltip's place", () => {
  const win = { width: 1000, height: 800 };
  const tip = { width: 200, height: 60 };

  it('sits right of and below the pointer', () => {
    expect(tipPosition({ x: 100, y: 100 }, tip, win)).toEqual({ left: 114, top: 116 });
  });

  it('stays inside the window at its right edge, and goes above the pointer near the bottom', () => {
    expect(tipPosition({ x: 950, y: 100 }, tip, win).left).toBe(1000 - 200 - 8);
    expect(tipPosition({ x: 100, y: 760 }, tip, win).top).toBe(760 - 60 - 10);
    expect(tipPosition({ x: -100, y: 0 }, tip, win).left).toBe(4);
  });
});
