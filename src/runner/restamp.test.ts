import { describe, expect, it } from 'vitest';
import type { UnindexedOp } from '../history/recorder.js';
import { MAX_SPACING_NS, restampOnArrival } from './restamp.js';

const MS = 1_000_000;
const ops = (...times: number[]) =>
  times.map((time) => ({ process: 0, type: 'invoke', f: 'acquire', time }) as UnindexedOp);

describe("a warped worker's operations, stamped on the runner's clock as they arrive", () => {
  it('stamps the last at its arrival and keeps the spacing before it, whatever the warped clock read', () => {
    // The worker's clock ran 5 s ahead: its stamps are 5 s late of true time.
    const batch = ops(5000 * MS, 5001 * MS, 5002 * MS);
    restampOnArrival(batch, 10 * MS, 0);
    expect(batch.map((o) => o.time)).toEqual([8 * MS, 9 * MS, 10 * MS]);
  });

  it('maps each stamp back with the warp the fault put in place, in order, never before the last seen', () => {
    const batch = ops(6339 * MS, 6340 * MS);
    // A 1339 ms jump; origin at 100 ms of the runner's clock.
    restampOnArrival(batch, 5010 * MS, 0, { trueTime: (w) => w - 1339 * MS, originNs: 100 * MS });
    expect(batch.map((o) => o.time)).toEqual([5000 * MS, 5001 * MS]);
    const late = ops(6339 * MS);
    restampOnArrival(late, 5010 * MS, 5005 * MS, { trueTime: (w) => w - 1339 * MS, originNs: 0 });
    expect(late[0]?.time).toBe(5005 * MS);
  });

  it('moves nothing far when a jump fell inside the batch, keeps order, and never goes before the last op seen', () => {
    // A strobe flipped the clock back 1 s between two ops of one batch.
    const batch = ops(2000 * MS, 1000 * MS, 1001 * MS);
    restampOnArrival(batch, 50 * MS, 45 * MS);
    const times = batch.map((o) => o.time);
    expect(times[0]).toBeGreaterThanOrEqual(50 * MS - MAX_SPACING_NS);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThanOrEqual(45 * MS);
    expect(times.at(-1)).toBe(50 * MS);
  });
});
