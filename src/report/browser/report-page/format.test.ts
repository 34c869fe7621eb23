import { describe, expect, it } from 'vitest';
import { fmtMs, fmtS, niceStep, tickDecimals } from './format.js';

describe("the report page's numbers", () => {
  it('writes times in seconds, with fewer decimals from 100 s', () => {
    expect(fmtS(1234)).toBe('1.234 s');
    expect(fmtS(0)).toBe('0.000 s');
    expect(fmtS(123_456)).toBe('123.46 s');
    expect(fmtS(-150_000)).toBe('-150.00 s');
  });

  it('writes latencies by their size, and none as a dash', () => {
    expect(fmtMs(0.1234)).toBe('0.123 ms');
    expect(fmtMs(12.34)).toBe('12.3 ms');
    expect(fmtMs(1234.5)).toBe('1235 ms');
    expect(fmtMs(null)).toBe('–');
    expect(fmtMs(undefined)).toBe('–');
  });

  it('rounds a tick step up to 1, 2 or 5 times a power of ten', () => {
    expect(niceStep(0.7)).toBe(1);
    expect(niceStep(1.5)).toBe(2);
    expect(niceStep(30)).toBe(50);
    expect(niceStep(700)).toBe(1000);
    expect(niceStep(2000)).toBe(2000);
  });

  it('gives ticks as many decimals as their step needs', () => {
    expect(tickDecimals(1000)).toBe(0);
    expect(tickDecimals(5000)).toBe(0);
    expect(tickDecimals(200)).toBe(1);
    expect(tickDecimals(5)).toBe(3);
    expect(tickDecimals(1e-6)).toBe(6);
  });
});
