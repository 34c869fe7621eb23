import { afterEach, describe, expect, it, vi } from 'vitest';
import { monotonicNow, NS_PER_MS, sleep, sleepAtLeast } from './monotonic-clock.js';

/**
 * A clock the test moves, and timers that wake half a millisecond early on it, as libuv's may
 * against hrtime (it counts timers from the loop's cached, millisecond-truncated time).
 */
function earlyWakingTimers() {
  let now = 1_000n * BigInt(NS_PER_MS);
  let timers = 0;
  vi.spyOn(process.hrtime, 'bigint').mockImplementation(() => now);
  vi.stubGlobal('setTimeout', (fire: () => void, ms: number) => {
    timers++;
    now += BigInt(ms * NS_PER_MS - NS_PER_MS / 2);
    setImmediate(fire);
    return { timer: timers };
  });
  vi.stubGlobal('clearTimeout', () => {});
  return { now: () => now, timers: () => timers };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('sleepAtLeast', () => {
  it('never ends before its time on the monotonic clock, though a bare timer may', async () => {
    const clock = earlyWakingTimers();
    for (const ms of [1, 2, 3, 5, 7, 11]) {
      const from = monotonicNow();
      await sleep(ms);
      // The timer alone woke early on this clock ...
      expect(Number(clock.now() - from)).toBeLessThan(ms * NS_PER_MS);
      const again = monotonicNow();
      const timersBefore = clock.timers();
      await sleepAtLeast(ms, again);
      // ... sleepAtLeast slept again until its time had passed.
      expect(Number(clock.now() - again)).toBeGreaterThanOrEqual(ms * NS_PER_MS);
      expect(clock.timers() - timersBefore).toBeGreaterThan(1);
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
