/**
 * The live overlap count (what the progress line shows and --stop-on-violation reads) against
 * the mutual-exclusion checker: the same count, as far as the ops so far tell, whatever
 * order they arrive in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { H } from '../test/unit/history-builder.js';
import { LiveOverlaps } from './live-overlaps.js';
import { checkMutualExclusion } from './mutual-exclusion.js';

describe('live overlaps', () => {
  it("judges overlaps on the ops' times, not on the order they arrive in", () => {
    const live = new LiveOverlaps();
    const op = (type: string, f: string, process: number, time: number) =>
      live.onOp({ type, f, process, time, key: 'L' });
    op('ok', 'acquire', 0, 10);
    op('ok', 'acquire', 1, 30); // arrives before p0's release, which happened earlier
    op('invoke', 'release', 0, 20);
    expect(live.overlaps).toBe(0);
    op('ok', 'acquire', 2, 35); // p1 still holds: an overlap, once p1's end is known
    op('invoke', 'release', 1, 40);
    expect(live.overlaps).toBe(1);
  });

  it('agrees with the checker: a paused holder overlapped by 70 later holds is 70, not 1', () => {
    const live = new LiveOverlaps();
    const history = new H().acquire(0); // p0 holds, paused
    for (let i = 0; i < 70; i++) history.acquire(1 + (i % 3)).release(1 + (i % 3));
    history.release(0);
    for (const op of history.ops) live.onOp(op);
    expect(checkMutualExclusion(history.ops, { counts: true }).details?.overlaps).toBe(70);
    expect(live.overlaps).toBe(70);
  });

  it('agrees with the checker: a hold never released counts (0 live, then INVALID, on c7f3e6e)', () => {
    const live = new LiveOverlaps();
    const history = new H().acquire(0).acquire(1).release(1).acquire(2);
    for (const op of history.ops) live.onOp(op);
    expect(checkMutualExclusion(history.ops, { counts: true }).details?.overlaps).toBe(2);
    expect(live.overlaps).toBe(2);
  });

  it("property: at the end, the live count is the mutual-exclusion checker's", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 9 })), { maxLength: 120 }),
        (steps) => {
          const h = new H();
          const holding = new Set<number>();
          const proc = [0, 1, 2, 3, 4];
          for (const [client, roll] of steps) {
            const p = proc[client] as number;
            if (!holding.has(p)) {
              h.invoke(p, 'acquire', 'L');
              if (roll < 7) {
                h.ok(p, 'acquire', 'L', {});
                holding.add(p);
              } else if (roll < 9) h.fail(p, 'acquire', 'L');
              else {
                h.info(p, 'acquire', 'L');
                proc[client] = p + 5; // a fresh process after info
              }
            } else if (roll < 8) {
              h.invoke(p, 'release', 'L').ok(p, 'release', 'L');
              holding.delete(p);
            } else if (roll < 9) {
              h.invoke(p, 'write', 'S').info(p, 'write', 'S'); // gives up: the belief ends
              holding.delete(p);
              proc[client] = p + 5;
            }
          }
          const live = new LiveOverlaps();
          for (const op of h.ops) live.onOp(op);
          expect(live.overlaps).toBe(checkMutualExclusion(h.ops, { counts: true }).details?.overlaps);
        },
      ),
      { numRuns: 300 },
    );
  });
});
