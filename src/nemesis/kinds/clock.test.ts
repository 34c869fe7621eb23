import { describe, expect, it } from 'vitest';
import type { NodeHandle } from '../../cluster/cluster.js';
import { sleep } from '../../util/monotonic-clock.js';
import { Rng } from '../../util/rng.js';
import { nodeFaultContext } from '../context.js';
import { ClockStrobe } from './clock.js';

describe('clock strobe', () => {
  it('brings back every node that went ahead, and only those, even when a node misses flips', async () => {
    const nodes = ['r1', 'r2'].map((name) => ({ name }) as NodeHandle);
    const ctx = nodeFaultContext('t', nodes, { nemesisIntervalS: 1, ttlMs: 1000 });
    const offset = new Map<string, number>();
    let r2Calls = 0;
    // r2 is down for its second and third shifts: both flips back; a later one brings it back.
    const shift = async (node: NodeHandle, ms: number): Promise<[number, number]> => {
      if (node.name === 'r2' && ++r2Calls >= 2 && r2Calls <= 3) throw new Error('connection refused');
      offset.set(node.name, (offset.get(node.name) ?? 0) + ms);
      return [0, 1];
    };
    const strobe = new ClockStrobe(ctx, 'all', shift);
    const started = await strobe.start(new Rng(1));
    expect(started?.value).toMatchObject({ nodes: ['r1', 'r2'] });
    await sleep(1200);
    const stopped = (await strobe.stop()) as { flips: number; missed: number };
    expect(stopped.flips).toBeGreaterThanOrEqual(4);
    expect(stopped.missed).toBe(2);
    expect(stopped).not.toHaveProperty('leftAhead');
    expect(Object.fromEntries(offset)).toEqual({ r1: 0, r2: 0 });
  });
});
