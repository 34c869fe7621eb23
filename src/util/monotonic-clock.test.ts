import { describe, expect, it } from 'vitest';
import { monotonicNow, NS_PER_MS, sleepAtLeast } from './monotonic-clock.js';

describe('sleepAtLeast', () => {
  it('never ends before its time on the monotonic clock, though a bare timer may', async () => {
    for (const ms of [1, 2, 3, 5, 7, 11]) {
      const from = monotonicNow();
      await sleepAtLeast(ms, from);
      expect(Number(monotonicNow() - from)).toBeGreaterThanOrEqual(ms * NS_PER_MS);
    }
  });

  it('ends when its signal aborts, long before its time', async () => {
    const stop = new AbortController();
    const from = monotonicNow();
    setTimeout(() => stop.abort(), 5);
    await sleepAtLeast(60_000, from, stop.signal);
    expect(Number(monotonicNow() - from)).toBeLessThan(60_000 * NS_PER_MS);
  });
});
