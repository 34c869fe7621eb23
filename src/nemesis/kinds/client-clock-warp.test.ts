import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng.js';
import { nodeFaultContext } from '../context.js';
import { ClientClockWarp, clientClockWarp, drawClientClock } from './client-clock-warp.js';
import { drawNodeClock } from './node-clock.js';

describe('client-clock-warp', () => {
  it("draws as node-clock does, and slow is node-clock's rate run backwards", () => {
    expect(drawClientClock('forward', 1000, new Rng(5))).toEqual(drawNodeClock('forward', 1000, new Rng(5)));
    const fast = drawNodeClock('rate', 1000, new Rng(5)).change.rate as number;
    expect(drawClientClock('slow', 1000, new Rng(5)).change).toEqual({ rate: -fast });
    expect(fast).toBeGreaterThanOrEqual(0.05);
  });

  it('moves no one when there is no client, and says so with a null start', async () => {
    const ctx = nodeFaultContext('abc', [], { nemesisIntervalS: 1, ttlMs: 1000 });
    const none = {
      holders: () => [],
      count: () => 0,
      pids: () => [],
      process: () => 0,
      pid: () => undefined,
    } as never;
    const warp = new ClientClockWarp('abc', none, ctx.timing, 'one', 'slow');
    expect(await warp.start(new Rng(1))).toBeNull();
    expect(await warp.stop()).toBeNull();
  });

  it('says whom it moved and how, from its record', () => {
    const words = clientClockWarp.words?.({ clients: [{ process: 3 }, { process: 7 }], rate: -0.25 });
    expect(words).toEqual({ whom: 'process 3, 7', how: ['clock rate ×0.75'] });
    expect(clientClockWarp.words?.({ clients: [{ process: 1 }], jumpMs: -800 })).toEqual({
      whom: 'process 1',
      how: ['clock -800 ms'],
    });
  });
});
