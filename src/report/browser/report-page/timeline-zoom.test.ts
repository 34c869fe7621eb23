import { describe, expect, it } from 'vitest';
import { wheelView } from './timeline-zoom.js';

describe('a wheel turn over the timeline', () => {
  it('zooms about the pointer: in when turned up, out when turned down', () => {
    expect(wheelView([100, 200], 150, -1, false)).toEqual([110, 190]);
    expect(wheelView([100, 200], 100, 1, false)).toEqual([100, 225]);
  });

  it('pans by 15% of the view with Shift, whichever way it is turned', () => {
    expect(wheelView([100, 200], 0, 3, true)).toEqual([115, 215]);
    expect(wheelView([100, 200], 0, -3, true)).toEqual([85, 185]);
  });
});
