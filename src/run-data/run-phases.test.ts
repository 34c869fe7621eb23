import { afterEach, describe, expect, it, vi } from 'vitest';
import { PhaseTimer } from './run-phases.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('PhaseTimer', () => {
  it('gives each phase the time from its entry to the next, and adds a phase entered again', () => {
    vi.useFakeTimers({ now: 0 });
    const phases = new PhaseTimer(0);
    vi.setSystemTime(5_000);
    phases.enter('ready');
    vi.setSystemTime(6_250);
    phases.enter('workload');
    vi.setSystemTime(36_250);
    phases.enter('teardown');
    vi.setSystemTime(40_000);
    phases.enter('check');
    vi.setSystemTime(41_000);
    phases.stop();
    expect(phases.seconds).toEqual({ start: 5, ready: 1.25, workload: 30, teardown: 3.75, check: 1 });
    vi.setSystemTime(41_500);
    phases.stop();
    expect(phases.seconds.check).toBe(1.5);
  });
});
