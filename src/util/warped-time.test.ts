import { describe, expect, it } from 'vitest';
import { strobedBetween, warpedAt } from './warped-time.js';

const MS = 1_000_000;

describe("a warped clock's stamps, mapped back to true time", () => {
  it('undoes a jump and a rate exactly: w = t + offset + (t − anchor)·rate', () => {
    const jumped = warpedAt(1339 * MS, 0, 0);
    expect(jumped(5000 * MS + 1339 * MS, 6000 * MS)).toBe(5000 * MS);
    // Running 30% slow since the anchor at 1 s, 0.2 s behind then.
    const slow = warpedAt(-200 * MS, -0.3, 1000 * MS);
    const t = 3000 * MS;
    const w = t - 200 * MS + (t - 1000 * MS) * -0.3;
    expect(slow(w, t + MS)).toBeCloseTo(t, -1);
    // Never after it arrived.
    expect(jumped(9000 * MS, 10 * MS)).toBe(10 * MS);
  });

  it("takes a strobe's offset whose true time lies at or before the arrival, nearest it", () => {
    const strobe = strobedBetween([800 * MS, 0]);
    // Stamped while ahead: 800 ms early of its stamp, 2 ms before it arrived.
    expect(strobe(2798 * MS + 800 * MS, 2800 * MS)).toBe(2798 * MS);
    // Stamped while true: its own stamp (the other offset puts it 800 ms before).
    expect(strobe(2798 * MS, 2800 * MS)).toBe(2798 * MS);
    expect(strobe(5000 * MS, 10 * MS)).toBe(10 * MS);
  });
});
