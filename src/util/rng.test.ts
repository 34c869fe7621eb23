import { describe, expect, it } from 'vitest';
import { Rng } from './rng.js';

const draw = (r: Rng, n = 20) => Array.from({ length: n }, () => r.nextUint32());

describe('Rng', () => {
  it('gives the same stream for the same seed, another for another seed', () => {
    expect(draw(new Rng(42))).toEqual(draw(new Rng(42)));
    expect(draw(new Rng(42))).not.toEqual(draw(new Rng(43)));
  });

  it('forks named streams that do not depend on how much the parent drew', () => {
    const a = new Rng(7);
    const b = new Rng(7);
    draw(b, 100);
    expect(draw(a.fork('nemesis'))).toEqual(draw(b.fork('nemesis')));
    expect(draw(a.fork('nemesis'))).not.toEqual(draw(a.fork('client-0')));
  });

  it('stays in range', () => {
    const r = new Rng(1);
    for (let i = 0; i < 10_000; i++) {
      const u = r.uniform(2, 3);
      expect(u >= 2 && u < 3).toBe(true);
      const k = r.int(-2, 2);
      expect(Number.isInteger(k) && k >= -2 && k <= 2).toBe(true);
    }
  });
});
