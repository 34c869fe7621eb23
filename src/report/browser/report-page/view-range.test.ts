import { describe, expect, it } from 'vitest';
import { clampView, panned, zoomed, zoomedAt } from './view-range.js';

describe("the timeline's view", () => {
  it('stays inside the run, at least half a millisecond wide, moved rather than cut at an edge', () => {
    expect(clampView(100, 200, [0, 1000])).toEqual([100, 200]);
    expect(clampView(-50, 50, [0, 1000])).toEqual([0, 100]);
    expect(clampView(950, 1050, [0, 1000])).toEqual([900, 1000]);
    expect(clampView(-10, 2000, [0, 1000])).toEqual([0, 1000]);
    expect(clampView(10, 10, [0, 1000])).toEqual([10, 10.5]);
  });

  it('zooms about its middle or a time, and pans by a share of its span', () => {
    expect(zoomed([100, 200], 0.5)).toEqual([125, 175]);
    expect(zoomed([100, 200], 2)).toEqual([50, 250]);
    expect(zoomedAt([100, 200], 120, 0.5)).toEqual([110, 160]);
    expect(panned([100, 200], -0.4)).toEqual([60, 160]);
    expect(panned([100, 200], 0.15)).toEqual([115, 215]);
  });
});
