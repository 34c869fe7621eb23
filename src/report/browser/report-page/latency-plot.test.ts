import { describe, expect, it } from 'vitest';
import { latencyTick, xTickDecimals } from './latency-plot.js';

describe("the latency plot's ticks", () => {
  it('writes seconds with the decimals the tick step needs', () => {
    expect(xTickDecimals([0, 5000, 10000])).toBe(0);
    expect(xTickDecimals([0, 200])).toBe(1);
    expect(xTickDecimals([1000])).toBe(0);
  });

  it('writes latencies whole from 1 ms and with two digits under it', () => {
    expect(latencyTick(12.6)).toBe('13');
    expect(latencyTick(0.0123)).toBe('0.012');
    expect(latencyTick(null)).toBe('');
  });
});
