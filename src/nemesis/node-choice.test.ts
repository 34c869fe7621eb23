import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.js';
import { partitionGrudge, pickNodes } from './node-choice.js';

const nodes = (n: number) => Array.from({ length: n }, (_, i) => `n${i + 1}`);

/** Connected components of "can hear each other both ways". */
function components(all: string[], grudge: Map<string, Set<string>>): string[][] {
  const hears = (a: string, b: string) => !grudge.get(a)?.has(b) && !grudge.get(b)?.has(a);
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const start of all) {
    if (seen.has(start)) continue;
    const comp: string[] = [];
    const stack = [start];
    seen.add(start);
    while (stack.length) {
      const x = stack.pop() as string;
      comp.push(x);
      for (const y of all) {
        if (seen.has(y) || !hears(x, y)) continue;
        seen.add(y);
        stack.push(y);
      }
    }
    out.push(comp.sort());
  }
  return out;
}

describe('fault targets', () => {
  it('picks node sets of the right sizes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.nat(), (n, seed) => {
        const rng = new Rng(seed);
        const all = nodes(n);
        expect(pickNodes('one', all, rng)).toHaveLength(1);
        expect(pickNodes('minority', all, rng).length).toBe(Math.max(1, Math.floor((n - 1) / 2)));
        expect(pickNodes('majority', all, rng).length).toBe(Math.floor(n / 2) + 1);
        expect(pickNodes('all', all, rng)).toEqual(all);
        expect(new Set(pickNodes('majority', all, rng)).size).toBe(Math.floor(n / 2) + 1);
      }),
    );
    expect(pickNodes('leader', nodes(3), new Rng(1), 'n2')).toEqual(['n2']);
  });

  it('cuts halves into two sides that cannot hear each other', () => {
    const g = partitionGrudge('halves', nodes(5), new Rng(1));
    expect(components(nodes(5), g)).toEqual([
      ['n1', 'n2'],
      ['n3', 'n4', 'n5'],
    ]);
  });

  it('isolates one node, or the leader', () => {
    const g = partitionGrudge('isolate-leader', nodes(5), new Rng(1), 'n4');
    expect(components(nodes(5), g)).toEqual([['n1', 'n2', 'n3', 'n5'], ['n4']]);
    expect(
      components(nodes(3), partitionGrudge('isolate-one', nodes(3), new Rng(2)))
        .map((c) => c.length)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('bridges: one node hears both sides, the sides do not hear each other', () => {
    const g = partitionGrudge('bridge', nodes(5), new Rng(3));
    const bridge = nodes(5).filter((x) => (g.get(x)?.size ?? 0) === 0);
    expect(bridge).toHaveLength(1);
    expect(components(nodes(5), g)).toHaveLength(1); // connected only through the bridge
  });

  it('majorities-ring: every node sees a majority, and no two see the same one (5 nodes)', () => {
    fc.assert(
      fc.property(fc.nat(), (seed) => {
        const all = nodes(5);
        const g = partitionGrudge('majorities-ring', all, new Rng(seed));
        const views = all.map((x) =>
          all
            .filter((y) => !g.get(x)?.has(y))
            .sort()
            .join(','),
        );
        for (const v of views) expect(v.split(',').length).toBe(3);
        expect(new Set(views).size).toBe(5);
        // Symmetric: a ring of neighbours.
        for (const x of all) for (const y of g.get(x) ?? []) expect(g.get(y)?.has(x)).toBe(true);
      }),
    );
  });
});
